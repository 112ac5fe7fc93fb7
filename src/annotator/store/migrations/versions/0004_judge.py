"""human reference scoring of the scoring core's judges (judged runs, items, scores)

Revision ID: 0004_judge
Revises: 0003
"""

import sqlalchemy as sa
from alembic import op

revision = "0004_judge"
down_revision = "0003"
branch_labels = None
depends_on = None


def _id() -> sa.Column:
    return sa.Column("id", sa.Uuid(), nullable=False)


def _item_fk(table: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        ["item_id"], ["judge_items.id"], name=op.f(f"fk_{table}_item_id_judge_items")
    )


def upgrade() -> None:
    op.create_table(
        "judged_runs",
        _id(),
        sa.Column("run_hash", sa.String(length=64), nullable=False),
        sa.Column("target_model", sa.String(length=200), nullable=False),
        sa.Column("judge_model", sa.String(length=200), nullable=False),
        sa.Column("modes", sa.JSON(), nullable=False),
        sa.Column("code_version", sa.JSON(), nullable=False),
        sa.Column("missing", sa.JSON(), nullable=False),
        sa.Column("source_file", sa.Text(), nullable=False),
        sa.Column("imported_at", sa.DateTime(), nullable=False),
        sa.Column("imported_by", sa.String(length=200), nullable=False),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judged_runs")),
        sa.UniqueConstraint("run_hash", name=op.f("uq_judged_runs_run_hash")),
    )
    with op.batch_alter_table("judged_runs") as batch_op:
        batch_op.create_index(batch_op.f("ix_judged_runs_target_model"), ["target_model"])
    op.create_table(
        "judge_items",
        _id(),
        sa.Column("run_id", sa.Uuid(), nullable=False),
        sa.Column("case_id", sa.String(length=200), nullable=False),
        sa.Column("case_pk", sa.Uuid(), nullable=True),
        sa.Column("position", sa.Integer(), nullable=False),
        sa.Column("case_payload", sa.JSON(), nullable=False),
        sa.Column("model_payload", sa.JSON(), nullable=False),
        sa.ForeignKeyConstraint(
            ["run_id"], ["judged_runs.id"], name=op.f("fk_judge_items_run_id_judged_runs")
        ),
        sa.ForeignKeyConstraint(
            ["case_pk"], ["cases.id"], name=op.f("fk_judge_items_case_pk_cases")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judge_items")),
        sa.UniqueConstraint("run_id", "case_id", name="run_case"),
    )
    with op.batch_alter_table("judge_items") as batch_op:
        batch_op.create_index(batch_op.f("ix_judge_items_run_id"), ["run_id"])
    op.create_table(
        "judge_mode_scores",
        sa.Column("item_id", sa.Uuid(), nullable=False),
        sa.Column("mode", sa.String(length=50), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("reasons", sa.JSON(), nullable=False),
        _item_fk("judge_mode_scores"),
        sa.PrimaryKeyConstraint("item_id", "mode", name=op.f("pk_judge_mode_scores")),
    )
    op.create_table(
        "physician_scores",
        _id(),
        sa.Column("item_id", sa.Uuid(), nullable=False),
        sa.Column("scorer_id", sa.Uuid(), nullable=False),
        sa.Column("scores", sa.JSON(), nullable=False),
        sa.Column("submitted_at", sa.DateTime(), nullable=True),
        sa.Column("source", sa.String(length=20), nullable=False),
        sa.Column("created_at", sa.DateTime(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        _item_fk("physician_scores"),
        sa.ForeignKeyConstraint(
            ["scorer_id"], ["users.id"], name=op.f("fk_physician_scores_scorer_id_users")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_physician_scores")),
        sa.UniqueConstraint("item_id", "scorer_id", name="item_scorer"),
    )
    with op.batch_alter_table("physician_scores") as batch_op:
        batch_op.create_index(batch_op.f("ix_physician_scores_item_id"), ["item_id"])
        batch_op.create_index(batch_op.f("ix_physician_scores_scorer_id"), ["scorer_id"])
    op.create_table(
        "judge_adjudications",
        _id(),
        sa.Column("item_id", sa.Uuid(), nullable=False),
        sa.Column("key", sa.String(length=300), nullable=False),
        sa.Column("value", sa.JSON(), nullable=True),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("adjudicator", sa.String(length=200), nullable=False),
        sa.Column("decided_at", sa.DateTime(), nullable=False),
        sa.Column("superseded", sa.Boolean(), nullable=False),
        _item_fk("judge_adjudications"),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_judge_adjudications")),
    )
    with op.batch_alter_table("judge_adjudications") as batch_op:
        batch_op.create_index(batch_op.f("ix_judge_adjudications_item_id"), ["item_id"])


def downgrade() -> None:
    op.drop_table("judge_adjudications")
    op.drop_table("physician_scores")
    op.drop_table("judge_mode_scores")
    op.drop_table("judge_items")
    op.drop_table("judged_runs")
