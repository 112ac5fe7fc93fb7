"""Burned-in text: the pixel check of each stored image and the curators' reviews

Revision ID: 0010_burned_text
Revises: 0009_sme_item_run
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0010_burned_text"
down_revision = "0009_sme_item_run"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "image_text_checks",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sa.Column("reasons", sa.JSON(), nullable=False),
        sa.Column("boxes", sa.JSON(), nullable=False),
        sa.Column("checker", sa.String(length=100), nullable=False),
        sa.Column("checked_at", sa.DateTime(), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_image_text_checks")),
    )
    op.create_table(
        "image_reviews",
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("outcome", sa.String(length=20), nullable=False),
        sa.Column("stored_sha256", sa.String(length=64), nullable=False),
        sa.Column("boxes", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("reviewed_by", sa.String(length=200), nullable=False),
        sa.Column("reviewed_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("outcome IN ('redacted', 'no_phi')",
                           name=op.f("ck_image_reviews_outcome")),
        sa.PrimaryKeyConstraint("sha256", name=op.f("pk_image_reviews")),
    )
    with op.batch_alter_table("image_reviews") as batch_op:
        batch_op.create_index(batch_op.f("ix_image_reviews_stored_sha256"), ["stored_sha256"])


def downgrade() -> None:
    op.drop_table("image_reviews")
    op.drop_table("image_text_checks")
