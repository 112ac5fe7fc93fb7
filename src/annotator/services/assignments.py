"""Assigning cases to annotators: k per case, balanced, with quotas; reassignment."""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.domain.states import AnnotationState, CaseState
from annotator.errors import ValidationError
from annotator.services.users import get_user, require, require_takes_work, takes_work
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import Annotation, Case, User, utcnow


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
    record(
        session,
        actor,
        "assigned",
        case_pk=case.id,
        annotation_id=annotation.id,
        after={"annotator": user.name},
    )


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
    assignments. Ties are broken by name so the result is reproducible.
    """
    if per_case < 1:
        raise ValidationError("--per-case must be at least 1")
    quotas = quotas or {}
    report = AssignReport()
    with project.tx() as session:
        require(session, actor, Action.ASSIGN_CASES)
        annotators = _annotators(session)
        unknown = set(quotas) - {u.name for u in annotators}
        if unknown:
            raise ValidationError(f"quota for unknown annotator(s): {', '.join(sorted(unknown))}")
        all_rows = list(session.scalars(select(Annotation)))
        existing = {(a.case_pk, a.annotator_id): a for a in all_rows}
        active = [a for a in all_rows if a.withdrawn_at is None]
        load = Counter(a.annotator_id for a in active)
        on_case: dict[object, set[object]] = {}
        for a in active:
            on_case.setdefault(a.case_pk, set()).add(a.annotator_id)
        query = select(Case).where(Case.state == CaseState.ANNOTATING.value).order_by(Case.case_id)
        if case_ids is not None:
            query = query.where(Case.case_id.in_(case_ids))
        for case in session.scalars(query):
            have = on_case.setdefault(case.id, set())
            need = per_case - len(have)
            while need > 0:
                candidates = [
                    u
                    for u in annotators
                    if u.id not in have and load[u.id] < quotas.get(u.name, 10**9)
                ]
                if not candidates:
                    report.short.append((case.case_id, need))
                    break
                chosen = min(candidates, key=lambda u: (load[u.id], u.name))
                _place(session, actor, case, chosen, existing)
                have.add(chosen.id)
                load[chosen.id] += 1
                report.assigned.append((case.case_id, chosen.name))
                need -= 1
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
            record(
                session,
                actor,
                "withdrawn",
                case_pk=case.id,
                annotation_id=annotation.id,
                before={"annotator": source.name},
            )
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
