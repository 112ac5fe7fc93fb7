"""A leaner store (issue 27: under 5 GB at 100,000 cases): images name their notes, and the
indexes nothing needs are dropped.

- ``image_notes`` keeps an image's attribution, what de-identification removed and its DICOM
  header once for every image that shares them; ``case_images.notes_digest`` names them
  (store/image_notes.py). They were a third of ``case_images``' bytes, repeated per image.
- History is read by case and the chain by seq: the indexes on ``at`` and ``annotation_id``
  went unused (the two queries by annotation now also name its case).
- An index on a column that already begins a unique constraint or another index only takes
  space: rated work's rater, repeat_of, case, task and item; an image's revision; a
  revision's case; a case's state; an SME task's item.

On PostgreSQL the notes are readable by every app role and written by curators (like the
pixel check's boxes): they say nothing of anyone's work, and which case holds them is in
``case_images``, behind its policy.

Revision ID: 0026_lean_store
Revises: 0025_sme_task_keys
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import sqlalchemy as sa
from alembic import op

from annotator.store.migrations._ops import table

revision = "0026_lean_store"
down_revision = "0025_sme_task_keys"
branch_labels = None
depends_on = None

# (index, table, columns): dropped on upgrade, made again on downgrade.
UNNEEDED = [
    ("ix_history_at", "history", ["at"]),
    ("ix_history_annotation_id", "history", ["annotation_id"]),
    ("ix_rated_work_rater_id", "rated_work", ["rater_id"]),
    ("ix_rated_work_repeat_of", "rated_work", ["repeat_of"]),
    ("ix_rated_work_case_pk", "rated_work", ["case_pk"]),
    ("ix_rated_work_task_id", "rated_work", ["task_id"]),
    ("ix_rated_work_item_id", "rated_work", ["item_id"]),
    ("ix_case_images_revision_id", "case_images", ["revision_id"]),
    ("ix_case_revisions_case_pk", "case_revisions", ["case_pk"]),
    ("ix_cases_state", "cases", ["state"]),
    ("ix_sme_tasks_item_pk", "sme_tasks", ["item_pk"]),
]
NOTES = ("attribution", "removed", "dicom_header")
CHUNK = 500

_images = sa.table("case_images", sa.column("id", sa.Uuid()),
                   sa.column("notes_digest", sa.String()),
                   *(sa.column(n, sa.JSON()) for n in NOTES))
_notes = sa.table("image_notes", sa.column("digest", sa.String()),
                  *(sa.column(n, sa.JSON()) for n in NOTES))


def upgrade() -> None:
    from annotator.store.image_notes import digest

    for name, on, _columns in UNNEEDED:
        op.drop_index(name, table_name=on)
    table("image_notes", "digest s32, attribution json, removed json, dicom_header json",
          pk="digest")
    op.add_column("case_images", sa.Column("notes_digest", sa.String(length=32), nullable=True))
    bind = op.get_bind()
    known: set[str] = set()
    by_digest: dict[str, list[Any]] = defaultdict(list)
    rows = bind.execute(sa.select(_images.c.id, *(_images.c[n] for n in NOTES)))
    for row in rows:
        notes = (row.attribution or {}, row.removed or [], row.dicom_header or {})
        name = digest(*notes)
        if name not in known:
            bind.execute(_notes.insert(), [dict(zip(("digest", *NOTES), (name, *notes),
                                                    strict=True))])
            known.add(name)
        by_digest[name].append(row.id)
    for name, ids in by_digest.items():
        for start in range(0, len(ids), CHUNK):
            bind.execute(_images.update().where(_images.c.id.in_(ids[start:start + CHUNK]))
                         .values(notes_digest=name))
    with op.batch_alter_table("case_images") as batch:
        for name in NOTES:
            batch.drop_column(name)
        batch.alter_column("notes_digest", existing_type=sa.String(length=32), nullable=False)
        batch.create_foreign_key(op.f("fk_case_images_notes_digest_image_notes"), "image_notes",
                                 ["notes_digest"], ["digest"])
    if bind.dialect.name == "postgresql" and bind.exec_driver_sql(
            "SELECT 1 FROM pg_proc WHERE proname = 'annotator_role_prefix'").first():
        prefix = bind.exec_driver_sql("SELECT annotator_role_prefix()").scalar_one()
        app = '"' + f"{prefix}_app".replace('"', '""') + '"'
        curator = '"' + f"{prefix}_curator".replace('"', '""') + '"'
        bind.exec_driver_sql(f"GRANT SELECT ON image_notes TO {app}")
        bind.exec_driver_sql(f"GRANT INSERT, UPDATE, DELETE ON image_notes TO {curator}")


def downgrade() -> None:
    bind = op.get_bind()
    for name in NOTES:
        op.add_column("case_images", sa.Column(name, sa.JSON(), nullable=True))
    for note in bind.execute(sa.select(_notes)).all():
        bind.execute(_images.update().where(_images.c.notes_digest == note.digest)
                     .values(**{n: getattr(note, n) for n in NOTES}))
    with op.batch_alter_table("case_images") as batch:
        batch.drop_constraint(op.f("fk_case_images_notes_digest_image_notes"),
                              type_="foreignkey")
        batch.drop_column("notes_digest")
        for name in NOTES:
            batch.alter_column(name, existing_type=sa.JSON(), nullable=False)
    op.drop_table("image_notes")
    for name, on, columns in UNNEEDED:
        op.create_index(name, on, columns)
