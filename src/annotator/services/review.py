"""Adjudication, exclusion and the green light (the adjudicator's actions on a case)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.states import CaseState, Role
from annotator.errors import NotFound, PermissionDenied, StateError, ValidationError
from annotator.review.final import FinalValues, final_values, release_content
from annotator.review.release_checks import release_problems
from annotator.services.caseflow import active_annotations
from annotator.services.history import record
from annotator.services.project import Project
from annotator.services.users import require_role
from annotator.store.schema import Adjudication, Case, CaseImage, CaseRevision, User, utcnow

REASON_CODES = (
    "protocol",  # the annotation protocol / contract decides it
    "clinical_judgement",
    "majority",
    "template_error",
    "image_evidence",
    "irresolvable",
    "other",
)


@dataclass(frozen=True)
class CaseReview:
    case_id: str
    state: str
    final: FinalValues
    release: dict[str, Any]
    blockers: list[str]  # why the case cannot be green-lit now (empty: it can)


def _case(session: Session, case_id: str) -> Case:
    case = session.scalars(select(Case).where(Case.case_id == case_id)).first()
    if case is None:
        raise NotFound(f"no case {case_id!r}")
    return case


def submitted_labels(session: Session, case: Case) -> dict[str, dict[str, Any]]:
    """Submitted label maps keyed by annotator id (agreement and review never see names)."""
    return {
        str(a.annotator_id): dict(a.submitted_labels or {})
        for a in active_annotations(session, case)
        if a.state == "submitted"
    }


def decisions(session: Session, case: Case) -> dict[str, Any]:
    rows = session.scalars(
        select(Adjudication)
        .where(Adjudication.case_pk == case.id, Adjudication.superseded.is_(False))
        .order_by(Adjudication.decided_at)
    )
    return {row.key: row.value for row in rows}


def _review(session: Session, case: Case) -> CaseReview:
    revision = session.get(CaseRevision, case.current_revision_id)
    assert revision is not None
    final = final_values(
        revision.content, submitted_labels(session, case), decisions(session, case)
    )
    release = release_content(revision.content, final.values)
    paths = {
        img.draft_path
        for img in session.scalars(select(CaseImage).where(CaseImage.revision_id == revision.id))
    }
    blockers: list[str] = []
    if case.state not in (CaseState.IN_REVIEW.value, CaseState.GREEN_LIT.value):
        blockers.append(f"the case is {case.state.replace('_', ' ')}, not in review")
    blockers += [f"open conflict: {item.key}" for item in final.open]
    if final.discarded:
        blockers.append("the final value is discard: exclude the case instead")
    else:
        blockers += release_problems(release, paths)
    return CaseReview(case.case_id, case.state, final, release, blockers)


def review_case(project: Project, case_id: str) -> CaseReview:
    with project.tx() as session:
        return _review(session, _case(session, case_id))


def _adjudicator(session: Session, actor: str, case: Case, doing: str) -> User:
    user = require_role(session, actor, Role.ADJUDICATOR, doing)
    assert user is not None
    if any(a.annotator_id == user.id for a in active_annotations(session, case)):
        raise PermissionDenied(
            f"{doing}: {actor} annotated case {case.case_id} and cannot adjudicate it"
        )
    return user


def decide(
    project: Project,
    actor: str,
    case_id: str,
    key: str,
    value: Any,
    reason_code: str,
    reason_text: str = "",
) -> CaseReview:
    """Record the final value of one item, with a reason; supersedes an earlier decision."""
    if reason_code not in REASON_CODES:
        raise ValidationError(f"reason code must be one of {', '.join(REASON_CODES)}")
    with project.tx() as session:
        case = _case(session, case_id)
        _adjudicator(session, actor, case, "adjudicating")
        if case.state not in (CaseState.IN_REVIEW.value, CaseState.GREEN_LIT.value):
            raise StateError(f"{case_id} is {case.state}; only cases in review are adjudicated")
        for old in session.scalars(
            select(Adjudication).where(
                Adjudication.case_pk == case.id,
                Adjudication.key == key,
                Adjudication.superseded.is_(False),
            )
        ):
            old.superseded = True
        session.add(
            Adjudication(
                case_pk=case.id,
                key=key,
                value=value,
                reason_code=reason_code,
                reason_text=reason_text,
                adjudicator=actor,
            )
        )
        record(
            session,
            actor,
            "adjudicated",
            case_pk=case.id,
            key=key,
            after=value,
            reason_code=reason_code,
            reason_text=reason_text,
        )
        if case.state == CaseState.GREEN_LIT.value:
            _revoke(session, case, actor, f"decision changed on {key}")
        session.flush()
        if key == "discard" and value is not None:
            _exclude(session, case, actor, f"discard upheld: {reason_text or reason_code}")
        return _review(session, case)


def green_light(project: Project, actor: str, case_id: str) -> CaseReview:
    """Green-light a case; raises StateError listing every reason when it is not ready."""
    with project.tx() as session:
        case = _case(session, case_id)
        _adjudicator(session, actor, case, "green-lighting")
        review = _review(session, case)
        if case.state == CaseState.GREEN_LIT.value:
            return review
        if review.blockers:
            raise StateError(f"{case_id} cannot be green-lit: " + "; ".join(review.blockers))
        case.state = CaseState.GREEN_LIT.value
        case.green_lit_by = actor
        case.green_lit_at = utcnow()
        record(session, actor, "green_lit", case_pk=case.id, before="in_review", after="green_lit")
        session.flush()
        return _review(session, case)


def exclude(project: Project, actor: str, case_id: str, reason: str) -> None:
    """Exclude a case (irresolvable, unusable); it stays out of the release with its reason."""
    if not reason.strip():
        raise ValidationError("excluding a case needs a reason")
    with project.tx() as session:
        case = _case(session, case_id)
        _adjudicator(session, actor, case, "excluding a case")
        _exclude(session, case, actor, reason)


def _exclude(session: Session, case: Case, actor: str, reason: str) -> None:
    if case.state == CaseState.GREEN_LIT.value:
        _revoke(session, case, actor, "case excluded")
    record(
        session,
        actor,
        "excluded",
        case_pk=case.id,
        before=case.state,
        after="excluded",
        reason=reason,
    )
    case.state = CaseState.EXCLUDED.value
    case.state_reason = reason
    case.updated_at = utcnow()


def _revoke(session: Session, case: Case, actor: str, why: str) -> None:
    from annotator.services.caseflow import revoke_green_light

    revoke_green_light(session, case, actor, why)
