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
    """The pixel review status of every image of the cases' current revisions."""
    query = (select(Case.case_id, CaseImage)
             .join(CaseImage, CaseImage.revision_id == Case.current_revision_id)
             .order_by(Case.case_id, CaseImage.draft_path))
    if case_ids is not None:
        query = query.where(Case.case_id.in_(list(case_ids)))
    rows = session.execute(query).all()
    shas = {image.sha256 for _, image in rows}
    checks = _by_sha(session, ImageTextCheck, ImageTextCheck.sha256, shas)
    reviews = _by_sha(session, ImageReview, ImageReview.stored_sha256, shas)
    out: list[ImageStatus] = []
    for case_id, image in rows:
        status = ImageStatus(case_id, image.draft_path, [str(f) for f in image.figures or []],
                             image.sha256, "unchecked")
        review = reviews.get(image.sha256)
        check = checks.get(image.sha256)
        if check is not None:
            status.reasons, status.boxes = list(check.reasons), list(check.boxes)
            status.status = "flagged" if check.flagged else "clear"
        if review is not None:
            status.status, status.review_reason = review.outcome, review.reason
        out.append(status)
    return out


def _by_sha(session: Session, table: Any, column: Any, shas: set[str]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    ordered = sorted(shas)
    for start in range(0, len(ordered), 500):
        for row in session.scalars(select(table).where(column.in_(ordered[start:start + 500]))):
            found[getattr(row, column.key)] = row
    return found


def unresolved(session: Session, case_ids: Iterable[str]) -> list[ImageStatus]:
    """Images of these cases that would ship unchecked or flagged and unreviewed."""
    return [s for s in image_statuses(session, case_ids) if s.unresolved]
