"""Burned-in text: the pixel check of each stored image and the curators' reviews"""

from __future__ import annotations

from alembic import op

from annotator.store.migrations._ops import table

revision = "0010_burned_text"
down_revision = "0009_sme_item_run"


def upgrade() -> None:
    table(
        "image_text_checks",
        "sha256 s64, flagged bool, reasons json, boxes json, checker s100, checked_at time",
        pk="sha256",
    )
    table(
        "image_reviews",
        "sha256 s64, outcome s20, stored_sha256 s64, boxes json, reason text,"
        " reviewed_by s200, reviewed_at time",
        pk="sha256", checks={"outcome": "outcome IN ('redacted', 'no_phi')"},
        index="stored_sha256",
    )


def downgrade() -> None:
    op.drop_table("image_reviews")
    op.drop_table("image_text_checks")
