"""Physicians' quality: hidden repeats of rated work, calibration and gold items (issue 26)

Revision ID: 0011_quality
Revises: 0010_burned_text
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_quality"
down_revision = "0010_burned_text"
branch_labels = None
depends_on = None

_UNIQUE = (("case_pk", "case_rater"), ("task_id", "task_rater"), ("item_id", "item_rater"))


def upgrade() -> None:
    with op.batch_alter_table("rated_work") as batch:
        batch.add_column(sa.Column("repeat_of", sa.Uuid(), nullable=True))
        batch.add_column(
            sa.Column("repeat_no", sa.Integer(), nullable=False, server_default="0")
        )
        batch.add_column(sa.Column("due_at", sa.DateTime(), nullable=True))
        batch.add_column(sa.Column("active_seconds", sa.Float(), nullable=True))
        batch.create_foreign_key(
            "fk_rated_work_repeat_of_rated_work", "rated_work", ["repeat_of"], ["id"]
        )
        batch.create_index(batch.f("ix_rated_work_repeat_of"), ["repeat_of"])
        for column, name in _UNIQUE:
            batch.drop_constraint(name, type_="unique")
            batch.create_unique_constraint(name, [column, "rater_id", "repeat_no"])
    op.create_table(
        "quality_items",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("kind", sa.String(length=10), nullable=False),
        sa.Column("item_ref", sa.String(length=300), nullable=False),
        sa.Column("purpose", sa.String(length=12), nullable=False),
        sa.Column("reference", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.CheckConstraint("kind IN ('case', 'sme', 'judge')", name=op.f("ck_quality_items_kind")),
        sa.CheckConstraint("purpose IN ('calibration', 'gold')",
                           name=op.f("ck_quality_items_purpose")),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_quality_items")),
        sa.UniqueConstraint("kind", "item_ref", "purpose", name="kind_item_purpose"),
    )


def downgrade() -> None:
    op.drop_table("quality_items")
    op.execute("DELETE FROM rated_work WHERE repeat_of IS NOT NULL")
    with op.batch_alter_table("rated_work") as batch:
        for column, name in _UNIQUE:
            batch.drop_constraint(name, type_="unique")
            batch.create_unique_constraint(name, [column, "rater_id"])
        batch.drop_index(batch.f("ix_rated_work_repeat_of"))
        batch.drop_constraint("fk_rated_work_repeat_of_rated_work", type_="foreignkey")
        batch.drop_column("active_seconds")
        batch.drop_column("due_at")
        batch.drop_column("repeat_no")
        batch.drop_column("repeat_of")
