"""SMEs reviewing items against benchmarks: assignment, the blind queue and the view (setting,
submitting and revealing are the rating engine's: :mod:`annotator.services.sme.kind`).

Every function is one transaction. The view an SME works from (:class:`VerdictView`) never
holds another SME's verdict, the automated verdict (until the SME has submitted) or the
system's name.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.domain.states import QUEUE_STATES, queue_state
from annotator.errors import NotFound, ValidationError
from annotator.services.assignments import (
    calibration_gaps,
    raters_so_far,
    reviewers_or_refuse,
    top_up,
)
from annotator.services.rating.engine import the_one
from annotator.services.users import get_user, require
from annotator.sme.criteria import apply_clause, exclusion_choices, flag_choices, flag_clause
from annotator.sme.diff import FieldDiff, field_diff, is_json, pretty
from annotator.sme.spec import Benchmark
from annotator.sme.verdict import Verdict, missing_fields, stale_fields
from annotator.store.calibration import first_for
from annotator.store.db_roles import item_count, revealed_automated, walled
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.repeats import served, served_all
from annotator.store.schema import SmeBenchmark, SmeItem, SmeTask, SmeVerdict, User


@dataclass(frozen=True)
class QueueEntry:
    """One line of an SME's queue."""

    task_id: uuid.UUID
    item_id: str
    title: str  # "item 3 of 20 · A-NEG1"
    benchmark: str  # code
    benchmark_label: str
    state: str  # one of QUEUE_STATES


@dataclass(frozen=True)
class ScaleLevel:
    value: float
    description: str


@dataclass(frozen=True)
class BenchmarkCard:
    """The right-hand panel: what the SME judges against, criteria split into choices."""

    code: str
    parent_rubric: str
    label: str
    concept: str
    evaluator_type: str
    version: int
    inclusion_criteria: str
    apply_when: str
    flag_if: str | None  # None: the verdict asks for a free-text failure reason
    flag_choices: list[str]  # the "Flag if" conditions split on "or", plus "other"; [] if none
    exclusion_criteria: str
    exclusion_choices: list[str]
    min_value: float
    max_value: float
    levels: list[ScaleLevel]  # described levels, highest first (digit 1 = first)
    threshold: float | None
    examples: list[str]


@dataclass(frozen=True)
class Pane:
    """One of input / ground truth / output: text as is, JSON pretty-printed."""

    is_json: bool
    text: str
    value: Any


@dataclass(frozen=True)
class VerdictView:
    """Everything the verdict page shows for one task, blind."""

    task_id: uuid.UUID
    item_id: str
    title: str
    state: str  # one of QUEUE_STATES
    test_case: Pane
    ground_truth: Pane | None
    output: Pane
    diff: list[FieldDiff] | None  # None unless ground truth and output are both JSON
    benchmark: BenchmarkCard
    fields: Verdict  # the SME's own current fields
    missing: list[str]  # fields still needed to submit
    submitted: bool
    automated: dict[str, Any] | None  # only for a submitted hybrid task, else None
    # Fields that no longer fit a re-imported benchmark (needs_recheck): say what to redo.
    stale: list[str] = field(default_factory=list)


def benchmark_of(row: SmeBenchmark) -> Benchmark:
    return Benchmark.model_validate(row.content)


def card(row: SmeBenchmark) -> BenchmarkCard:
    """The benchmark panel of a stored benchmark."""
    b = benchmark_of(row)
    scale = b.scale
    return BenchmarkCard(
        code=b.code,
        parent_rubric=b.parent_rubric,
        label=b.label,
        concept=" ".join(b.concept.split()),
        evaluator_type=b.evaluator_type,
        version=row.version,
        inclusion_criteria=" ".join(b.inclusion_criteria.split()),
        apply_when=apply_clause(b.inclusion_criteria),
        flag_if=flag_clause(b.inclusion_criteria),
        flag_choices=flag_choices(b.inclusion_criteria),
        exclusion_criteria=" ".join(b.exclusion_criteria.split()),
        exclusion_choices=exclusion_choices(b.exclusion_criteria),
        min_value=scale.min_value,
        max_value=scale.max_value,
        levels=[
            ScaleLevel(float(v), d)
            for v, d in sorted(scale.descriptions.items(), key=lambda kv: -float(kv[0]))
        ],
        threshold=b.threshold,
        examples=list(b.examples),
    )


def pane(value: Any) -> Pane:
    return Pane(is_json(value), pretty(value), value)


def _state(row: SmeVerdict) -> str:
    return queue_state(row.state, row.needs_recheck)


def task_parts(session: Session, task_id: uuid.UUID) -> tuple[SmeTask, SmeItem, SmeBenchmark]:
    """A task with its item and benchmark; NotFound when there is no such task."""
    task = session.get(SmeTask, task_id)
    if task is None:
        raise NotFound(f"no SME review task {task_id}")
    item = session.get(SmeItem, task.item_pk)
    bench = session.get(SmeBenchmark, task.benchmark_id)
    assert item is not None and bench is not None  # foreign keys
    return task, item, bench


def own_task(
    session: Session, actor: str, task_id: uuid.UUID
) -> tuple[SmeTask, SmeItem, SmeBenchmark, SmeVerdict]:
    """The task and the actor's own verdict row; NotFound when not assigned to the actor."""
    task, item, bench = task_parts(session, task_id)
    user = get_user(session, actor)
    mine = session.scalars(
        select(SmeVerdict).where(SmeVerdict.task_id == task_id, SmeVerdict.reviewer_id == user.id)
    ).first()
    if mine is None:
        raise NotFound(f"{actor} is not assigned to review this item")
    return task, item, bench, served(session, mine)


def _title(item: SmeItem, total: int, code: str) -> str:
    return f"item {item.position} of {total} · {code}"


def assign(project: Project, actor: str, per_item: int = 2) -> int:
    """Give every task of a reviewed benchmark ``per_item`` SMEs (annotators), least loaded
    first (as judged outputs and cases are assigned), and every SME in calibration the
    calibration tasks they do not hold yet. Returns the number of assignments added.
    """
    if per_item < 1:
        raise ValidationError("each item needs at least one SME (--per-item >= 1)")
    with project.tx() as session:
        require(session, actor, Action.ASSIGN_SME)
        people = reviewers_or_refuse(session, "SME review items")
        rows = list(session.scalars(select(SmeVerdict)))
        load, have = raters_so_far(rows, lambda r: r.task_id)
        tasks = session.execute(
            select(SmeTask, SmeBenchmark.version, SmeBenchmark.code)
            .join(SmeItem, SmeItem.id == SmeTask.item_pk)
            .join(SmeBenchmark, SmeBenchmark.id == SmeTask.benchmark_id)
            .order_by(SmeItem.position, SmeBenchmark.code)
        )
        placed: list[tuple[tuple[SmeTask, Any, str], User]] = []
        listed = [(task, version, code) for task, version, code in tasks]
        for entry in listed:
            for user in top_up(people, per_item, have.setdefault(entry[0].id, set()), load):
                placed.append((entry, user))
        # Calibration tasks for SMEs in calibration, on top of their share.
        placed += calibration_gaps(
            session, "sme", people, [(e, e[0].id, str(e[0].id)) for e in listed], have
        )
        for (task, version, code), user in placed:
            session.add(
                SmeVerdict(task_id=task.id, reviewer_id=user.id, benchmark_version=version)
            )
            record(
                session,
                actor,
                "sme_assigned",
                after={"reviewer": user.name},
                task=str(task.id),
                benchmark=code,
            )
        return len(placed)


def queue(
    project: Project, actor: str, benchmark: str | None = None, state: str | None = None
) -> list[QueueEntry]:
    """The SME's tasks in item order, optionally of one benchmark code only and in one
    state of :data:`~annotator.domain.states.QUEUE_STATES` (never by system: blind)."""
    if state is not None and state not in QUEUE_STATES:
        raise ValidationError(f"unknown queue state {state!r} (one of {', '.join(QUEUE_STATES)})")
    with project.read() as session:
        user = get_user(session, actor)
        total = item_count(session, "sme")
        query = (
            select(SmeVerdict, SmeItem, SmeBenchmark)
            .join(SmeTask, SmeTask.id == SmeVerdict.task_id)
            .join(SmeItem, SmeItem.id == SmeTask.item_pk)
            .join(SmeBenchmark, SmeBenchmark.id == SmeTask.benchmark_id)
            .where(SmeVerdict.reviewer_id == user.id)
            .order_by(SmeItem.position, SmeBenchmark.code)
        )
        if benchmark is not None:
            query = query.where(SmeBenchmark.code == benchmark)
        first = first_for(session, user, "sme")
        found = [(row, item, bench) for row, item, bench in session.execute(query)
                 if state is None or _state(row) == state]
        shown = served_all(session, [row for row, _, _ in found])  # one query, not one a task
        entries = [
            QueueEntry(
                task_id=row.task_id,
                item_id=item.item_id,
                title=_title(item, total, bench.code),
                benchmark=bench.code,
                benchmark_label=str(bench.content.get("label", "")),
                state=_state(current),
            )
            for (row, item, bench), current in zip(found, shown, strict=True)
        ]
    # Calibration tasks first for an SME in calibration (stable: item order).
    return sorted(entries, key=lambda entry: str(entry.task_id) not in first)


def my_benchmarks(project: Project, actor: str) -> list[tuple[str, str]]:
    """(code, label) of every benchmark in the SME's queue: the queue's filter choices."""
    seen = {(e.benchmark, e.benchmark_label) for e in queue(project, actor)}
    return sorted(seen)


def view(project: Project, actor: str, task_id: uuid.UUID) -> VerdictView:
    """The blind view of one task: the item, the benchmark and the SME's own fields."""
    with project.read() as session:
        task, item, bench, mine = own_task(session, actor, task_id)
        total = item_count(session, "sme")
        submitted = mine.state == "submitted"
        truth, output = item.ground_truth, item.output
        both = is_json(truth) and is_json(output)
        automated = None
        if submitted and bench.evaluator_type == "hybrid":
            got = revealed_automated(session, task.id) if walled(session) else task.automated
            automated = dict(got) if got else None
        return VerdictView(
            task_id=task.id,
            item_id=item.item_id,
            title=_title(item, total, bench.code),
            state=_state(mine),
            test_case=pane(item.test_case),
            ground_truth=None if truth is None else pane(truth),
            output=pane(output),
            diff=field_diff(truth, output) if both else None,
            benchmark=card(bench),
            fields=dict(mine.fields),
            missing=missing_fields(benchmark_of(bench), mine.fields),
            submitted=submitted,
            automated=automated,
            stale=stale_fields(benchmark_of(bench), mine.fields) if mine.needs_recheck else [],
        )


def task_of(project: Project, item_id: str, code: str) -> uuid.UUID:
    """The task of one item and benchmark code, for the command line."""
    return the_one(
        project,
        select(SmeTask.id)
        .join(SmeItem, SmeItem.id == SmeTask.item_pk)
        .join(SmeBenchmark, SmeBenchmark.id == SmeTask.benchmark_id)
        .where(SmeItem.item_id == item_id, SmeBenchmark.code == code),
        f"item {item_id!r} is not reviewed against benchmark {code!r}",
    )
