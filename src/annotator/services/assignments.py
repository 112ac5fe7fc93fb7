"""Assigning cases to annotators: k per case, balanced, with quotas; reassignment.

Calibration (issue 26): every assign (cases, SME items, judged outputs) also gives each rater
who is in calibration (``store/calibration.py``: set by the curator, or for their first N
items) the calibration items of that kind they do not hold yet, on top of their balanced
share; their queues put those items first.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.domain.states import AnnotationState, CaseState
from annotator.errors import ValidationError
from annotator.services.users import get_user, require, require_takes_work, takes_work
from annotator.store.calibration import calibration_refs, in_calibration
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import Annotation, Case, RatedWork, User, utcnow

W = TypeVar("W", bound=RatedWork)
T = TypeVar("T")


@dataclass
class AssignReport:
    assigned: list[tuple[str, str]] = field(default_factory=list)  # (case_id, annotator)
    short: list[tuple[str, int]] = field(default_factory=list)  # (case_id, annotators missing)

    @property
    def count(self) -> int:
        return len(self.assigned)


def _annotators(session: Session) -> list[User]:
    users = session.scalars(select(User).order_by(User.name))
    return [u for u in users if takes_work(u)]


def reviewers_or_refuse(session: Session, what: str) -> list[User]:
    """Every annotator, by name; ValidationError when there is nobody to give ``what`` to."""
    people = _annotators(session)
    if not people:
        raise ValidationError(f"no annotators to assign {what} to")
    return people


def top_up(
    people: list[User], per_item: int, taken: set[uuid.UUID], load: Counter[uuid.UUID]
) -> list[User]:
    """Who joins an item so it has ``per_item`` reviewers: least loaded first, then by name.

    The one balancing rule of SME items and judged outputs (cases add quotas to it);
    ``taken`` and ``load`` are updated with the people returned.
    """
    chosen: list[User] = []
    for user in sorted(people, key=lambda u: (load[u.id], u.name)):
        if len(taken) >= per_item:
            break
        if user.id not in taken:
            chosen.append(user)
            taken.add(user.id)
            load[user.id] += 1
    return chosen


def raters_so_far(
    rows: Sequence[W], item_of: Callable[[W], uuid.UUID]
) -> tuple[Counter[uuid.UUID], dict[uuid.UUID, set[uuid.UUID]]]:
    """From the rows of rated work there are: each rater's load, and each item's raters (by
    ``item_of``), as :func:`top_up` takes them."""
    load = Counter(r.rater_id for r in rows)
    have: dict[uuid.UUID, set[uuid.UUID]] = {}
    for r in rows:
        have.setdefault(item_of(r), set()).add(r.rater_id)
    return load, have


def calibration_gaps(
    session: Session,
    kind: str,
    people: Sequence[User],
    items: Sequence[tuple[T, uuid.UUID, str]],
    have: dict[uuid.UUID, set[uuid.UUID]],
) -> list[tuple[T, User]]:
    """The calibration items each rater in calibration is still to be given: (item, rater).

    ``items`` are the items open to rating now as (item, its key in ``have``, its reference
    as ``quality_items`` names it); ``have`` holds every item's raters (any row, a withdrawn
    one too: a calibration item once taken away is not given back) and is updated. These
    come on top of the balanced share: callers place them after :func:`top_up`'s.
    """
    refs = calibration_refs(session, kind)
    if not refs:
        return []
    learners = [u for u in people if in_calibration(session, u)]
    gaps: list[tuple[T, User]] = []
    for item, key, ref in items:
        if ref not in refs:
            continue
        taken = have.setdefault(key, set())
        for user in learners:
            if user.id not in taken:
                taken.add(user.id)
                gaps.append((item, user))
    return gaps


def _place(
    session: Session,
    actor: str,
    case: Case,
    user: User,
    existing: dict[tuple[uuid.UUID, uuid.UUID], Annotation],
) -> None:
    """Create (or reactivate) the annotation of ``user`` on ``case``."""
    old = existing.get((case.id, user.id))
    if old is not None:
        old.withdrawn_at = None
        annotation = old
    else:
        assert case.current_revision_id is not None
        annotation = Annotation(
            case_pk=case.id,
            annotator_id=user.id,
            revision_id=case.current_revision_id,
            state=AnnotationState.ASSIGNED.value,
            labels={},
        )
        session.add(annotation)
        session.flush()
    _recorded(session, actor, "assigned", annotation, after={"annotator": user.name})


@dataclass(frozen=True)
class BalanceRow:
    """One annotator's load: active assignments now, those the plan adds, and the total."""

    annotator: str
    now: int
    new: int
    quota: int | None

    @property
    def total(self) -> int:
        return self.now + self.new


@dataclass
class AssignPlan:
    """What ``assign`` would do: the placements, the cases left short, everyone's balance."""

    assigned: list[tuple[str, str]] = field(default_factory=list)  # (case_id, annotator)
    short: list[tuple[str, int]] = field(default_factory=list)
    balance: list[BalanceRow] = field(default_factory=list)
    # The calibration items among ``assigned``, given to raters in calibration on top of
    # their balanced share.
    calibration: list[tuple[str, str]] = field(default_factory=list)

    HEADERS = ("annotator", "assigned now", "new", "total", "quota")

    def rows(self) -> list[tuple[str, str, str, str, str]]:
        """The balance table (the command line prints it, the app shows it), by name."""
        return [(b.annotator, str(b.now), str(b.new), str(b.total),
                 "-" if b.quota is None else str(b.quota)) for b in self.balance]

    def lines(self) -> list[str]:
        """The plan as text: the balance table, the cases left short, a closing count."""
        table = [self.HEADERS, *self.rows()]
        widths = [max(len(row[i]) for row in table) for i in range(len(self.HEADERS))]
        out = ["  ".join(cell.ljust(w) if i == 0 else cell.rjust(w)
                         for i, (cell, w) in enumerate(zip(row, widths, strict=True))).rstrip()
               for row in table]
        out += [f"{case_id}: {missing} annotator(s) short (not enough annotators or quota)"
                for case_id, missing in self.short]
        out += [f"{case_id}: calibration item for {name} (in calibration; on top of the share)"
                for case_id, name in self.calibration]
        cases = len({case_id for case_id, _ in self.assigned})
        out.append(f"would make {len(self.assigned)} assignment(s) on {cases} case(s)")
        return out


def _plan(
    session: Session, per_case: int, quotas: dict[str, int], case_ids: list[str] | None
) -> tuple[AssignPlan, list[tuple[Case, User]], dict[tuple[uuid.UUID, uuid.UUID], Annotation]]:
    """The placements ``assign`` makes, computed without writing anything."""
    annotators = _annotators(session)
    unknown = set(quotas) - {u.name for u in annotators}
    if unknown:
        raise ValidationError(f"quota for unknown annotator(s): {', '.join(sorted(unknown))}")
    all_rows = list(session.scalars(select(Annotation)))
    existing = {(a.case_pk, a.annotator_id): a for a in all_rows}
    active = [a for a in all_rows if a.withdrawn_at is None]
    load = Counter(a.annotator_id for a in active)
    before = Counter(load)
    on_case: dict[uuid.UUID, set[uuid.UUID]] = {}
    for a in active:
        on_case.setdefault(a.case_pk, set()).add(a.annotator_id)
    plan = AssignPlan()
    placements: list[tuple[Case, User]] = []
    query = select(Case).where(Case.state == CaseState.ANNOTATING.value).order_by(Case.case_id)
    if case_ids is not None:
        query = query.where(Case.case_id.in_(case_ids))
    cases = list(session.scalars(query))
    for case in cases:
        have = on_case.setdefault(case.id, set())
        need = per_case - len(have)
        while need > 0:
            candidates = [
                u
                for u in annotators
                if u.id not in have and load[u.id] < quotas.get(u.name, 10**9)
            ]
            if not candidates:
                plan.short.append((case.case_id, need))
                break
            chosen = min(candidates, key=lambda u: (load[u.id], u.name))
            placements.append((case, chosen))
            have.add(chosen.id)
            load[chosen.id] += 1
            plan.assigned.append((case.case_id, chosen.name))
            need -= 1
    # Calibration cases for raters in calibration, on top of the share (never on a case in
    # review or later: only annotating cases take raters). A withdrawn row counts as had.
    held = {case_pk: set(raters) for case_pk, raters in on_case.items()}
    for a in all_rows:
        held.setdefault(a.case_pk, set()).add(a.annotator_id)
    for case, user in calibration_gaps(
        session, "case", annotators, [(c, c.id, c.case_id) for c in cases], held
    ):
        placements.append((case, user))
        load[user.id] += 1
        plan.assigned.append((case.case_id, user.name))
        plan.calibration.append((case.case_id, user.name))
    plan.balance = [BalanceRow(u.name, before[u.id], load[u.id] - before[u.id],
                               quotas.get(u.name)) for u in annotators]
    return plan, placements, existing


def plan_assignment(
    project: Project,
    actor: str,
    per_case: int = 2,
    *,
    quotas: dict[str, int] | None = None,
    case_ids: list[str] | None = None,
) -> AssignPlan:
    """What :func:`assign` with the same arguments would do, without writing (``--dry-run``)."""
    if per_case < 1:
        raise ValidationError("--per-case must be at least 1")
    with project.read() as session:
        require(session, actor, Action.ASSIGN_CASES)
        return _plan(session, per_case, quotas or {}, case_ids)[0]


def assign(
    project: Project,
    actor: str,
    per_case: int = 2,
    *,
    quotas: dict[str, int] | None = None,
    case_ids: list[str] | None = None,
) -> AssignReport:
    """Give every annotating case ``per_case`` annotators, least-loaded first.

    Already assigned annotators count towards k; a quota caps a person's total active
    assignments. Ties are broken by name so the result is reproducible. The placements are
    :func:`plan_assignment`'s, so a dry run shows exactly what this writes.
    """
    if per_case < 1:
        raise ValidationError("--per-case must be at least 1")
    report = AssignReport()
    with project.tx() as session:
        require(session, actor, Action.ASSIGN_CASES)
        plan, placements, existing = _plan(session, per_case, quotas or {}, case_ids)
        for case, user in placements:
            _place(session, actor, case, user, existing)
        report.assigned, report.short = plan.assigned, plan.short
    return report


def reassign(
    project: Project, actor: str, from_name: str, to_name: str | None = None
) -> AssignReport:
    """Move someone's open (not submitted) cases to another annotator, or rebalance them.

    The withdrawn annotation keeps its labels and history (nothing is lost); the case gets
    a fresh annotation from the new person.
    """
    report = AssignReport()
    with project.tx() as session:
        require(session, actor, Action.ASSIGN_CASES)
        source = get_user(session, from_name)
        target = get_user(session, to_name) if to_name else None
        if target is not None:
            require_takes_work(target)
        open_rows = session.scalars(
            select(Annotation).where(
                Annotation.annotator_id == source.id,
                Annotation.withdrawn_at.is_(None),
                Annotation.state != AnnotationState.SUBMITTED.value,
            )
        )
        all_rows = list(session.scalars(select(Annotation)))
        existing = {(a.case_pk, a.annotator_id): a for a in all_rows}
        load = Counter(a.annotator_id for a in all_rows if a.withdrawn_at is None)
        annotators = [u for u in _annotators(session) if u.id != source.id]
        for annotation in list(open_rows):
            case = session.get(Case, annotation.case_pk)
            assert case is not None
            on_case = {
                a.annotator_id for a in all_rows if a.case_pk == case.id and a.withdrawn_at is None
            }
            annotation.withdrawn_at = utcnow()
            _recorded(session, actor, "withdrawn", annotation, before={"annotator": source.name})
            pool = [target] if target is not None else annotators
            candidates = [u for u in pool if u.id not in on_case]
            if not candidates:
                report.short.append((case.case_id, 1))
                continue
            chosen = min(candidates, key=lambda u: (load[u.id], u.name))
            _place(session, actor, case, chosen, existing)
            load[chosen.id] += 1
            report.assigned.append((case.case_id, chosen.name))
    return report


def _recorded(
    session: Session, actor: str, action: str, annotation: Annotation, **change: Any
) -> None:
    """The history entry of one assignment change, on the annotation it changes."""
    record(session, actor, action, case_pk=annotation.case_pk, annotation_id=annotation.id,
           **change)
