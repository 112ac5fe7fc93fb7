"""An edit's cost on a walled team store: the chain head advanced in one statement, and the
policies on an annotator's cases read their ids through one indexed helper

``history_chain.prev_hash`` keeps the head's hash before its last advance, which PostgreSQL's
one-statement ``UPDATE ... RETURNING`` hands back (store/chain.py). On PostgreSQL the
policies that let an annotator read the cases assigned to them (``cases``,
``case_revisions``) asked a correlated ``EXISTS`` over ``rated_work`` (itself under row-level
security, with a nested ``judge_items`` subquery) for every row; they now ask
``annotator_my_cases()``, a STABLE function evaluated once per statement (an index scan of
the caller's rated work, under the caller's own policies), whose set the planner hashes.
Same rows, same rules.

Revision ID: 0014_r23b_edit_cost
Revises: 0013_rls
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from alembic import op

revision = "0014_r23b_edit_cost"
down_revision = "0013_rls"
branch_labels = None
depends_on = None

_MINE = "(SELECT annotator_my_cases())"
# (table, policy name, command, USING, WITH CHECK) after this migration; the READER test is
# 0013's, the own-case test now the helper's set.
_READER = "((SELECT annotator_is('curator')) OR (SELECT annotator_is('adjudicator')))"
NEW_POLICIES = [
    ("cases", "annotator_select_0", "SELECT", f"{_READER} OR cases.id IN {_MINE}", None),
    ("cases", "annotator_update_2", "UPDATE", f"{_READER} OR cases.id IN {_MINE}",
     f"{_READER} OR cases.id IN {_MINE}"),
    ("case_revisions", "annotator_select_0", "SELECT",
     f"{_READER} OR case_revisions.case_pk IN {_MINE}", None),
]
FUNCTION = "annotator_my_cases()"


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _create(table: str, name: str, cmd: str, using: str | None, check: str | None,
            app: str) -> str:
    clause = f" USING ({using})" if using else ""
    clause += f" WITH CHECK ({check})" if check else ""
    return f"CREATE POLICY {name} ON {table} FOR {cmd} TO {_q(app)}{clause}"


def _walled(bind: sa.Connection) -> str | None:
    if bind.dialect.name != "postgresql":
        return None
    found = bind.exec_driver_sql(
        "SELECT to_regprocedure('annotator_role_prefix()') IS NOT NULL").scalar_one()
    return str(bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()) \
        if found else None


def upgrade() -> None:
    op.add_column("history_chain", sa.Column("prev_hash", sa.String(length=64), nullable=True))
    bind = op.get_bind()
    prefix = _walled(bind)
    if prefix is None:
        return
    app = f"{prefix}_app"
    # The caller's cases: assigned to them, or linked to a judged output they score (0013's
    # own-case rule). An invoker's function: the caller's own policies on rated_work and
    # judge_items still apply inside it, once per statement instead of once per row.
    bind.exec_driver_sql(
        f"CREATE FUNCTION {FUNCTION} RETURNS SETOF uuid LANGUAGE sql STABLE"
        " SET search_path = public, pg_temp AS $$"
        " SELECT w.case_pk FROM rated_work w"
        " WHERE w.rater_id = annotator_me() AND w.case_pk IS NOT NULL"
        " UNION SELECT j.case_pk FROM rated_work w JOIN judge_items j ON j.id = w.item_id"
        " WHERE w.rater_id = annotator_me() AND j.case_pk IS NOT NULL $$"
    )
    bind.exec_driver_sql(f"REVOKE ALL ON FUNCTION {FUNCTION} FROM PUBLIC")
    bind.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION {FUNCTION} TO {_q(app)}")
    for table, name, cmd, using, check in NEW_POLICIES:
        bind.exec_driver_sql(f"DROP POLICY {name} ON {table}")
        bind.exec_driver_sql(_create(table, name, cmd, using, check, app).replace("%", "%%"))


def _module_0013() -> Any:
    """0013's policies, as it made them (the versions folder is no package)."""
    path = Path(__file__).with_name("0013_rls.py")
    spec = importlib.util.spec_from_file_location("annotator_migration_0013_rls", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def downgrade() -> None:
    bind = op.get_bind()
    prefix = _walled(bind)
    if prefix is not None:
        rls = _module_0013()
        app = f"{prefix}_app"
        for table, name, cmd, _using, _check in NEW_POLICIES:
            n = int(name.rsplit("_", 1)[1])
            got_cmd, using, check = rls.POLICIES[table][n]
            assert got_cmd == cmd
            bind.exec_driver_sql(f"DROP POLICY {name} ON {table}")
            bind.exec_driver_sql(_create(table, name, cmd, using, check, app).replace("%", "%%"))
        bind.exec_driver_sql(f"DROP FUNCTION {FUNCTION}")
    op.drop_column("history_chain", "prev_hash")
