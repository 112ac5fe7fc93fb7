"""SME items carry the run of a repeated system output (worst-of-K, seed 002 section 3)

Revision ID: 0009_sme_item_run
Revises: 0008_history_chain
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_sme_item_run"
down_revision = "0008_history_chain"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("sme_items") as batch:
        batch.add_column(sa.Column("run", sa.Integer(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("sme_items") as batch:
        batch.drop_column("run")
