"""meta-review: detections, reviewer letters, adjudicator assignment"""

from annotator.store.migrations._ops import drop_table, table

revision = "0003"
down_revision = "0002"


def upgrade() -> None:
    table(
        "detected_items",
        "id uuid, case_pk uuid, key s300, family s30, kind s20, disagreement s80?,"
        " by_letter json, fingerprint s64, detected_at time, superseded bool",
        checks={"kind": "kind IN ('conflict', 'auto_resolved')"}, fks="case_pk>cases",
        index="case_pk",
    )
    table(
        "review_records",
        "case_pk uuid, fingerprint s64, detected_at time, adjudicator s200?, version int",
        pk="case_pk", fks="case_pk>cases",
    )
    table(
        "reviewer_letters", "case_pk uuid, annotator_id uuid, letter s2, assigned_at time",
        pk="case_pk annotator_id", fks="annotator_id>users case_pk>cases",
        unique={"case_letter": "case_pk letter"},
    )


def downgrade() -> None:
    drop_table("reviewer_letters")
    drop_table("review_records")
    drop_table("detected_items", "case_pk")
