"""Adjudication, exclusion and the green light (the adjudicator's actions on a case).

Every action is recorded in the append-only history: ``adjudicated`` (a conflict decided),
``overridden`` (an auto-resolution replaced), ``green_lit``, ``green_light_revoked``,
``excluded``; reopening decisions and reinstating excluded cases live in
:mod:`annotator.services.review.reopen`.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from sqlalchemy.orm import Session

from annotator.domain.states import CaseState
from annotator.domain.suggestions import figures
from annotator.errors import StateError, ValidationError
from annotator.review.decision_values import validate_decision
from annotator.review.items import case_items
from annotator.services.pixel_status import unresolved
from annotator.services.rating.engine import supersede
from annotator.services.review.base import (
    REVIEW_STATES,
    CaseReview,
    adjudicator,
    current_content,
    decision_rows,
    get_case,
    reason_codes,
    review_in,
    submitted_labels,
)
from annotator.services.review.caseflow import revoke_green_light
from annotator.services.review.detect import sync_case
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import Adjudication, Case, utcnow


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
        sync_case(session, case)
        content = current_content(session, case)
        items = {i.key: i for i in case_items(content, submitted_labels(session, case))}
        if key not in items:
            known = ", ".join(list(items)[:12]) + (", ..." if len(items) > 12 else "")
            raise ValidationError(f"{case_id} has no item {key!r} (its items: {known})")
        value = validate_decision(key, value, figures(content))
        previous = decision_rows(session, case).get(key)
        supersede(session, Adjudication, Adjudication.case_pk == case.id, key)
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
        sync_case(session, case)
        case.state = CaseState.GREEN_LIT.value
        case.green_lit_by = actor
        case.green_lit_at = utcnow()
        record(session, actor, "green_lit", case_pk=case.id, before="in_review", after="green_lit")
        session.flush()
        result = review_in(session, case)
        # Export refuses these images until a curator reviews them; say so now.
        pending = [p.describe() for p in unresolved(session, [case_id])]
        return dataclasses.replace(result, warnings=[*result.warnings, *pending])


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
        sync_case(session, case)  # the conflicts it leaves behind are listed as moot
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
    revoke_green_light(session, case, actor, why)
