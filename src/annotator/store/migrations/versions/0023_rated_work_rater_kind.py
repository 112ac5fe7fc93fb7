"""Index rated work by (rater, kind) and (repeat_of, kind) (issue 27): a rater's case list and
its repeats were searched by kind alone on SQLite, reading every rater's rows, so the list
grew with the project instead of with the rater's own cases.

Revision ID: 0023_rated_work_rater_kind
Revises: 0022_own_case
"""

from __future__ import annotations

from alembic import op

revision = "0023_rated_work_rater_kind"
down_revision = "0022_own_case"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_rated_work_rater_kind", "rated_work", ["rater_id", "kind"])
    op.create_index("ix_rated_work_repeat_of_kind", "rated_work", ["repeat_of", "kind"])


def downgrade() -> None:
    op.drop_index("ix_rated_work_repeat_of_kind", table_name="rated_work")
    op.drop_index("ix_rated_work_rater_kind", table_name="rated_work")
