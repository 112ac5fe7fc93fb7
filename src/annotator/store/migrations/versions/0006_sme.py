"""SME review: benchmark specifications, review items, tasks, verdicts, adjudications"""

from __future__ import annotations

from alembic import op

from annotator.store.migrations._ops import table

revision = "0006_sme"
down_revision = "0005_logins"


def upgrade() -> None:
    table(
        "sme_benchmarks",
        "id uuid, code s100!, parent_rubric s100, evaluator_type s20, version int,"
        " content json, content_hash s64, source_file text, imported_at time, imported_by s200",
        index="parent_rubric",
    )
    table(
        "sme_items",
        "id uuid, item_id s200!, case_ref s200?, position int, test_case json,"
        " ground_truth json?, output json, system s200, content_hash s64, source_file text,"
        " imported_at time, imported_by s200",
    )
    table(
        "sme_tasks", "id uuid, item_pk uuid, benchmark_id uuid, automated json?",
        fks="item_pk>sme_items benchmark_id>sme_benchmarks",
        unique={"item_benchmark": "item_pk benchmark_id"}, index="item_pk benchmark_id",
    )
    table(
        "sme_verdicts",
        "id uuid, task_id uuid, reviewer_id uuid, state s20, fields json, submitted json?,"
        " submitted_at time?, needs_recheck bool, benchmark_version int, created_at time,"
        " updated_at time, version int",
        checks={"state": "state IN ('assigned', 'in_progress', 'submitted')"},
        fks="task_id>sme_tasks reviewer_id>users",
        unique={"task_reviewer": "task_id reviewer_id"}, index="task_id reviewer_id",
    )
    table(
        "sme_adjudications",
        "id uuid, task_id uuid, key s50, value json?, reason text, adjudicator s200,"
        " decided_at time, superseded bool",
        checks={"reason": "length(reason) > 0"}, fks="task_id>sme_tasks", index="task_id",
    )


def downgrade() -> None:
    for name in ("sme_adjudications", "sme_verdicts", "sme_tasks", "sme_items", "sme_benchmarks"):
        op.drop_table(name)
