"""Each SME task's standing (state, open conflicts) computed by the SME rules, the computer the
store's ``sme_task_keys`` hooks call (:mod:`annotator.store.sme_keys`); read by the desk's
SME progress and open conflicts, and checked by ``repair``."""

from __future__ import annotations

import uuid
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError as PydanticValidationError
from sqlalchemy import Connection, select
from sqlalchemy.orm import Session, sessionmaker

from annotator.services.sme.adjudication import decided_by_task, submitted_by_task
from annotator.services.sme.review import benchmark_of
from annotator.sme.spec import Benchmark
from annotator.sme.verdict import Verdict, conflicts, reference
from annotator.store import sme_keys
from annotator.store.db import READ_ONLY, ReadOnlyViolation
from annotator.store.repeats import hide_repeats
from annotator.store.schema import SmeBenchmark, SmeTask

UNSUBMITTED = "unsubmitted"  # no verdict submitted
UNDECIDED = "undecided"  # the SMEs conflict and no adjudicator has decided
RESOLVED = "resolved"  # a reference verdict


def reference_of(
    benchmark: Benchmark, verdicts: dict[str, Verdict], decided: dict[str, tuple[Any, str]]
) -> Verdict | str:
    """A task's reference verdict, or why it has none (UNSUBMITTED, UNDECIDED)."""
    if not verdicts:
        return UNSUBMITTED
    ref = reference(benchmark, verdicts, {k: v for k, (v, _r) in decided.items()})
    if ref is None or "applicability" not in ref:
        return UNDECIDED
    return ref


def reference_state(
    benchmark: Benchmark, verdicts: dict[str, Verdict], decided: dict[str, tuple[Any, str]]
) -> str:
    """A task's standing: RESOLVED, UNDECIDED or UNSUBMITTED (the SME task keys' state)."""
    ref = reference_of(benchmark, verdicts, decided)
    return ref if isinstance(ref, str) else RESOLVED


def compute_keys(session: Session, tasks: Collection[uuid.UUID] | None = None
                 ) -> dict[uuid.UUID, sme_keys.Key | None]:
    """The keys of ``tasks`` (every task: ``None``) from the stored rows; None for a task
    that no longer exists."""
    query = select(SmeTask.id, SmeTask.benchmark_id)
    found: dict[uuid.UUID, uuid.UUID] = {}
    if tasks is None:
        found = {task: bench for task, bench in session.execute(query)}
    else:
        ordered = sorted(tasks)
        for start in range(0, len(ordered), 500):
            found.update((task, bench) for task, bench in session.execute(
                query.where(SmeTask.id.in_(ordered[start:start + 500]))))
    rules: dict[uuid.UUID, Benchmark] = {}
    for row in session.scalars(
            select(SmeBenchmark).where(SmeBenchmark.id.in_(set(found.values())))):
        try:
            rules[row.id] = benchmark_of(row)
        except PydanticValidationError:
            continue  # content no import writes (a hand-made store): its tasks get no key
    submitted = submitted_by_task(session, tasks=None if tasks is None else list(found))
    decided = decided_by_task(session, None if tasks is None else list(found))
    out: dict[uuid.UUID, sme_keys.Key | None] = {}
    for task, bench in found.items():
        if bench not in rules:
            continue
        verdicts, decisions = submitted.get(task, {}), decided.get(task, {})
        open_fields = [key for key in conflicts(rules[bench], verdicts) if key not in decisions]
        out[task] = (bench, reference_state(rules[bench], verdicts, decisions), len(open_fields))
    for task in tasks or ():
        out.setdefault(task, None)
    return out


def keep_keys(session: Session, tasks: list[uuid.UUID]) -> None:
    """The writes' computer (``store.sme_keys``): compute and store the tasks' keys."""
    sme_keys.write(session.connection(), compute_keys(session, tasks))


def heal_keys(session: Session) -> None:
    """Recompute the keys writers marked stale (in a read transaction: ask for a write one,
    see ``Project.read_healing``)."""
    conn = session.connection()
    stale = sme_keys.stale_tasks(conn)
    if not stale:
        return
    if conn.get_execution_options().get(READ_ONLY):
        raise ReadOnlyViolation("stale SME task keys: recompute them in a write transaction")
    with sme_keys.computing(session):
        keep_keys(session, sorted(stale))


sme_keys.set_computer(keep_keys)


def backfill_keys(conn: Connection) -> None:
    """Store every task's key (the migration, the bench's clone)."""
    factory = sessionmaker(bind=conn)
    hide_repeats(factory)  # as the app's sessions do: hidden repeats never count
    with factory() as session:
        keys = compute_keys(session)
    sme_keys.write(conn, keys)


@dataclass(frozen=True)
class SmeKeyDrift:
    """A stored SME task key that differs from a recomputation (``repair``)."""

    task_id: uuid.UUID
    stored: sme_keys.Key | None  # None: no key stored
    actual: sme_keys.Key | None  # None: the task is gone


def key_drift(session: Session) -> list[SmeKeyDrift]:
    """The stored keys that differ from the rows (a key marked stale is pending, not drift)."""
    actual = compute_keys(session)
    held = sme_keys.stored(session.connection())
    out = [SmeKeyDrift(task, None if task not in held else held[task][0], key)
           for task, key in actual.items()
           if (task not in held and key is not None)
           or (task in held and not held[task][1] and held[task][0] != key)]
    out += [SmeKeyDrift(task, key, None) for task, (key, _stale) in held.items()
            if task not in actual]
    return sorted(out, key=lambda d: str(d.task_id))


def fix_keys(session: Session, drifted: list[SmeKeyDrift]) -> None:
    """Store the recomputed keys of ``drifted``."""
    sme_keys.write(session.connection(), {d.task_id: d.actual for d in drifted})


__all__ = [
    "RESOLVED", "UNDECIDED", "UNSUBMITTED", "SmeKeyDrift", "backfill_keys", "compute_keys",
    "fix_keys", "heal_keys", "keep_keys", "key_drift", "reference_of", "reference_state",
]
