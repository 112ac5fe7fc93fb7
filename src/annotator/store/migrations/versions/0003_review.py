"""meta-review: detections, reviewer letters, adjudicator assignment

Revision ID: 0003
Revises: 0002
"""

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "detected_items",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("case_pk", sa.Uuid(), nullable=False),
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("family", sa.String(length=30), nullable=False),
        sa.Column("kind", sa.String(length=20), nullable=False),
        sa.Column("disagreement", sa.String(length=80), nullable=True),
        sa.Column("by_letter", sa.JSON(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("detected_at", sa.DateTime(), nullable=False),
        sa.Column("superseded", sa.Boolean(), nullable=False),
        sa.CheckConstraint(
            "kind IN ('conflict', 'auto_resolved')", name=op.f("ck_detected_items_kind")
        ),
        sa.ForeignKeyConstraint(
            ["case_pk"], ["cases.id"], name=op.f("fk_detected_items_case_pk_cases")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_detected_items")),
    )
    with op.batch_alter_table("detected_items", schema=None) as batch_op:
        batch_op.create_index(batch_op.f("ix_detected_items_case_pk"), ["case_pk"], unique=False)

    op.create_table(
        "review_records",
        sa.Column("case_pk", sa.Uuid(), nullable=False),
        sa.Column("fingerprint", sa.String(length=64), nullable=False),
        sa.Column("detected_at", sa.DateTime(), nullable=False),
        sa.Column("adjudicator", sa.String(length=200), nullable=True),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.ForeignKeyConstraint(
            ["case_pk"], ["cases.id"], name=op.f("fk_review_records_case_pk_cases")
        ),
        sa.PrimaryKeyConstraint("case_pk", name=op.f("pk_review_records")),
    )
    op.create_table(
        "reviewer_letters",
        sa.Column("case_pk", sa.Uuid(), nullable=False),
        sa.Column("annotator_id", sa.Uuid(), nullable=False),
        sa.Column("letter", sa.String(length=2), nullable=False),
        sa.Column("assigned_at", sa.DateTime(), nullable=False),
        sa.ForeignKeyConstraint(
            ["annotator_id"], ["users.id"], name=op.f("fk_reviewer_letters_annotator_id_users")
        ),
        sa.ForeignKeyConstraint(
            ["case_pk"], ["cases.id"], name=op.f("fk_reviewer_letters_case_pk_cases")
        ),
        sa.PrimaryKeyConstraint("case_pk", "annotator_id", name=op.f("pk_reviewer_letters")),
        sa.UniqueConstraint("case_pk", "letter", name="case_letter"),
    )


def downgrade() -> None:
    op.drop_table("reviewer_letters")
    op.drop_table("review_records")
    with op.batch_alter_table("detected_items", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_detected_items_case_pk"))
    op.drop_table("detected_items")
