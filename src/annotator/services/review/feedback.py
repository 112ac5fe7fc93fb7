"""Feedback to annotators: where their submitted labels differ from the final values, and why.

Addressed by (annotator, case) like every annotator operation, and it never says who the
other annotators were or what they chose: only the annotator's own value, the final value
and the adjudicator's reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from annotator.domain.states import CaseState
from annotator.errors import NotFound, StateError
from annotator.review.conflicts import item_label
from annotator.review.final import final_values
from annotator.review.items import case_items, same_value
from annotator.services.review.base import (
    current_content,
    decision_rows,
    get_case,
    submitted_labels,
)
from annotator.services.users import get_user
from annotator.store.project import Project
from annotator.store.schema import Annotation, Case


@dataclass(frozen=True)
class FeedbackItem:
    key: str
    label: str
    yours: Any
    final: Any
    reason_code: str | None  # None when no adjudicator decided it (e.g. the case was excluded)
    reason_text: str


@dataclass(frozen=True)
class CaseFeedback:
    case_id: str
    state: str
    items: list[FeedbackItem]  # empty: every label of yours is the final value
    exclusion: str | None  # the reason when the case left the release


def _decided(state: str, open_conflicts: int) -> bool:
    return state in (CaseState.GREEN_LIT.value, CaseState.EXCLUDED.value) or (
        state == CaseState.IN_REVIEW.value and open_conflicts == 0
    )


def feedback(project: Project, annotator: str, case_id: str) -> CaseFeedback:
    """The annotator's own feedback on a decided case; StateError while it is undecided."""
    with project.read() as session:
        user = get_user(session, annotator)
        case = get_case(session, case_id)
        return _feedback(session, case, str(user.id), annotator)


def _feedback(session: Any, case: Case, annotator_id: str, name: str) -> CaseFeedback:
    submitted = submitted_labels(session, case)
    if annotator_id not in submitted:
        raise NotFound(f"{name} has no submitted annotation of case {case.case_id}")
    content = current_content(session, case)
    rows = decision_rows(session, case)
    final = final_values(content, submitted, {k: r.value for k, r in rows.items()})
    if not _decided(case.state, len(final.open)):
        raise StateError(f"{case.case_id} is not decided yet; feedback follows the decisions")
    items: list[FeedbackItem] = []
    for item in case_items(content, submitted):
        if annotator_id not in item.values or item.key not in final.values:
            continue
        yours, chosen = item.values[annotator_id], final.values[item.key]
        if same_value(item.key, yours, chosen):
            continue
        row = rows.get(item.key)
        items.append(
            FeedbackItem(
                key=item.key,
                label=item_label(item.key),
                yours=yours,
                final=chosen,
                reason_code=row.reason_code if row is not None else None,
                reason_text=row.reason_text if row is not None else "",
            )
        )
    exclusion = case.state_reason if case.state == CaseState.EXCLUDED.value else None
    return CaseFeedback(case.case_id, case.state, items, exclusion)


def my_feedback(project: Project, annotator: str) -> list[CaseFeedback]:
    """Feedback on every decided case the annotator submitted (undecided ones are left out)."""
    with project.read() as session:
        user = get_user(session, annotator)
        cases = session.scalars(
            select(Case)
            .join(Annotation, Annotation.case_pk == Case.id)
            .where(Annotation.annotator_id == user.id, Annotation.withdrawn_at.is_(None))
            .order_by(Case.case_id)
        )
        found = []
        for case in cases:
            try:
                found.append(_feedback(session, case, str(user.id), annotator))
            except (StateError, NotFound):
                continue
        return found
