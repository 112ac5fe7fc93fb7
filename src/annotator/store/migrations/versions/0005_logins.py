"""Logins for the team store: a salted scrypt password hash per user (nullable).

Revision ID: 0005_logins
Revises: 0004_judge
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_logins"
down_revision = "0004_judge"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch_op:
        batch_op.add_column(sa.Column("password_hash", sa.String(length=300), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("users") as batch_op:
        batch_op.drop_column("password_hash")
