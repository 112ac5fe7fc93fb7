"""Adjudication, exclusion and the green light (the adjudicator's actions on a case).

Every action is recorded in the append-only history: ``adjudicated`` (a conflict decided),
``overridden`` (an auto-resolution replaced), ``adjudication_reopened``, ``green_lit``,
``green_light_revoked``, ``excluded``; reopening decisions and reinstating excluded cases
live in :mod:`annotator.services.review_reopen`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.states import CaseState, Role
from annotator.domain.suggestions import figures
from annotator.errors import NotFound, PermissionDenied, StateError, ValidationError
from annotator.review.decision_values import validate_decision
from annotator.review.final import FinalValues, final_values, release_content
from annotator.review.items import case_items
from annotator.review.release_checks import release_problems
from annotator.services.caseflow import active_annotations
from annotator.services.users import require_role
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import (
    Adjudication,
    Annotation,
    Case,
    CaseImage,
    CaseRevision,
    User,
    utcnow,
)

REASON_CODES = (
    "protocol",  # the annotation protocol / contract decides it
    "clinical_judgement",
    "majority",
    "template_error",
    "image_evidence",
    "irresolvable",
    "other",
)
REVIEW_STATES = (CaseState.IN_REVIEW.value, CaseState.GREEN_LIT.value)


@dataclass(frozen=True)
class CaseReview:
    case_id: str
    state: str
    final: FinalValues
    release: dict[str, Any]
    blockers: list[str]  # why the case cannot be green-lit now (empty: it can)


def reason_codes(project: Project) -> tuple[str, ...]:
    """The project's short list of reason codes (setting ``review_reason_codes``)."""
    codes = project.setting("review_reason_codes")
    return tuple(str(c) for c in codes) if isinstance(codes, list) and codes else REASON_CODES


def get_case(session: Session, case_id: str) -> Case:
    case = session.scalars(select(Case).where(Case.case_id == case_id)).first()
    if case is None:
        raise NotFound(f"no case {case_id!r}")
    return case


_case = get_case  # the name the first version used


def submitted_labels(session: Session, case: Case) -> dict[str, dict[str, Any]]:
    """Submitted label maps keyed by annotator id (agreement and review never see names)."""
    return {
        str(a.annotator_id): dict(a.submitted_labels or {})
        for a in active_annotations(session, case)
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
    content = current_content(session, case)
    final = final_values(content, submitted_labels(session, case), decisions(session, case))
    release = release_content(content, final.values)
    paths = {
        img.draft_path
        for img in session.scalars(
            select(CaseImage).where(CaseImage.revision_id == case.current_revision_id)
        )
    }
    blockers: list[str] = []
    if case.state not in REVIEW_STATES:
        blockers.append(f"the case is {case.state.replace('_', ' ')}, not in review")
    blockers += [f"open conflict: {item.key}" for item in final.open]
    if final.discarded:
        blockers.append("the final value is discard: exclude the case instead")
    else:
        blockers += release_problems(release, paths)
    return CaseReview(case.case_id, case.state, final, release, blockers)


def review_case(project: Project, case_id: str) -> CaseReview:
    """The case's final values, release content and what blocks its green light."""
    with project.tx() as session:
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
    user = require_role(session, actor, Role.ADJUDICATOR, doing)
    assert user is not None
    why = own_case_reason(session, user, case)
    if why:
        raise PermissionDenied(f"{doing}: {why}")
    return user


def _ensure_detected(session: Session, case: Case) -> None:
    from annotator.services.review_detect import sync_case

    sync_case(session, case)


def decide(
    project: Project,
    actor: str,
    case_id: str,
    key: str,
    value: Any,
    reason_code: str,
    reason_text: str = "",
) -> CaseReview:
    """Record the final value of one item, with a reason; supersedes an earlier decision.

    Deciding an item the reviewers agreed on overrides its auto-resolution. A decision on a
    green-lit case revokes the green light; upholding a discard excludes the case.
    """
    codes = reason_codes(project)
    if reason_code not in codes:
        raise ValidationError(f"reason code must be one of {', '.join(codes)}")
    with project.tx() as session:
        case = get_case(session, case_id)
        adjudicator(session, actor, case, "adjudicating")
        if case.state not in REVIEW_STATES:
            raise StateError(f"{case_id} is {case.state}; only cases in review are adjudicated")
        _ensure_detected(session, case)
        content = current_content(session, case)
        items = {i.key: i for i in case_items(content, submitted_labels(session, case))}
        if key not in items:
            known = ", ".join(list(items)[:12]) + (", ..." if len(items) > 12 else "")
            raise ValidationError(f"{case_id} has no item {key!r} (its items: {known})")
        value = validate_decision(key, value, figures(content))
        previous = decision_rows(session, case).get(key)
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
        item = items[key]
        record(
            session,
            actor,
            "overridden" if item.unanimous else "adjudicated",
            case_pk=case.id,
            key=key,
            before=previous.value if previous is not None else item.agreed_value,
            after=value,
            reason_code=reason_code,
            reason_text=reason_text,
        )
        if case.state == CaseState.GREEN_LIT.value:
            revoke(session, case, actor, f"decision changed on {key}")
        session.flush()
        if key == "discard" and value is not None:
            _exclude(session, case, actor, f"discard upheld: {reason_text or reason_code}")
        return review_in(session, case)


def green_light(project: Project, actor: str, case_id: str) -> CaseReview:
    """Green-light a case; raises StateError listing every reason when it is not ready."""
    with project.tx() as session:
        case = get_case(session, case_id)
        adjudicator(session, actor, case, "green-lighting")
        review = review_in(session, case)
        if case.state == CaseState.GREEN_LIT.value:
            return review
        if review.blockers:
            raise StateError(f"{case_id} cannot be green-lit: " + "; ".join(review.blockers))
        _ensure_detected(session, case)
        case.state = CaseState.GREEN_LIT.value
        case.green_lit_by = actor
        case.green_lit_at = utcnow()
        record(session, actor, "green_lit", case_pk=case.id, before="in_review", after="green_lit")
        session.flush()
        return review_in(session, case)


def exclude(
    project: Project, actor: str, case_id: str, reason: str, code: str = "irresolvable"
) -> None:
    """Exclude a case (irresolvable, unusable); it stays out of the release with its reason."""
    if not reason.strip():
        raise ValidationError("excluding a case needs a reason")
    with project.tx() as session:
        case = get_case(session, case_id)
        adjudicator(session, actor, case, "excluding a case")
        if case.state == CaseState.EXCLUDED.value:
            raise StateError(f"{case_id} is already excluded: {case.state_reason}")
        _ensure_detected(session, case)  # the conflicts it leaves behind are listed as moot
        _exclude(session, case, actor, reason, code)


def _exclude(session: Session, case: Case, actor: str, reason: str, code: str = "") -> None:
    if case.state == CaseState.GREEN_LIT.value:
        revoke(session, case, actor, "case excluded")
    record(
        session,
        actor,
        "excluded",
        case_pk=case.id,
        before=case.state,
        after="excluded",
        reason=reason,
        code=code or "discard_upheld",
    )
    case.state = CaseState.EXCLUDED.value
    case.state_reason = reason
    case.updated_at = utcnow()


def revoke(session: Session, case: Case, actor: str, why: str) -> None:
    """Withdraw the case's green light (recorded in the history)."""
    from annotator.services.caseflow import revoke_green_light

    revoke_green_light(session, case, actor, why)


def demo_adjudicate(project: Project, adjudicator: str, case_ids: list[str]) -> None:
    """Decide every open conflict of the cases the way ``review --decide`` does, then green-light.

    Defined in :mod:`annotator.services.review_actions`; re-exported for the demo script.
    """
    from annotator.services.review_actions import demo_adjudicate as run

    run(project, adjudicator, case_ids)
