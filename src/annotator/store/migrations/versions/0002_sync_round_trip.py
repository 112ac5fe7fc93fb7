"""offline round trip: bundles written and packages imported

Revision ID: 0002
Revises: 0001
"""

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "sync_bundles",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("annotator_id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("created_by", sa.String(length=200), nullable=False),
        sa.Column("case_ids", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["annotator_id"], ["users.id"], name=op.f("fk_sync_bundles_annotator_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sync_bundles")),
    )
    with op.batch_alter_table("sync_bundles", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_sync_bundles_annotator_id"), ["annotator_id"], unique=False
        )

    op.create_table(
        "sync_packages",
        sa.Column("id", sa.Uuid(), nullable=False),
        sa.Column("source_id", sa.Uuid(), nullable=False),
        sa.Column("sequence", sa.Integer(), nullable=False),
        sa.Column("bundle_id", sa.Uuid(), nullable=True),
        sa.Column("annotator_id", sa.Uuid(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
        sa.Column("imported_by", sa.String(length=200), nullable=False),
        sa.Column("checksum", sa.String(length=64), nullable=False),
        sa.Column("outcome", sa.JSON(), nullable=False),
        sa.CheckConstraint("sequence >= 1", name=op.f("ck_sync_packages_sequence")),
        sa.ForeignKeyConstraint(
            ["annotator_id"], ["users.id"], name=op.f("fk_sync_packages_annotator_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sync_packages")),
    )
    with op.batch_alter_table("sync_packages", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_sync_packages_annotator_id"), ["annotator_id"], unique=False
        )
        batch_op.create_index(batch_op.f("ix_sync_packages_source_id"), ["source_id"], unique=False)


def downgrade() -> None:
    with op.batch_alter_table("sync_packages", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sync_packages_source_id"))
        batch_op.drop_index(batch_op.f("ix_sync_packages_annotator_id"))
    op.drop_table("sync_packages")
    with op.batch_alter_table("sync_bundles", schema=None) as batch_op:
        batch_op.drop_index(batch_op.f("ix_sync_bundles_annotator_id"))
    op.drop_table("sync_bundles")
