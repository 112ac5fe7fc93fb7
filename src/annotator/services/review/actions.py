"""Adjudicator actions on many items or cases: decisions by letter, bulk work, the split.

``decide_value`` is the one path for a decision given as text (``review --decide``, the
page's letter keys, the demo script): a reviewer letter means that reviewer's value.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.case import canonical_json
from annotator.domain.permissions import Action, may
from annotator.domain.states import CaseState
from annotator.errors import AnnotatorError, PermissionDenied, ValidationError
from annotator.review.decision_values import parse_value
from annotator.review.disagreement import BULK_TYPES
from annotator.services.review import base, decisions
from annotator.services.review.detect import detected_items, sync_case
from annotator.services.review.queue import case_queue, list_items
from annotator.services.users import get_user, require_user
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import ReviewRecord, User

DEMO_REASON = ("clinical_judgement", "Decided on the images and the protocol (demo script).")


@dataclass
class BulkOutcome:
    """What a bulk action did, and why it skipped what it skipped."""

    done: list[str] = field(default_factory=list)
    skipped: dict[str, str] = field(default_factory=dict)


def item_values(project: Project, reader: str, case_id: str, key: str) -> dict[str, object]:
    """Reviewer letter -> value of one item (recording the detection if it is missing)."""
    with project.tx() as session:
        require_user(session, reader, Action.READ_OTHERS_WORK)
        case = base.get_case(session, case_id)
        sync_case(session, case)
        for row in detected_items(session, case):
            if row.key == key:
                return dict(row.by_letter)
    return {}


def decide_value(
    project: Project,
    actor: str,
    case_id: str,
    key: str,
    value_text: str,
    reason_code: str,
    reason_text: str = "",
) -> base.CaseReview:
    """Decide ``key`` from text: a reviewer letter (their value), JSON, or a bare word."""
    value = parse_value(value_text, item_values(project, actor, case_id, key))
    return decisions.decide(project, actor, case_id, key, value, reason_code, reason_text)


def bulk_decide(
    project: Project,
    actor: str,
    value: str,
    reason_code: str,
    reason_text: str = "",
    *,
    disagreement: str = "optional_vs_unnecessary",
    case_ids: list[str] | None = None,
) -> BulkOutcome:
    """Give every open conflict of a bulk-resolvable type the same value, with one reason."""
    if disagreement not in BULK_TYPES:
        raise ValidationError(f"only {', '.join(BULK_TYPES)} conflicts are resolved in bulk")
    if value not in disagreement.split("_vs_"):
        raise ValidationError(f"{disagreement}: the value must be one of the two sides")
    outcome = BulkOutcome()
    for item in list_items(project, actor, only_open=True, case_ids=case_ids):
        if item.disagreement != disagreement:
            continue
        where = f"{item.case_id} {item.key}"
        try:
            decisions.decide(
                project, actor, item.case_id, item.key, value, reason_code, reason_text
            )
        except PermissionDenied as exc:
            outcome.skipped[where] = str(exc)
            continue
        outcome.done.append(where)
    return outcome


def green_light_unanimous(
    project: Project, actor: str, case_ids: list[str] | None = None
) -> BulkOutcome:
    """Green-light every case in review on which the reviewers agreed on everything."""
    outcome = BulkOutcome()
    for entry in case_queue(project, actor):
        if entry.state != CaseState.IN_REVIEW.value:
            continue
        if case_ids is not None and entry.case_id not in case_ids:
            continue
        conflicts = list_items(project, actor, case_ids=[entry.case_id])
        if conflicts:
            outcome.skipped[entry.case_id] = f"{len(conflicts)} conflict(s): not unanimous"
            continue
        try:
            decisions.green_light(project, actor, entry.case_id)
        except AnnotatorError as exc:
            outcome.skipped[entry.case_id] = str(exc)
            continue
        outcome.done.append(entry.case_id)
    return outcome


def _adjudicators(session: Session, names: list[str] | None) -> list[User]:
    """The named users, or every adjudicator; each must hold the adjudicator role."""
    users = (
        [get_user(session, n) for n in names]
        if names
        else [
            u
            for u in session.scalars(select(User).order_by(User.name))
            if may(u.role_names, Action.ADJUDICATE_CASES)
        ]
    )
    if not users or any(not may(u.role_names, Action.ADJUDICATE_CASES) for u in users):
        raise ValidationError("split among users with the adjudicator role")
    return users


def split_cases(
    project: Project, actor: str, adjudicators: list[str] | None = None
) -> dict[str, list[str]]:
    """Share the unassigned cases in review among adjudicators, balanced by current load.

    Nobody receives a case they annotated; a case nobody may take stays unassigned.
    """
    with project.tx() as session:
        require_user(session, actor, Action.SPLIT_REVIEW)
        users = _adjudicators(session, adjudicators)
        names = [u.name for u in users]
    entries = [e for e in case_queue(project, actor) if e.state == CaseState.IN_REVIEW.value]
    load = {n: sum(1 for e in entries if e.adjudicator == n) for n in names}
    given: dict[str, list[str]] = {n: [] for n in names}
    with project.tx() as session:
        for entry in entries:
            if entry.adjudicator is not None:
                continue
            case = base.get_case(session, entry.case_id)
            eligible = [u for u in users if base.own_case_reason(session, u, case) is None]
            if not eligible:
                continue
            chosen = min(eligible, key=lambda u: (load[u.name], u.name)).name
            load[chosen] += 1
            given[chosen].append(entry.case_id)
            row = session.get(ReviewRecord, case.id)
            assert row is not None
            row.adjudicator = chosen
            record(session, actor, "review_assigned", case_pk=case.id, after=chosen)
    return given


def demo_adjudicate(project: Project, adjudicator: str, case_ids: list[str]) -> None:
    """Decide every open conflict of the cases as ``review --decide`` does, then green-light.

    The demo senior takes a reviewer's value by letter (varied but deterministic per item)
    and always keeps a disputed case (a discard conflict is decided as "keep").
    """
    for case_id in case_ids:
        for item in list_items(project, adjudicator, only_open=True, case_ids=[case_id]):
            letters = sorted(item.values)
            if item.family == "discard":
                keep = [letter for letter in letters if item.values[letter] is None]
                letter = (keep or letters)[0]
            else:
                # Chosen by value, not by letter: letters are shuffled per build, and the
                # demo must end the same on every back end.
                by_value = sorted(letters, key=lambda x: (canonical_json(item.values[x]), x))
                letter = by_value[sum(map(ord, item.key)) % len(by_value)]
            decide_value(project, adjudicator, case_id, item.key, letter, *DEMO_REASON)
        if base.review_case(project, case_id).state == CaseState.IN_REVIEW.value:
            decisions.green_light(project, adjudicator, case_id)
