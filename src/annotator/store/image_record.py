"""One image of a case revision as a value: the columns of ``case_images`` and its notes.

Import, the work bundle (both ways) and the workspace all copy an image's record; they go
through :class:`ImageRecord` so a new column is added in one place.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from sqlalchemy.orm import Session

from annotator.store import image_notes
from annotator.store.schema import CaseImage


@dataclass(frozen=True, kw_only=True)
class ImageRecord:
    """What the project stores about one image; its bytes are kept by SHA-256."""

    draft_path: str  # exactly as written in the case (the release writes it back)
    sha256: str  # of the stored (de-identified) bytes
    media_type: str  # "image/png" | "image/jpeg" | "application/dicom"
    width: int
    height: int
    frames: int = 1
    figures: list[str] = field(default_factory=list)  # exams whose image_paths name it
    name: str | None = None
    caption: str | None = None
    attribution: dict[str, Any] = field(default_factory=dict)  # source_url/author/license
    removed: list[str] = field(default_factory=list)  # what cleaning removed, readable
    dicom_header: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_row(cls, row: CaseImage) -> ImageRecord:
        return cls(
            draft_path=row.draft_path,
            sha256=row.sha256,
            media_type=row.media_type,
            width=row.width,
            height=row.height,
            frames=max(1, row.frames or 1),
            figures=[str(f) for f in row.figures or []],
            name=row.name,
            caption=row.caption,
            attribution=dict(row.attribution or {}),
            removed=[str(r) for r in row.removed or []],
            dicom_header=dict(row.dicom_header or {}),
        )

    def as_dict(self) -> dict[str, Any]:
        """The record's fields, JSON-ready (lists, not tuples)."""
        out = {f: getattr(self, f) for f in _FIELDS}
        for name in ("figures", "removed"):
            out[name] = list(out[name])
        for name in ("attribution", "dicom_header"):
            out[name] = dict(out[name])
        return out

    def notes(self) -> image_notes.Notes:
        return dict(self.attribution), list(self.removed), dict(self.dicom_header)

    def to_row(self, revision_id: uuid.UUID) -> CaseImage:
        """A new ``case_images`` row of the revision; its notes must be kept
        (:func:`new_rows` does both)."""
        values = self.as_dict()
        for name in _NOTES:
            del values[name]
        return CaseImage(revision_id=revision_id, notes_digest=image_notes.digest(*self.notes()),
                         **values)


def new_rows(session: Session, revision_id: uuid.UUID,
             records: Sequence[ImageRecord]) -> list[CaseImage]:
    """The revision's new ``case_images`` rows, their notes kept in the store (not added to
    the session: the caller may still change them)."""
    image_notes.keep(session, [r.notes() for r in records])
    return [r.to_row(revision_id) for r in records]


_NOTES = ("attribution", "removed", "dicom_header")


_FIELDS = tuple(f.name for f in fields(ImageRecord))  # not a subclass's extra fields
