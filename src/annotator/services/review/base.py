"""Adjudication, exclusion and the green light (the adjudicator's actions on a case).

Every action is recorded in the append-only history: ``adjudicated`` (a conflict decided),
``overridden`` (an auto-resolution replaced), ``adjudication_reopened``, ``green_lit``,
``green_light_revoked``, ``excluded``; reopening decisions and reinstating excluded cases
live in :mod:`annotator.services.review.reopen`.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Select, select
from sqlalchemy.orm import Session, with_polymorphic

from annotator.domain.labels import REASON_CODES
from annotator.domain.permissions import Action
from annotator.domain.release_rules import release_problems, release_warnings
from annotator.domain.states import CaseState
from annotator.errors import NotFound, PermissionDenied
from annotator.review.final import FinalValues, final_values, release_content
from annotator.services.users import require_user
from annotator.store.project import Project
from annotator.store.schema import (
    Adjudication,
    Annotation,
    Case,
    CaseImage,
    CaseRevision,
    RatedWork,
    User,
)
from annotator.store.settings import REVIEW_REASON_CODES

REVIEW_STATES = (CaseState.IN_REVIEW.value, CaseState.GREEN_LIT.value)


@dataclass(frozen=True)
class CaseReview:
    case_id: str
    state: str
    final: FinalValues
    release: dict[str, Any]
    blockers: list[str]  # why the case cannot be green-lit now (empty: it can)
    warnings: list[str] = field(default_factory=list)  # shown at green light; not blocking


def reason_codes(project: Project) -> tuple[str, ...]:
    """The project's short list of reason codes (setting ``review_reason_codes``)."""
    codes = project.setting(REVIEW_REASON_CODES)
    return tuple(str(c) for c in codes) if isinstance(codes, list) and codes else REASON_CODES


# Work of any kind, read without the "kind = 'case'" term the ORM adds for Annotation: with
# it, SQLite (no table statistics) reads every case annotation through the (kind, state)
# index instead of the case's few through the case_pk index (21 ms a case at 2,000 cases).
# Only case work has a case_pk; the rows are still checked to be annotations.
_WORK = with_polymorphic(RatedWork, [Annotation])


def _case_work(case: Case) -> Select[Any]:
    return select(_WORK).where(_WORK.Annotation.case_pk == case.id,
                               _WORK.withdrawn_at.is_(None))


def active_annotations(session: Session, case: Case) -> list[Annotation]:
    rows = session.scalars(_case_work(case).order_by(_WORK.id))
    return [row for row in rows if isinstance(row, Annotation)]


def active_annotation(session: Session, case: Case, user_id: uuid.UUID) -> Annotation | None:
    """The user's current (not withdrawn) annotation of the case, if any."""
    rows = session.scalars(_case_work(case).where(_WORK.rater_id == user_id))
    return next((row for row in rows if isinstance(row, Annotation)), None)


def get_case(session: Session, case_id: str) -> Case:
    case = session.scalars(select(Case).where(Case.case_id == case_id)).first()
    if case is None:
        raise NotFound(f"no case {case_id!r}")
    return case



def submitted_labels(session: Session, case: Case) -> dict[str, dict[str, Any]]:
    """Submitted label maps keyed by annotator id (agreement and review never see names)."""
    return submitted_of(active_annotations(session, case))


def submitted_of(annotations: list[Annotation]) -> dict[str, dict[str, Any]]:
    """:func:`submitted_labels` from a case's active annotations, in id order."""
    return {
        str(a.annotator_id): dict(a.submitted_labels or {})
        for a in annotations
        if a.state == "submitted"
    }


def decision_rows(session: Session, case: Case) -> dict[str, Adjudication]:
    """The current (not superseded) decision of each decided key."""
    rows = session.scalars(
        select(Adjudication)
        .where(Adjudication.case_pk == case.id, Adjudication.superseded.is_(False))
        .order_by(Adjudication.decided_at)
    )
    return {row.key: row for row in rows}


def decisions(session: Session, case: Case) -> dict[str, Any]:
    return {key: row.value for key, row in decision_rows(session, case).items()}


def current_content(session: Session, case: Case) -> dict[str, Any]:
    revision = session.get(CaseRevision, case.current_revision_id)
    assert revision is not None
    return revision.content


def review_in(session: Session, case: Case) -> CaseReview:
    """The case's review inside the caller's transaction (see :func:`review_case`)."""
    hashes = {
        img.draft_path: img.sha256
        for img in session.scalars(
            select(CaseImage).where(CaseImage.revision_id == case.current_revision_id)
        )
    }
    return review_of(
        case,
        current_content(session, case),
        submitted_labels(session, case),
        decisions(session, case),
        hashes,
    )


def review_of(
    case: Case,
    content: dict[str, Any],
    submitted: dict[str, dict[str, Any]],
    decided: dict[str, Any],
    hashes: dict[str, str],
) -> CaseReview:
    """The case's review from rows already read (the queue reads them for all cases at once).

    ``hashes`` maps the current revision's image paths to their SHA-256.
    """
    final = final_values(content, submitted, decided)
    release = release_content(content, final.values)
    paths = set(hashes)
    blockers: list[str] = []
    if case.state not in REVIEW_STATES:
        blockers.append(f"the case is {case.state.replace('_', ' ')}, not in review")
    blockers += [f"open conflict: {item.key}" for item in final.open]
    if final.discarded:
        blockers.append("the final value is discard: exclude the case instead")
    else:
        blockers += release_problems(release, paths)
    warnings = release_warnings(release, hashes)
    return CaseReview(case.case_id, case.state, final, release, blockers, warnings)


def review_case(project: Project, case_id: str) -> CaseReview:
    """The case's final values, release content and what blocks its green light."""
    with project.read() as session:
        return review_in(session, get_case(session, case_id))


def own_case_reason(session: Session, user: User, case: Case) -> str | None:
    """Why ``user`` may not adjudicate ``case`` (they annotated it, even if withdrawn)."""
    annotated = session.scalars(
        select(Annotation.id).where(
            Annotation.case_pk == case.id, Annotation.annotator_id == user.id
        )
    ).first()
    if annotated is not None:
        return f"{user.name} annotated case {case.case_id} and cannot adjudicate it"
    return None


def adjudicator(session: Session, actor: str, case: Case, doing: str) -> User:
    """The acting adjudicator; refuses a user without the role or who annotated the case."""
    user = require_user(session, actor, Action.ADJUDICATE_CASES)
    why = own_case_reason(session, user, case)
    if why:
        raise PermissionDenied(f"{doing}: {why}")
    return user
