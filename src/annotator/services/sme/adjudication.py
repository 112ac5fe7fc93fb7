"""SME conflicts in the meta-review queue and the senior's decisions on them.

A conflict is a field of one task on which the submitted verdicts disagree (see
:func:`annotator.sme.verdict.conflicts`). Like annotation conflicts, the senior sees the
verdicts side by side, under reviewer letters rather than names; the decision itself, with
its required reason, is the rating engine's (:mod:`annotator.services.sme.kind`).
"""

from __future__ import annotations

import uuid
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.services.sme.review import (
    BenchmarkCard,
    Pane,
    benchmark_of,
    card,
    pane,
    task_parts,
)
from annotator.services.users import require_user
from annotator.sme.verdict import Verdict, conflicts
from annotator.store.project import Project
from annotator.store.schema import SmeAdjudication, SmeBenchmark, SmeItem, SmeTask, SmeVerdict

LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class SmeConflict:
    """One conflicting field of one task, the verdicts by letter, and the decision if made."""

    task_id: uuid.UUID
    item_id: str
    benchmark: str
    key: str  # applicability | outcome | score
    reason: str  # "pass vs flag", ...
    by_letter: dict[str, Verdict]  # each SME's whole submitted verdict, letter -> fields
    decided: Any = None
    decided_reason: str | None = None


@dataclass(frozen=True)
class ConflictView:
    """The side-by-side meta-review view of one task."""

    task_id: uuid.UUID
    item_id: str
    test_case: Pane
    ground_truth: Pane | None
    output: Pane
    benchmark: BenchmarkCard
    by_letter: dict[str, Verdict]
    conflicts: dict[str, str]  # field -> why
    decided: dict[str, Any]  # field -> the senior's value


def submitted_by_task(
    session: Session, task_id: uuid.UUID | None = None, *,
    tasks: Collection[uuid.UUID] | None = None,
) -> dict[uuid.UUID, dict[str, Verdict]]:
    """Submitted verdicts (not sent back for re-check), task -> reviewer id (str) -> fields;
    of one task only when ``task_id`` is given, of ``tasks`` only when they are."""
    out: dict[uuid.UUID, dict[str, Verdict]] = {}
    query = (
        select(SmeVerdict.task_id, SmeVerdict.reviewer_id, SmeVerdict.submitted)
        .where(SmeVerdict.state == "submitted", SmeVerdict.submitted.is_not(None))
        .order_by(SmeVerdict.created_at, SmeVerdict.id)
    )
    if task_id is not None:
        tasks = [task_id]
    for where in _of_tasks(SmeVerdict.task_id, tasks):
        for task, reviewer, submitted in session.execute(query.where(*where)):  # the columns
            out.setdefault(task, {})[str(reviewer)] = dict(submitted or {})
    return out


def decided_by_task(
    session: Session, tasks: Collection[uuid.UUID] | None = None
) -> dict[uuid.UUID, dict[str, tuple[Any, str]]]:
    """Current (not superseded) decisions: task -> field -> (value, reason); of ``tasks``
    only when they are given."""
    out: dict[uuid.UUID, dict[str, tuple[Any, str]]] = {}
    query = (select(SmeAdjudication).where(SmeAdjudication.superseded.is_(False))
             .order_by(SmeAdjudication.decided_at))
    for where in _of_tasks(SmeAdjudication.task_id, tasks):
        for row in session.scalars(query.where(*where)):
            out.setdefault(row.task_id, {})[row.key] = (row.value, row.reason)
    return out


def _of_tasks(column: Any, tasks: Collection[uuid.UUID] | None) -> Iterator[tuple[Any, ...]]:
    """The WHERE clauses that read ``tasks`` (every task: one clause, none) 500 at a time."""
    if tasks is None:
        yield ()
        return
    ordered = sorted(tasks)
    for start in range(0, len(ordered), 500):
        yield (column.in_(ordered[start:start + 500]),)


def _letters(verdicts: dict[str, Verdict]) -> dict[str, Verdict]:
    # Letters follow assignment order, so a reviewer keeps the same letter on a task.
    return {LETTERS[i % 26]: v for i, v in enumerate(verdicts.values())}


def list_conflicts(project: Project, actor: str, *, open_only: bool = False) -> list[SmeConflict]:
    """Every conflicting field of every task (seniors and curators only)."""
    with project.read() as session:
        require_user(session, actor, Action.READ_OTHERS_WORK)
        decided = decided_by_task(session)
        out: list[SmeConflict] = []
        for task_id, verdicts in submitted_by_task(session).items():
            task = session.get(SmeTask, task_id)
            assert task is not None
            bench = session.get(SmeBenchmark, task.benchmark_id)
            item = session.get(SmeItem, task.item_pk)
            assert bench is not None and item is not None
            for key, why in conflicts(benchmark_of(bench), verdicts).items():
                value, reason = decided.get(task_id, {}).get(key, (None, None))
                if open_only and value is not None:
                    continue
                out.append(
                    SmeConflict(
                        task_id,
                        item.item_id,
                        bench.code,
                        key,
                        why,
                        _letters(verdicts),
                        value,
                        reason,
                    )
                )
        return sorted(out, key=lambda c: (c.item_id, c.benchmark, c.key))


def conflict_view(project: Project, actor: str, task_id: uuid.UUID) -> ConflictView:
    """The item, the benchmark and every submitted verdict side by side (seniors only)."""
    with project.read() as session:
        require_user(session, actor, Action.READ_OTHERS_WORK)
        _task, item, bench = task_parts(session, task_id)
        verdicts = submitted_by_task(session).get(task_id, {})
        decided = {k: v for k, (v, _r) in decided_by_task(session).get(task_id, {}).items()}
        return ConflictView(
            task_id=task_id,
            item_id=item.item_id,
            test_case=pane(item.test_case),
            ground_truth=None if item.ground_truth is None else pane(item.ground_truth),
            output=pane(item.output),
            benchmark=card(bench),
            by_letter=_letters(verdicts),
            conflicts=conflicts(benchmark_of(bench), verdicts),
            decided=decided,
        )
