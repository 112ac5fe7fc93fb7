"""Everything the adjudicator needs on one case: items by letter, notes, blockers, images."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action, may, refusal
from annotator.domain.suggestions import figures
from annotator.review.notes import Note, notes_of
from annotator.services.review.base import (
    current_content,
    get_case,
    own_case_reason,
    reason_codes,
    review_in,
    submitted_labels,
)
from annotator.services.review.detect import letters_of, sync_case
from annotator.services.review.queue import QueueItem, case_queue_items
from annotator.services.users import require_user
from annotator.store.project import Project
from annotator.store.schema import CaseImage, ReviewRecord


@dataclass(frozen=True)
class CaseDetail:
    case_id: str
    title: str
    state: str
    state_reason: str | None
    content: dict[str, Any]  # the draft
    release: dict[str, Any]  # the draft with the final values applied
    figures: list[str]
    letters: list[str]
    items: list[QueueItem]
    notes: dict[str, list[Note]]  # reviewer letter -> what they wrote
    blockers: list[str]  # why the case is not green yet (empty: it may be green-lit)
    green_lit_by: str | None
    adjudicator: str | None
    viewer_block: str | None  # why the viewer may not adjudicate this case
    reason_codes: tuple[str, ...]

    def as_json(self) -> dict[str, Any]:
        data = {k: v for k, v in asdict(self).items() if k not in ("content", "release", "items")}
        data["items"] = [item.as_json() for item in self.items]
        return data


def case_detail(project: Project, case_id: str, viewer: str) -> CaseDetail:
    """One case for the review page and ``review --show``.

    ``viewer`` must be an adjudicator or curator (the detail shows every reviewer's labels
    and notes); ``viewer_block`` says why they may not decide this case, if so.
    """
    codes = reason_codes(project)

    def read(session: Session) -> CaseDetail:
        user = require_user(session, viewer, Action.READ_OTHERS_WORK)
        case = get_case(session, case_id)
        sync_case(session, case)
        review = review_in(session, case)
        letters = letters_of(session, case)
        submitted = submitted_labels(session, case)
        notes = {
            letters[a]: notes_of(labels)
            for a, labels in sorted(submitted.items(), key=lambda kv: letters.get(kv[0], "?"))
            if a in letters
        }
        record = session.get(ReviewRecord, case.id)
        if not may(user.role_names, Action.ADJUDICATE_CASES):
            block: str | None = refusal(Action.ADJUDICATE_CASES, viewer)
        else:
            block = own_case_reason(session, user, case)
        content = dict(review.release)
        return CaseDetail(
            case_id=case.case_id,
            title=str(content.get("case_title") or ""),
            state=case.state,
            state_reason=case.state_reason,
            content=current_content(session, case),
            release=content,
            figures=figures(content),
            letters=sorted(set(letters.values()) & set(notes)),
            items=case_queue_items(session, case),
            notes=notes,
            blockers=review.blockers,
            green_lit_by=case.green_lit_by,
            adjudicator=record.adjudicator if record is not None else None,
            viewer_block=block,
            reason_codes=codes,
        )

    # A write only when the case's detection is stale (it is detected again first).
    return project.read_healing(read)


@dataclass(frozen=True)
class ExamImage:
    figure: str
    path: str
    caption: str
    data: bytes


def case_images(project: Project, case_id: str) -> list[ExamImage]:
    """The image bytes of every exam of the case's current revision, in draft order."""
    with project.read() as session:
        case = get_case(session, case_id)
        rows = {
            row.draft_path: row
            for row in session.scalars(
                select(CaseImage).where(CaseImage.revision_id == case.current_revision_id)
            )
        }
        found: list[ExamImage] = []
        for exam in current_content(session, case).get("imaging_examinations") or []:
            for path in exam.get("image_paths") or []:
                row = rows.get(path)
                if row is None:
                    continue
                data = project.images.get(session, row.sha256)
                found.append(ExamImage(str(exam.get("figure")), path, str(row.caption or ""), data))
        return found
