"""Recording conflict detection when a case enters review, and the reviewer letters.

Detection runs once per round: the review record keeps a fingerprint of the labels it read,
so calling :func:`sync_case` again is free until a case comes back with other labels (after
a reopen or a new draft revision), when the old detections are superseded and the case is
detected again. The functions run inside the caller's transaction.
"""

from __future__ import annotations

import random
import uuid
from dataclasses import asdict

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.review.conflicts import assign_letters, detect, fingerprint
from annotator.services.review.base import REVIEW_STATES, current_content, submitted_labels
from annotator.store.history import record
from annotator.store.schema import Case, DetectedItem, ReviewerLetter, ReviewRecord, utcnow

AUTO_ACTOR = "(auto)"  # detection is automatic; the history says so


def letters_of(session: Session, case: Case) -> dict[str, str]:
    """Annotator id (text) -> reviewer letter for a case (empty before its first review)."""
    rows = session.scalars(select(ReviewerLetter).where(ReviewerLetter.case_pk == case.id))
    return {str(row.annotator_id): row.letter for row in rows}


def ensure_letters(session: Session, case: Case, annotators: list[str]) -> dict[str, str]:
    """Give letters to annotators of the case that have none; existing letters stay."""
    letters = letters_of(session, case)
    new = assign_letters(letters, annotators, random.SystemRandom())
    for annotator, letter in new.items():
        session.add(
            ReviewerLetter(case_pk=case.id, annotator_id=uuid.UUID(annotator), letter=letter)
        )
    if new:
        session.flush()
    return {**letters, **new}


def detected_items(session: Session, case: Case) -> list[DetectedItem]:
    """The current round's detected items of a case."""
    current = DetectedItem.case_pk == case.id, DetectedItem.superseded.is_(False)
    return list(session.scalars(select(DetectedItem).where(*current).order_by(DetectedItem.key)))


def sync_case(session: Session, case: Case) -> bool:
    """Detect and record the case's conflicts if its labels changed since; True if it did."""
    if case.state not in REVIEW_STATES or case.current_revision_id is None:
        return False
    submitted = submitted_labels(session, case)
    if not submitted:
        return False
    stamp = fingerprint(str(case.current_revision_id), submitted)
    review = session.get(ReviewRecord, case.id)
    if review is not None and review.fingerprint == stamp:
        return False
    letters = ensure_letters(session, case, sorted(submitted))
    found = detect(current_content(session, case), submitted, letters)
    for old in detected_items(session, case):
        old.superseded = True
    now = utcnow()
    for item in found:
        # A detection's fields are the row's columns of the same names.
        row = DetectedItem(**asdict(item), case_pk=case.id, fingerprint=stamp, detected_at=now)
        session.add(row)
    if review is None:
        session.add(ReviewRecord(case_pk=case.id, fingerprint=stamp, detected_at=now))
    else:
        review.fingerprint = stamp
        review.detected_at = now
    record(
        session,
        AUTO_ACTOR,
        "review_detected",
        case_pk=case.id,
        after={
            "conflicts": {i.key: i.disagreement for i in found if i.kind == "conflict"},
            "auto_resolutions": [i.key for i in found if i.kind == "auto_resolved"],
        },
        redetected=review is not None,
    )
    session.flush()
    return True


def sync_all(session: Session) -> int:
    """Detect every case in review whose detection is missing or stale; returns how many."""
    cases = session.scalars(select(Case).where(Case.state.in_(REVIEW_STATES)))
    return sum(sync_case(session, case) for case in cases)


def on_enter_review(session: Session, case: Case) -> None:
    """Hook for the state model: record the detection the moment a case enters review."""
    sync_case(session, case)
