"""offline round trip: bundles written and packages imported"""

from annotator.store.migrations._ops import drop_table, table

revision = "0002"
down_revision = "0001"
PACKAGE_INDEX = "annotator_id source_id"


def upgrade() -> None:
    table(
        "sync_bundles",
        "id uuid, annotator_id uuid, created_at time, created_by s200, case_ids json",
        fks="annotator_id>users", index="annotator_id",
    )
    table(
        "sync_packages",
        "id uuid, source_id uuid, sequence int, bundle_id uuid?, annotator_id uuid,"
        " created_at time, imported_at time, imported_by s200, checksum s64, outcome json",
        checks={"sequence": "sequence >= 1"}, fks="annotator_id>users", index=PACKAGE_INDEX,
    )


def downgrade() -> None:
    drop_table("sync_packages", PACKAGE_INDEX)
    drop_table("sync_bundles", "annotator_id")
