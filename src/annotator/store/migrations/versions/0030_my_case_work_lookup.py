"""``annotator_my_case_work`` looks each case up by its key instead of joining every case
(issue 27, PostgreSQL only).

With planner statistics PostgreSQL joined the caller's 1,000 case assignments to ``cases``
by hashing the whole table: a sequential scan of 100,000 cases, 14-16 ms of the case list's
"nothing changed" check at the bench's 100,000 cases against 2 ms at 1,000. The case's
version is read by a lookup per assignment (its primary key): 3.6-4 ms at 100,000 cases,
2.1-2.4 ms at 1,000. The view's columns, owner, barrier and grants stay as 0027 made them.

Revision ID: 0030_my_case_work_lookup
Revises: 0029_decision_kind_case
"""

from __future__ import annotations

from alembic import op

revision = "0030_my_case_work_lookup"
down_revision = "0029_decision_kind_case"
branch_labels = None
depends_on = None

VIEW = "annotator_my_case_work"
_MINE = (" WHERE w.rater_id = (SELECT annotator_me()) AND w.kind = 'case'"
         " AND w.withdrawn_at IS NULL")
LOOKUP = (
    f"CREATE OR REPLACE VIEW {VIEW} WITH (security_barrier) AS"
    " SELECT w.version, w.updated_at, w.created_at, w.repeat_of, w.due_at,"
    " (SELECT c.version FROM cases c WHERE c.id = w.case_pk) AS case_version"
    " FROM rated_work w" + _MINE + " AND w.case_pk IS NOT NULL"
)
JOINED = (  # 0027's
    f"CREATE OR REPLACE VIEW {VIEW} WITH (security_barrier) AS"
    " SELECT w.version, w.updated_at, w.created_at, w.repeat_of, w.due_at,"
    " c.version AS case_version"
    " FROM rated_work w JOIN cases c ON c.id = w.case_pk" + _MINE
)


def _replace(definition: str) -> None:
    bind = op.get_bind()
    if bind.dialect.name == "postgresql":  # SQLite stores have no such view
        bind.exec_driver_sql(definition)


def upgrade() -> None:
    _replace(LOOKUP)


def downgrade() -> None:
    _replace(JOINED)
