"""initial schema

Also makes the history table append-only with triggers on both back ends.
"""

from alembic import op

from annotator.store.migrations._ops import drop_table, table

revision = "0001"
down_revision = None
HISTORY_INDEX = "annotation_id at case_pk"
REVISION_INDEX = "case_pk content_hash"
ANNOTATION_INDEX = "annotator_id case_pk"


def upgrade() -> None:
    table(
        "cases",
        "id uuid, case_id s200!, state s20, state_reason text?, current_revision_id uuid?,"
        " green_lit_by s200?, green_lit_at time?, created_at time, updated_at time, version int",
        checks={"state": "state IN ('annotating', 'in_review', 'green_lit', 'excluded')"},
    )
    table(
        "history",
        "id uuid, at time, actor s200, action s50, case_pk uuid?, annotation_id uuid?,"
        " key s300?, before json?, after json?, detail json",
        index=HISTORY_INDEX,
    )
    table("image_blobs", "sha256 s64, size int, media_type s50, data blob?", pk="sha256")
    table("settings", "key s100, value json", pk="key")
    table("users", "id uuid, name s200!, created_at time, version int")
    table(
        "adjudications",
        "id uuid, case_pk uuid, key s300, value json?, reason_code s50, reason_text text,"
        " adjudicator s200, decided_at time, superseded bool",
        fks="case_pk>cases", index="case_pk",
    )
    table(
        "case_revisions",
        "id uuid, case_pk uuid, number int, content_hash s64, content json,"
        " original_values json, problems json, warnings json, source_file text,"
        " imported_at time, imported_by s200",
        fks="case_pk>cases", unique={"case_number": "case_pk number"}, index=REVISION_INDEX,
    )
    table(
        "user_roles", "user_id uuid, role s20", pk="user_id role", fks="user_id>users",
        checks={"role": "role IN ('annotator', 'adjudicator', 'curator')"},
    )
    table(
        "annotations",
        "id uuid, case_pk uuid, annotator_id uuid, revision_id uuid, state s20, labels json,"
        " submitted_labels json?, submitted_at time?, needs_recheck bool, withdrawn_at time?,"
        " created_at time, updated_at time, version int",
        checks={"state": "state IN ('assigned', 'in_progress', 'submitted')"},
        fks="annotator_id>users case_pk>cases revision_id>case_revisions",
        unique={"case_annotator": "case_pk annotator_id"}, index=ANNOTATION_INDEX,
    )
    table(
        "case_images",
        "id uuid, revision_id uuid, draft_path text, sha256 s64, media_type s50, width int,"
        " height int, frames int, figures json, name text?, caption text?, attribution json,"
        " removed json, dicom_header json",
        fks="revision_id>case_revisions sha256>image_blobs.sha256",
        unique={"revision_path": "revision_id draft_path"}, index="revision_id",
    )
    _history_append_only()


def _history_append_only() -> None:
    """Refuse UPDATE and DELETE on history: it is the attributed record of every edit."""
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(
                f"CREATE TRIGGER history_no_{verb.lower()} BEFORE {verb} ON history "
                "BEGIN SELECT RAISE(ABORT, 'history is append-only'); END"
            )
    else:
        op.execute(
            "CREATE FUNCTION history_append_only() RETURNS trigger AS $$ BEGIN "
            "RAISE EXCEPTION 'history is append-only'; END; $$ LANGUAGE plpgsql"
        )
        op.execute(
            "CREATE TRIGGER history_append_only BEFORE UPDATE OR DELETE ON history "
            "FOR EACH ROW EXECUTE FUNCTION history_append_only()"
        )


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        op.execute("DROP TRIGGER IF EXISTS history_no_update")
        op.execute("DROP TRIGGER IF EXISTS history_no_delete")
    else:
        op.execute("DROP TRIGGER IF EXISTS history_append_only ON history")
        op.execute("DROP FUNCTION IF EXISTS history_append_only()")
    drop_table("case_images", "revision_id")
    drop_table("annotations", ANNOTATION_INDEX)
    drop_table("user_roles")
    drop_table("case_revisions", REVISION_INDEX)
    drop_table("adjudications", "case_pk")
    for name in ("users", "settings", "image_blobs"):
        drop_table(name)
    drop_table("history", HISTORY_INDEX)
    drop_table("cases")
