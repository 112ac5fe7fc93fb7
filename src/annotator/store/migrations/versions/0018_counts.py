"""Project counters kept by the writes (``status`` and the desk read a few rows, not every
case), backfilled from the rows, and an index of rated work by state and last edit (the
desk's stuck work); on PostgreSQL seniors read the counters (row-level security) and
every app role changes them only through ``annotator_count_add``. See store/counts.py.

Revision ID: 0018_counts
Revises: 0017_queue_pages
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0018_counts"
down_revision = "0017_queue_pages"
branch_labels = None
depends_on = None

_DEFINER = "SECURITY DEFINER SET search_path = public, pg_temp"
# Adds deltas[i] to keys[i], in the order given (the app sorts them: no deadlock between two
# writers). SECURITY DEFINER: the app roles hold no write grant on the table.
_ADD = (
    "CREATE FUNCTION annotator_count_add(keys text[], deltas bigint[]) RETURNS void"
    f" LANGUAGE plpgsql VOLATILE {_DEFINER} AS $$ BEGIN"
    " FOR i IN 1 .. coalesce(array_length(keys, 1), 0) LOOP"
    "  INSERT INTO project_counts (key, n) VALUES (keys[i], deltas[i])"
    "  ON CONFLICT (key) DO UPDATE SET n = project_counts.n + EXCLUDED.n;"
    " END LOOP; END $$"
)


# Project-wide counts (cases per state, exams, images, work per state) are every role's to
# read, as `status` shows them to anyone on the store; per-rater and per-day counts are the
# seniors' (the desk), so an annotator cannot read a colleague's pace.
_PROJECT_WIDE = "(key NOT LIKE 'rater:%' AND key NOT LIKE 'day:%')"


def upgrade() -> None:
    op.create_table(
        "project_counts",
        sa.Column("key", sa.String(length=200), nullable=False),
        sa.Column("n", sa.BigInteger(), nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("key", name=op.f("pk_project_counts")),
    )
    op.create_index("ix_rated_work_state_updated_at", "rated_work", ["state", "updated_at"])
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql(_ADD)
        app = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one() + "_app"
        reader = "(SELECT annotator_is('curator')) OR (SELECT annotator_is('adjudicator'))"
        for statement in (
            f'GRANT SELECT ON project_counts TO "{app}"',
            "ALTER TABLE project_counts ENABLE ROW LEVEL SECURITY",
            f'CREATE POLICY annotator_select_0 ON project_counts FOR SELECT TO "{app}"'
            f" USING ({reader} OR {_PROJECT_WIDE})",
            "REVOKE EXECUTE ON FUNCTION annotator_count_add(text[], bigint[]) FROM PUBLIC",
            f'GRANT EXECUTE ON FUNCTION annotator_count_add(text[], bigint[]) TO "{app}"',
        ):
            # psycopg reads % as a placeholder even without parameters (as in 0013_rls).
            bind.exec_driver_sql(statement.replace("%", "%%"))
    # The counters as the rows stand (the app's own recount: the same keys it keeps).
    from annotator.store import counts

    counts.apply(bind, counts.recount(bind))


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":
        bind.exec_driver_sql("DROP FUNCTION IF EXISTS annotator_count_add(text[], bigint[])")
    op.drop_table("project_counts")
    op.drop_index("ix_rated_work_state_updated_at", table_name="rated_work")
