"""Each SME task's standing kept by the writes (issue 27): the desk's SME progress and open
conflicts are a grouped count of ``sme_task_keys``, not a reading of every verdict (100,000
cases: 1.5 s). Backfilled from the rows as they stand. On PostgreSQL the function
``annotator_sme_stale`` lets any app role mark a task's key stale (an SME's write cannot read
the other verdicts a key is computed from); on a walled store (0013_rls) only seniors
(curators, adjudicators) read or write the keys themselves. See store/sme_keys.py.

Revision ID: 0025_sme_task_keys
Revises: 0024_active_time
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0025_sme_task_keys"
down_revision = "0024_active_time"
branch_labels = None
depends_on = None

_DEFINER = "SECURITY DEFINER SET search_path = public, pg_temp"
_STALE = (
    "CREATE FUNCTION annotator_sme_stale(ids uuid[]) RETURNS void"
    f" LANGUAGE sql VOLATILE {_DEFINER} AS $$"
    " UPDATE sme_task_keys SET stale = true WHERE task_id = ANY(ids);"
    " INSERT INTO sme_task_keys (task_id, benchmark_id, state, open_conflicts, stale)"
    "  SELECT id, benchmark_id, 'unsubmitted', 0, true FROM sme_tasks WHERE id = ANY(ids)"
    "  ON CONFLICT (task_id) DO NOTHING $$"
)
_SENIOR = "((SELECT annotator_is('curator')) OR (SELECT annotator_is('adjudicator')))"
POLICIES = [("SELECT", _SENIOR, None), ("INSERT", None, _SENIOR), ("UPDATE", _SENIOR, _SENIOR),
            ("DELETE", _SENIOR, None)]


def upgrade() -> None:
    op.create_table(
        "sme_task_keys",
        sa.Column("task_id", sa.Uuid(), nullable=False),
        sa.Column("benchmark_id", sa.Uuid(), nullable=False),
        sa.Column("state", sa.String(length=12), nullable=False),
        sa.Column("open_conflicts", sa.Integer(), nullable=False),
        sa.Column("stale", sa.Boolean(), nullable=False),
        sa.ForeignKeyConstraint(["task_id"], ["sme_tasks.id"], ondelete="CASCADE",
                                name=op.f("fk_sme_task_keys_task_id_sme_tasks")),
        sa.ForeignKeyConstraint(["benchmark_id"], ["sme_benchmarks.id"], ondelete="CASCADE",
                                name=op.f("fk_sme_task_keys_benchmark_id_sme_benchmarks")),
        sa.PrimaryKeyConstraint("task_id", name=op.f("pk_sme_task_keys")),
    )
    op.create_index("ix_sme_task_keys_standing", "sme_task_keys",
                    ["stale", "benchmark_id", "state", "open_conflicts"])
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql(_STALE)
        bind.exec_driver_sql("REVOKE EXECUTE ON FUNCTION annotator_sme_stale(uuid[]) FROM PUBLIC")
        walled = bind.exec_driver_sql(
            "SELECT 1 FROM pg_proc WHERE proname = 'annotator_role_prefix'").first()
        if walled is not None:
            prefix = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
            app = '"' + f"{prefix}_app".replace('"', '""') + '"'
            bind.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION annotator_sme_stale(uuid[]) TO {app}")
            bind.exec_driver_sql(f"GRANT SELECT, INSERT, UPDATE, DELETE ON sme_task_keys TO {app}")
            bind.exec_driver_sql("ALTER TABLE sme_task_keys ENABLE ROW LEVEL SECURITY")
            for n, (cmd, using, check) in enumerate(POLICIES):
                clause = f" USING ({using})" if using else ""
                clause += f" WITH CHECK ({check})" if check else ""
                bind.exec_driver_sql(f"CREATE POLICY annotator_{cmd.lower()}_{n} ON sme_task_keys"
                                     f" FOR {cmd} TO {app}{clause}")
    # The keys as the rows stand, computed by the app's own rules (as 0021 does for cases).
    from annotator.services.sme.keys import backfill_keys

    backfill_keys(bind)


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql("DROP FUNCTION IF EXISTS annotator_sme_stale(uuid[])")
    op.drop_index("ix_sme_task_keys_standing", table_name="sme_task_keys")
    op.drop_table("sme_task_keys")
