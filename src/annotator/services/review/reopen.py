"""Taking a decision back: reopening an adjudication and reinstating an excluded case.

Both are adjudicator actions recorded in the history (``adjudication_reopened``,
``case_reinstated``); both revoke a green light, and reopening an upheld discard brings the
case back into review.
"""

from __future__ import annotations

from sqlalchemy.orm import Session

from annotator.domain.states import CaseState
from annotator.errors import StateError, ValidationError
from annotator.services.review.base import active_annotations, adjudicator, decision_rows, get_case
from annotator.services.review.decisions import revoke
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import Case, utcnow


def reopen_decision(project: Project, actor: str, case_id: str, key: str, reason: str) -> None:
    """Withdraw a decision so the item is open (or auto-resolved) again; revokes a green light.

    Reopening an upheld discard brings the case back into review.
    """
    if not reason.strip():
        raise ValidationError("reopening a decision needs a reason")
    with project.tx() as session:
        case = get_case(session, case_id)
        adjudicator(session, actor, case, "reopening a decision")
        row = decision_rows(session, case).get(key)
        if row is None:
            raise StateError(f"{case_id}: {key} has no decision to reopen")
        if case.state == CaseState.EXCLUDED.value and key != "discard":
            raise StateError(f"{case_id} is excluded; reinstate it first")
        row.superseded = True
        record(
            session,
            actor,
            "adjudication_reopened",
            case_pk=case.id,
            key=key,
            before=row.value,
            reason=reason,
        )
        if case.state == CaseState.GREEN_LIT.value:
            revoke(session, case, actor, f"decision on {key} reopened")
        if case.state == CaseState.EXCLUDED.value:
            _reinstate(session, case, actor, reason)


def reinstate(project: Project, actor: str, case_id: str, reason: str) -> None:
    """Bring an excluded case back into review (its undecided conflicts open again)."""
    if not reason.strip():
        raise ValidationError("reinstating a case needs a reason")
    with project.tx() as session:
        case = get_case(session, case_id)
        adjudicator(session, actor, case, "reinstating a case")
        if case.state != CaseState.EXCLUDED.value:
            raise StateError(f"{case_id} is {case.state}, not excluded")
        upheld = decision_rows(session, case).get("discard")
        if upheld is not None and upheld.value is not None:
            upheld.superseded = True
            record(
                session,
                actor,
                "adjudication_reopened",
                case_pk=case.id,
                key="discard",
                before=upheld.value,
                reason=reason,
            )
        _reinstate(session, case, actor, reason)


def _reinstate(session: Session, case: Case, actor: str, reason: str) -> None:
    states = [a.state for a in active_annotations(session, case)]
    submitted = bool(states) and all(s == "submitted" for s in states)
    after = CaseState.IN_REVIEW.value if submitted else CaseState.ANNOTATING.value
    record(
        session,
        actor,
        "case_reinstated",
        case_pk=case.id,
        before=case.state,
        after=after,
        reason=reason,
    )
    case.state = after
    case.state_reason = None
    case.updated_at = utcnow()
