"""Case-level state changes shared by several services."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from annotator.domain.states import CaseState, case_state_after_submissions
from annotator.services.rating import reopen_work
from annotator.services.review.detect import on_enter_review
from annotator.store.db_roles import item_states, reads_others
from annotator.store.history import record
from annotator.store.schema import Annotation, Case, utcnow


def send_for_recheck(
    session: Session, case: Case, annotation: Annotation, actor: str, revision: int, **detail: Any
) -> None:
    """Return an annotation to ``in_progress`` for re-check against draft revision ``revision``."""
    reopen_work(annotation, recheck=True)
    record(session, actor, "recheck", case_pk=case.id, annotation_id=annotation.id,
           after={"revision": revision}, **detail)


def lock_case(session: Session, case: Case) -> None:
    """Hold the case's row lock to the end of the transaction, with its state read afresh.

    A state that depends on other rows (every annotation submitted -> in review) must be
    decided by one transaction at a time: two annotators submitting at once on PostgreSQL
    each saw only their own submission and left the case in ``annotating`` (write skew).
    ``SELECT ... FOR UPDATE`` queues the second until the first commits; READ COMMITTED then
    shows it the first one's rows. SQLite needs nothing: BEGIN IMMEDIATE already serialises
    writers.
    """
    if session.get_bind().dialect.name == "sqlite":
        return
    if case in session.dirty:
        session.flush()  # the UPDATE takes the row lock; a stale version raises here
    session.refresh(case, with_for_update=True)


def refresh_case_state(session: Session, case: Case, actor: str) -> str:
    """Move the case to the state its annotations imply; record and revoke as needed."""
    lock_case(session, case)
    # On a walled store a rater reads only their own row: the database gives the states.
    states = item_states(session, "case", case.id)
    new = case_state_after_submissions(CaseState(case.state), states)
    if new.value != case.state:
        before = case.state
        if before == CaseState.GREEN_LIT.value:
            revoke_green_light(session, case, actor, "an annotation was reopened")
        case.state = new.value
        case.updated_at = utcnow()
        record(session, actor, "case_state", case_pk=case.id, before=before, after=new.value)
        if new is CaseState.IN_REVIEW:
            # Conflicts and reviewer letters are recorded the moment a case enters review.
            session.flush()
            if reads_others(session):  # else detected when a senior opens the queue
                on_enter_review(session, case)
    return case.state


def revoke_green_light(session: Session, case: Case, actor: str, why: str) -> None:
    """Withdraw a green light (any change touching a green-lit case does this)."""
    if case.state != CaseState.GREEN_LIT.value and case.green_lit_at is None:
        return
    record(session, actor, "green_light_revoked", case_pk=case.id,
           before={"by": case.green_lit_by}, reason=why)
    case.green_lit_at = None
    case.green_lit_by = None
    if case.state == CaseState.GREEN_LIT.value:
        case.state = CaseState.IN_REVIEW.value
