"""The desk's active time per annotator kept by the writes (issue 27)

The desk's median time per case read every submitted annotation's labels (100,000 cases:
1.9 s). The counters of :mod:`annotator.store.counts` gain ``active:<user id>:<seconds>``,
each annotator's submitted cases by their active time to the nearest 6 seconds (the desk
shows tenths of a minute), about a hundred rows per annotator: the median is read from
those. Backfilled from the rows as they stand.
On PostgreSQL they are the seniors' to read, like the per-rater and per-day counters
(0018_counts): an annotator cannot read a colleague's pace.

Revision ID: 0024_active_time
Revises: 0023_rated_work_rater_kind
"""

from __future__ import annotations

from alembic import op

revision = "0024_active_time"
down_revision = "0023_rated_work_rater_kind"
branch_labels = None
depends_on = None

_READER = "(SELECT annotator_is('curator')) OR (SELECT annotator_is('adjudicator'))"
_WIDE_0018 = "(key NOT LIKE 'rater:%' AND key NOT LIKE 'day:%')"
_WIDE = "(key NOT LIKE 'rater:%' AND key NOT LIKE 'day:%' AND key NOT LIKE 'active:%')"


def _policy(project_wide: str) -> None:
    bind = op.get_bind()
    if bind.dialect.name != "postgresql":
        return
    app = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one() + "_app"
    app = '"' + app.replace('"', '""') + '"'
    bind.exec_driver_sql("DROP POLICY IF EXISTS annotator_select_0 ON project_counts")
    # psycopg reads % as a placeholder even without parameters (as in 0013_rls).
    bind.exec_driver_sql(
        (f"CREATE POLICY annotator_select_0 ON project_counts FOR SELECT TO {app}"
         f" USING ({_READER} OR {project_wide})").replace("%", "%%"))


def upgrade() -> None:
    _policy(_WIDE)
    from annotator.store import counts

    bind = op.get_bind()
    counts.apply(bind, {k: n for k, n in counts.recount(bind).items()
                        if k.startswith("active:")})


def downgrade() -> None:
    op.execute("DELETE FROM project_counts WHERE key LIKE 'active:%'")
    _policy(_WIDE_0018)
