"""human reference scoring of the scoring core's judges (judged runs, items, scores)"""

from alembic import op

from annotator.store.migrations._ops import table

revision = "0004_judge"
down_revision = "0003"


def upgrade() -> None:
    table(
        "judged_runs",
        "id uuid, run_hash s64!, target_model s200, judge_model s200, modes json,"
        " code_version json, missing json, source_file text, imported_at time, imported_by s200",
        index="target_model",
    )
    table(
        "judge_items",
        "id uuid, run_id uuid, case_id s200, case_pk uuid?, position int, case_payload json,"
        " model_payload json",
        fks="run_id>judged_runs case_pk>cases", unique={"run_case": "run_id case_id"},
        index="run_id",
    )
    table(
        "judge_mode_scores", "item_id uuid, mode s50, scores json, reasons json",
        pk="item_id mode", fks="item_id>judge_items",
    )
    table(
        "physician_scores",
        "id uuid, item_id uuid, scorer_id uuid, scores json, submitted_at time?, source s20,"
        " created_at time, version int",
        fks="item_id>judge_items scorer_id>users", unique={"item_scorer": "item_id scorer_id"},
        index="item_id scorer_id",
    )
    table(
        "judge_adjudications",
        "id uuid, item_id uuid, key s300, value json?, reason text, adjudicator s200,"
        " decided_at time, superseded bool",
        fks="item_id>judge_items", index="item_id",
    )


def downgrade() -> None:
    for name in (
        "judge_adjudications", "physician_scores", "judge_mode_scores", "judge_items",
        "judged_runs",
    ):
        op.drop_table(name)
