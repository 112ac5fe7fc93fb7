"""Hidden repeats: a sample of a rater's own submitted items served to them again later.

A repeat is its own row of rated work (``repeat_of`` names the first, ``repeat_no`` counts
from 1, ``due_at`` is when it is served). Once due, the rater's own view of the item is the
repeat (an empty, assigned row, exactly as a new assignment looks); before, and for everyone
else, the first row stands. Every query that does not ask for repeats never sees one
(:mod:`annotator.store.repeats`), so agreement, conflicts, adjudication, a case's state and
the release are computed on first ratings only; the quality report pairs (first, repeat).
"""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.domain.states import CaseState
from annotator.errors import ValidationError
from annotator.services.users import require
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.repeats import WITH_REPEATS
from annotator.store.schema import Annotation, Case, RatedWork, User, utcnow

# The columns that say which item a row rates, per kind (copied onto a repeat).
ITEM_COLUMNS: dict[str, tuple[str, ...]] = {
    "case": ("case_pk", "revision_id"),
    "sme": ("task_id", "benchmark_version"),
    "judge": ("item_id", "source"),
}
MODEL: dict[str, type[RatedWork]] = {
    cls.__mapper__.polymorphic_identity: cls  # type: ignore[misc]
    for cls in RatedWork.__subclasses__()
}


@dataclass
class RepeatReport:
    """Repeats added by one call: (rater, first row's id, due)."""

    added: list[tuple[str, str, str]] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.added)


def check_rate(rate: float | None, after_days: float | None) -> None:
    """One-line refusals of a bad ``--repeat-rate`` / ``--repeat-after``."""
    if rate is None:
        if after_days is not None:
            raise ValidationError("--repeat-after needs --repeat-rate")
        return
    if not 0 < rate <= 1:
        raise ValidationError("--repeat-rate must be more than 0 and at most 1")
    if after_days is not None and after_days < 0:
        raise ValidationError("--repeat-after must be 0 or more days")


def add_repeats(
    project: Project,
    actor: str,
    kind: str,
    rate: float,
    after_days: float = 14.0,
    *,
    seed: int = 0,
) -> RepeatReport:
    """Give each rater repeats of ``rate`` of their submitted, not yet repeated first rows of
    ``kind``, due ``after_days`` after they submitted the first (never before now).

    The sample is drawn per rater with a seeded generator, so the same call on the same
    project picks the same items.
    """
    check_rate(rate, after_days)
    report = RepeatReport()
    with project.tx() as session:
        require(session, actor, Action.ASSIGN_REPEATS)
        model = MODEL[kind]
        query = select(model).where(
            model.state == "submitted", model.withdrawn_at.is_(None), model.repeat_of.is_(None)
        ).order_by(model.submitted_at, model.id)
        if kind == "case":  # an excluded case takes no more labels
            query = query.join(Case, Case.id == Annotation.case_pk).where(
                Case.state != CaseState.EXCLUDED.value)
        firsts = list(session.scalars(query))
        repeated = set(session.scalars(
            select(RatedWork.repeat_of).where(RatedWork.repeat_of.is_not(None))
            .execution_options(**WITH_REPEATS)
        ))
        by_rater: dict[Any, list[RatedWork]] = defaultdict(list)
        for row in firsts:
            if row.id not in repeated:
                by_rater[row.rater_id].append(row)
        now = utcnow()
        for rater_id, rows in sorted(by_rater.items(), key=lambda kv: str(kv[0])):
            user = session.get(User, rater_id)
            assert user is not None  # foreign key
            picked = random.Random(f"{seed}:{kind}:{rater_id}").sample(
                rows, round(rate * len(rows))
            )
            for first in picked:
                due = max((first.submitted_at or now) + timedelta(days=after_days), now)
                repeat = _repeat_of(model, first, due)
                session.add(repeat)
                session.flush()
                record(session, actor, "repeat_assigned", annotation_id=repeat.id,
                       after={"rater": user.name, "kind": kind, "repeat_of": str(first.id),
                              "due": due.isoformat()})
                report.added.append((user.name, str(first.id), due.isoformat()))
    return report


def _repeat_of(model: type[RatedWork], first: RatedWork, due: datetime) -> RatedWork:
    columns = {name: getattr(first, name) for name in ITEM_COLUMNS[first.kind]}
    return model(rater_id=first.rater_id, state="assigned", values={}, repeat_of=first.id,
                 repeat_no=first.repeat_no + 1, due_at=due, **columns)


def repeat_pairs(session: Session, kind: str) -> list[tuple[RatedWork, RatedWork]]:
    """Every submitted (first, repeat) pair of ``kind``, oldest first."""
    model = MODEL[kind]
    repeats = list(session.scalars(
        select(model).where(model.repeat_of.is_not(None), model.state == "submitted",
                            model.withdrawn_at.is_(None))
        .order_by(model.submitted_at, model.id)
        .execution_options(**WITH_REPEATS)
    ))
    firsts = {
        row.id: row
        for row in session.scalars(
            select(model).where(model.id.in_([r.repeat_of for r in repeats]))
        )
    }
    return [(firsts[r.repeat_of], r) for r in repeats
            if r.repeat_of in firsts and firsts[r.repeat_of].submitted is not None]
