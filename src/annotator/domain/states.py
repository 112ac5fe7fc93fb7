"""The one state model of cases and annotations (see docs/states.md).

Pure rules: the services ask these functions whether a transition is allowed and apply it.
"""

from __future__ import annotations

from collections.abc import Iterable
from enum import StrEnum


class Role(StrEnum):
    ANNOTATOR = "annotator"
    ADJUDICATOR = "adjudicator"
    CURATOR = "curator"


class AnnotationState(StrEnum):
    ASSIGNED = "assigned"
    IN_PROGRESS = "in_progress"
    SUBMITTED = "submitted"


class CaseState(StrEnum):
    ANNOTATING = "annotating"
    IN_REVIEW = "in_review"
    GREEN_LIT = "green_lit"
    EXCLUDED = "excluded"


ROLES = tuple(r.value for r in Role)
ANNOTATION_STATES = tuple(s.value for s in AnnotationState)
CASE_STATES = tuple(s.value for s in CaseState)
# The state filter of the SME and judge queues (id -> label): a rater's own work item.
QUEUE_STATES: dict[str, str] = {
    "assigned": "Not started",
    "in_progress": "In progress",
    "submitted": "Submitted",
    "needs_recheck": "Needs re-check",
}


def queue_state(state: str, needs_recheck: bool) -> str:
    """A rater's item in the queue's words: re-check first, else its stored state."""
    return "needs_recheck" if needs_recheck else state


def case_state_after_submissions(current: CaseState, annotation_states: Iterable[str]) -> CaseState:
    """The case state implied by its active annotations' states.

    A case enters review automatically when every assigned annotation is submitted, and goes
    back to annotating when one of them is reopened or returned for re-check. Green-lit and
    excluded cases are changed only by explicit actions, except that a reopened annotation
    revokes a green light (handled by the caller, which records the revocation).
    """
    states = list(annotation_states)
    if current is CaseState.EXCLUDED:
        return current
    all_submitted = bool(states) and all(s == AnnotationState.SUBMITTED for s in states)
    if all_submitted:
        return CaseState.GREEN_LIT if current is CaseState.GREEN_LIT else CaseState.IN_REVIEW
    return CaseState.ANNOTATING


def can_reopen(annotation_state: str, case_state: str, decisions_on_case: int) -> str | None:
    """Why a submitted annotation may not be reopened, or None when it may.

    Reopening is allowed until the first adjudication decision on the case; after that the
    annotations are locked (the adjudicated values depend on them).
    """
    if annotation_state != AnnotationState.SUBMITTED:
        return "only a submitted annotation can be reopened"
    if case_state == CaseState.EXCLUDED:
        return "the case is excluded"
    if decisions_on_case > 0:
        return "the case already has an adjudication decision; annotations are locked"
    return None


def can_edit(annotation_state: str, case_state: str) -> str | None:
    """Why an annotation may not be edited now, or None when it may."""
    if annotation_state == AnnotationState.SUBMITTED:
        return "the annotation is submitted; reopen it to change it"
    if case_state == CaseState.EXCLUDED:
        return "the case is excluded"
    return None

# The history actions an annotator's own edits write on their annotation (services.annotating,
# services.workspace_state): all a package may carry. A green light, a decision or a state
# change is made at the curator's, never arrives in a package.
ANNOTATOR_ACTIONS = frozenset({"label", "accept_suggestion", "active_time", "submitted",
                               "reopened"})
