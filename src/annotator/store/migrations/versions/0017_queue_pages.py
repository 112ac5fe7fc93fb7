"""The review queue's green-lit and excluded cases read a page at a time in case id order:
an index on (state, case_id)

Revision ID: 0017_queue_pages
Revises: 0016_chain_head
"""

from __future__ import annotations

from alembic import op

revision = "0017_queue_pages"
down_revision = "0016_chain_head"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index("ix_cases_state_case_id", "cases", ["state", "case_id"])


def downgrade() -> None:
    op.drop_index("ix_cases_state_case_id", table_name="cases")
