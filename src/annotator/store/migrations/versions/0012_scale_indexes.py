"""Counts that stay flat at 100,000 cases: indexes on case state, a case's current revision,
image types per revision and rated work's state, and each revision's exam count stored beside
its content (status no longer reads every draft)

Revision ID: 0012_scale_indexes
Revises: 0011_quality
"""

from __future__ import annotations

import json

import sqlalchemy as sa
from alembic import op

revision = "0012_scale_indexes"
down_revision = "0011_quality"
branch_labels = None
depends_on = None

BATCH = 1000


def upgrade() -> None:
    # A plain ADD/DROP COLUMN (SQLite 3.35+): a batch copy of the table would trip the foreign
    # keys that point at case_revisions.
    op.add_column("case_revisions", sa.Column("exams", sa.Integer(), nullable=True))
    conn = op.get_bind()
    revisions = sa.table("case_revisions", sa.column("id", sa.Uuid()),
                         sa.column("content", sa.JSON()), sa.column("exams", sa.Integer()))
    rows = conn.execute(sa.select(revisions.c.id, revisions.c.content)).all()
    for start in range(0, len(rows), BATCH):
        conn.execute(
            revisions.update().where(revisions.c.id == sa.bindparam("rid"))
            .values(exams=sa.bindparam("count")),
            [{"rid": rid, "count": _exams(content)} for rid, content in rows[start:start + BATCH]],
        )
    op.create_index("ix_cases_state", "cases", ["state"])
    op.create_index("ix_cases_current_revision_id", "cases", ["current_revision_id"])
    op.create_index("ix_case_images_revision_media", "case_images", ["revision_id", "media_type"])
    op.create_index("ix_rated_work_kind_state", "rated_work", ["kind", "state"])


def _exams(content: object) -> int:
    if isinstance(content, str):  # a JSON column read without its type
        content = json.loads(content)
    found = content.get("imaging_examinations") if isinstance(content, dict) else None
    return len(found) if isinstance(found, list) else 0


def downgrade() -> None:
    op.drop_index("ix_rated_work_kind_state", table_name="rated_work")
    op.drop_index("ix_case_images_revision_media", table_name="case_images")
    op.drop_index("ix_cases_current_revision_id", table_name="cases")
    op.drop_index("ix_cases_state", table_name="cases")
    op.drop_column("case_revisions", "exams")
