"""SME review: benchmark specifications, review items, tasks, verdicts, adjudications

Revision ID: 0006_sme
Revises: 0005_logins
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_sme"
down_revision = "0005_logins"
branch_labels = None
depends_on = None


def _id() -> sa.Column:
    return sa.Column("id", sa.Uuid(), nullable=False)


def _task_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["task_id"], ["sme_tasks.id"], name=op.f(f"fk_{table}_task_id_sme_tasks")
    )


def upgrade() -> None:
    op.create_table(
        "sme_benchmarks",
        _id(),
        sa.Column("code", sa.String(length=100), nullable=False),
        sa.Column("parent_rubric", sa.String(length=100), nullable=False),
        sa.Column("evaluator_type", sa.String(length=20), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("content", sa.JSON(), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("source_file", sa.Text(), nullable=False),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
        sa.Column("imported_by", sa.String(length=200), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sme_benchmarks")),
        sa.UniqueConstraint("code", name=op.f("uq_sme_benchmarks_code")),
    )
    with op.batch_alter_table("sme_benchmarks") as batch_op:
        batch_op.create_index(batch_op.f("ix_sme_benchmarks_parent_rubric"), ["parent_rubric"])
    op.create_table(
        "sme_items",
        _id(),
        sa.Column("item_id", sa.String(length=200), nullable=False),
        sa.Column("case_ref", sa.String(length=200), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("test_case", sa.JSON(), nullable=False),
        sa.Column("ground_truth", sa.JSON(), nullable=True),
        sa.Column("output", sa.JSON(), nullable=False),
        sa.Column("system", sa.String(length=200), nullable=False),
        sa.Column("content_hash", sa.String(length=64), nullable=False),
        sa.Column("source_file", sa.Text(), nullable=False),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
        sa.Column("imported_by", sa.String(length=200), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sme_items")),
        sa.UniqueConstraint("item_id", name=op.f("uq_sme_items_item_id")),
    )
    op.create_table(
        "sme_tasks",
        _id(),
        sa.Column("item_pk", sa.Uuid(), nullable=False),
        sa.Column("benchmark_id", sa.Uuid(), nullable=False),
        sa.Column("automated", sa.JSON(), nullable=True),
        sa.ForeignKeyConstraint(
            ["item_pk"], ["sme_items.id"], name=op.f("fk_sme_tasks_item_pk_sme_items")
        ),
        sa.ForeignKeyConstraint(
            ["benchmark_id"],
            ["sme_benchmarks.id"],
            name=op.f("fk_sme_tasks_benchmark_id_sme_benchmarks"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sme_tasks")),
        sa.UniqueConstraint("item_pk", "benchmark_id", name="item_benchmark"),
    )
    with op.batch_alter_table("sme_tasks") as batch_op:
        batch_op.create_index(batch_op.f("ix_sme_tasks_item_pk"), ["item_pk"])
        batch_op.create_index(batch_op.f("ix_sme_tasks_benchmark_id"), ["benchmark_id"])
    op.create_table(
        "sme_verdicts",
        _id(),
        sa.Column("task_id", sa.Uuid(), nullable=False),
        sa.Column("reviewer_id", sa.Uuid(), nullable=False),
        sa.Column("state", sa.String(length=20), nullable=False),
        sa.Column("fields", sa.JSON(), nullable=False),
        sa.Column("submitted", sa.JSON(), nullable=True),
        sa.Column("submitted_at", sa.DateTime(), nullable=True),
        sa.Column("needs_recheck", sa.Boolean(), nullable=False),
        sa.Column("benchmark_version", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("updated_at", sa.DateTime(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.CheckConstraint(
            "state IN ('assigned', 'in_progress', 'submitted')",
            name=op.f("ck_sme_verdicts_state"),
        ),
        _task_fk("sme_verdicts"),
        sa.ForeignKeyConstraint(
            ["reviewer_id"], ["users.id"], name=op.f("fk_sme_verdicts_reviewer_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sme_verdicts")),
        sa.UniqueConstraint("task_id", "reviewer_id", name="task_reviewer"),
    )
    with op.batch_alter_table("sme_verdicts") as batch_op:
        batch_op.create_index(batch_op.f("ix_sme_verdicts_task_id"), ["task_id"])
        batch_op.create_index(batch_op.f("ix_sme_verdicts_reviewer_id"), ["reviewer_id"])
    op.create_table(
        "sme_adjudications",
        _id(),
        sa.Column("task_id", sa.Uuid(), nullable=False),
        sa.Column("key", sa.String(length=50), nullable=False),
        sa.Column("value", sa.JSON(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("adjudicator", sa.String(length=200), nullable=False),
        sa.Column("decided_at", sa.DateTime(), nullable=False),
        sa.Column("superseded", sa.Boolean(), nullable=False),
        sa.CheckConstraint("length(reason) > 0", name=op.f("ck_sme_adjudications_reason")),
        _task_fk("sme_adjudications"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_sme_adjudications")),
    )
    with op.batch_alter_table("sme_adjudications") as batch_op:
        batch_op.create_index(batch_op.f("ix_sme_adjudications_task_id"), ["task_id"])


def downgrade() -> None:
    op.drop_table("sme_adjudications")
    op.drop_table("sme_verdicts")
    op.drop_table("sme_tasks")
    op.drop_table("sme_items")
    op.drop_table("sme_benchmarks")
