"""Index decisions by (kind, superseded) (issue 27): the judge's open conflicts read the
standing judge decisions by kind, and with no index on it SQLite scanned every decision of
every case (85,900 at the bench's 100,000 cases: 15 ms of the desk, for no judged output).

Revision ID: 0028_decision_kind
Revises: 0027_my_case_work
"""

from __future__ import annotations

from alembic import op

revision = "0028_decision_kind"
down_revision = "0027_my_case_work"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_decisions_kind_superseded", "decisions", ["kind", "superseded"])


def downgrade() -> None:
    op.drop_index("ix_decisions_kind_superseded", table_name="decisions")
