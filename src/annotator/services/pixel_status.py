"""What burned-in text leaves to review, per image of a case's current revision.

Read by the release, export, bundles and green-lighting; kept apart from
:mod:`annotator.services.pixel_review` (checks, review, redaction), which needs image
decoding and the import readers, so that reading a status imports neither.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.store.schema import Case, CaseImage, ImageReview, ImageTextCheck


@dataclass
class ImageStatus:
    """One image of a case's current revision, as the redaction list shows it."""

    case_id: str
    draft_path: str
    figures: list[str]
    sha256: str
    status: str  # unchecked | clear | flagged | redacted | no_phi
    reasons: list[str] = field(default_factory=list)
    boxes: list[dict[str, Any]] = field(default_factory=list)
    review_reason: str = ""

    @property
    def unresolved(self) -> bool:
        return self.status in ("unchecked", "flagged")

    def describe(self) -> str:
        figures = ", ".join(self.figures) or "no figure"
        what = ("was never checked for burned-in text (run: redact --scan)"
                if self.status == "unchecked" else
                "is flagged for burned-in text and nobody reviewed it ("
                + "; ".join(self.reasons) + ")")
        return f"case {self.case_id}, {figures}, image {self.draft_path} {what}"

    def as_dict(self) -> dict[str, Any]:
        return {"case_id": self.case_id, "image": self.draft_path, "figures": self.figures,
                "status": self.status, "reasons": self.reasons, "boxes": self.boxes,
                "review_reason": self.review_reason}


def image_statuses(session: Session, case_ids: Iterable[str] | None = None
                   ) -> list[ImageStatus]:
    """The pixel review status of every image of the cases' current revisions.

    Only the columns shown are read: a whole image row joins its notes (attribution, what
    de-identification removed, the DICOM header), 13 JSON values an image, which the export's
    gate decoded for nothing (150 ms of 100 cases' export)."""
    query = (select(Case.case_id, CaseImage.draft_path, CaseImage.figures, CaseImage.sha256)
             .join(CaseImage, CaseImage.revision_id == Case.current_revision_id)
             .order_by(Case.case_id, CaseImage.draft_path))
    if case_ids is not None:
        query = query.where(Case.case_id.in_(list(case_ids)))
    rows = session.execute(query).all()
    shas = sorted({sha for *_rest, sha in rows})
    checks = _by_sha(session, ImageTextCheck.sha256, shas, ImageTextCheck.flagged,
                     ImageTextCheck.reasons, ImageTextCheck.boxes)
    reviews = _by_sha(session, ImageReview.stored_sha256, shas, ImageReview.outcome,
                      ImageReview.reason)
    out: list[ImageStatus] = []
    for case_id, draft_path, figures, sha in rows:
        status = ImageStatus(case_id, draft_path, [str(f) for f in figures or []], sha,
                             "unchecked")
        review = reviews.get(sha)
        check = checks.get(sha)
        if check is not None:
            flagged, reasons, boxes = check
            status.reasons, status.boxes = list(reasons), list(boxes)
            status.status = "flagged" if flagged else "clear"
        if review is not None:
            status.status, status.review_reason = review
        out.append(status)
    return out


def _by_sha(session: Session, key: Any, shas: list[str], *columns: Any
            ) -> dict[str, tuple[Any, ...]]:
    found: dict[str, tuple[Any, ...]] = {}
    for start in range(0, len(shas), 500):
        for sha, *values in session.execute(
                select(key, *columns).where(key.in_(shas[start:start + 500]))):
            found[sha] = tuple(values)
    return found


def unresolved(session: Session, case_ids: Iterable[str]) -> list[ImageStatus]:
    """Images of these cases that would ship unchecked or flagged and unreviewed."""
    return [s for s in image_statuses(session, case_ids) if s.unresolved]
