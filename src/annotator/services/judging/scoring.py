"""Physicians scoring judged outputs: assignment and the blind view (setting, submitting and
revealing are the rating engine's: :mod:`annotator.services.judging.kind`).

The view a physician works from (:class:`ScoringView`) holds no judge score and no model
name until the physician has submitted: it names the output by position only.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.domain.states import QUEUE_STATES, queue_state
from annotator.errors import NotFound, ValidationError
from annotator.judging.runfile import TARGETS
from annotator.judging.sheet import Sheet, trajectory_key
from annotator.services.assignments import (
    calibration_gaps,
    raters_so_far,
    reviewers_or_refuse,
    top_up,
)
from annotator.services.users import allows, get_user, require
from annotator.store.calibration import first_for
from annotator.store.db_roles import item_count
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.repeats import served
from annotator.store.schema import (
    Case,
    CaseImage,
    CaseRevision,
    JudgedRun,
    JudgeItem,
    JudgeModeScore,
    PhysicianScore,
)


@dataclass(frozen=True)
class ScoringView:
    """What the physician sees of one item: the case and the output, blind."""

    item_id: uuid.UUID
    title: str  # "output 3 of 12"
    case_id: str
    history: str
    case_payload: dict[str, Any]
    top_diagnosis: str
    differential: list[dict[str, Any]]
    location: dict[str, Any]
    trajectory: list[str]
    scores: Sheet
    submitted: bool
    judges: dict[str, dict[str, Any]] = field(default_factory=dict)  # only after submit
    linked_images: int | None = None  # None: the case is not in this project


def judge_item(session: Session, item_id: uuid.UUID) -> JudgeItem:
    item = session.get(JudgeItem, item_id)
    if item is None:
        raise NotFound(f"no judged output {item_id}")
    return item


def own_sheet(session: Session, actor: str, item_id: uuid.UUID) -> PhysicianScore:
    user = get_user(session, actor)
    row = session.scalars(
        select(PhysicianScore).where(
            PhysicianScore.item_id == item_id, PhysicianScore.scorer_id == user.id
        )
    ).first()
    if row is None:
        raise NotFound(f"{actor} is not assigned to score this output")
    return served(session, row)


def _trajectory(item: JudgeItem) -> list[str]:
    return [str(d) for d in item.model_payload.get("trajectory_unique_diagnoses", [])]


def assign(project: Project, actor: str, per_item: int = 2) -> int:
    """Give every judged output ``per_item`` physicians (annotators), least loaded first, and
    every physician in calibration the calibration outputs they do not hold yet."""
    with project.tx() as session:
        require(session, actor, Action.ASSIGN_JUDGED)
        people = reviewers_or_refuse(session, "judged outputs")
        rows = list(session.scalars(select(PhysicianScore)))
        load, have = raters_so_far(rows, lambda r: r.item_id)
        items = list(session.scalars(select(JudgeItem).order_by(JudgeItem.position)))
        placed = [(item, user) for item in items
                  for user in top_up(people, per_item, have.setdefault(item.id, set()), load)]
        # Calibration outputs for physicians in calibration, on top of their share.
        placed += calibration_gaps(
            session, "judge", people, [(i, i.id, str(i.id)) for i in items], have
        )
        for item, user in placed:
            session.add(PhysicianScore(item_id=item.id, scorer_id=user.id, scores={}))
            record(
                session, actor, "judge_assigned", after={"scorer": user.name}, item=str(item.id)
            )
        return len(placed)


UNNAMED_BENCHMARK = "(benchmark not named in the run)"


def _benchmark(run: JudgedRun) -> str:
    """The benchmark a run was scored on, as the scoring core names its schema; never the
    system (``target_model``) or the judge: physicians score blind."""
    name = (run.code_version or {}).get("schema_version")
    return str(name) if isinstance(name, str) and name.strip() else UNNAMED_BENCHMARK


def my_items(
    project: Project, actor: str, benchmark: str | None = None, state: str | None = None
) -> list[tuple[uuid.UUID, str, bool]]:
    """The physician's outputs in order: (item id, "output n of N", submitted), optionally
    of one benchmark (:func:`my_benchmarks`) and in one state of ``QUEUE_STATES``."""
    if state is not None and state not in QUEUE_STATES:
        raise ValidationError(f"unknown queue state {state!r} (one of {', '.join(QUEUE_STATES)})")
    with project.read() as session:
        user = get_user(session, actor)
        total = item_count(session, "judge")
        rows = session.execute(
            select(JudgeItem.id, JudgeItem.position, PhysicianScore, JudgedRun)
            .join(PhysicianScore, PhysicianScore.item_id == JudgeItem.id)
            .join(JudgedRun, JudgedRun.id == JudgeItem.run_id)
            .where(PhysicianScore.scorer_id == user.id)
            .order_by(JudgeItem.position)
        )
        found = []
        for i, p, row, run in rows:
            score = served(session, row)
            if benchmark is not None and _benchmark(run) != benchmark:
                continue
            if state is not None and queue_state(score.state, score.needs_recheck) != state:
                continue
            found.append((i, f"output {p} of {total}", score.submitted_at is not None))
        first = first_for(session, user, "judge")
    # Calibration outputs first for a physician in calibration (stable: position order).
    return sorted(found, key=lambda entry: str(entry[0]) not in first)


def my_benchmarks(project: Project, actor: str) -> list[str]:
    """The benchmarks of the physician's outputs: the queue's benchmark choices."""
    with project.read() as session:
        user = get_user(session, actor)
        runs = session.scalars(
            select(JudgedRun).join(JudgeItem, JudgeItem.run_id == JudgedRun.id)
            .join(PhysicianScore, PhysicianScore.item_id == JudgeItem.id)
            .where(PhysicianScore.scorer_id == user.id)
        )
        return sorted({_benchmark(run) for run in runs})


def view(project: Project, actor: str, item_id: uuid.UUID) -> ScoringView:
    """The blind view of one output; judges' scores only once the physician has submitted."""
    with project.read() as session:
        item = judge_item(session, item_id)
        mine = own_sheet(session, actor, item_id)
        total = item_count(session, "judge")
        judges: dict[str, dict[str, Any]] = {}
        if mine.submitted_at is not None:
            judges = judges_of(session, item_id)
        payload = dict(item.case_payload)
        model = item.model_payload
        history, images = _linked(session, item)
        return ScoringView(
            item_id=item.id,
            title=f"output {item.position} of {total}",
            case_id=item.case_id,
            history=history or str(payload.get("clinical_history", "")),
            case_payload=payload,
            top_diagnosis=str(model.get("final_top1_diagnosis", "")),
            differential=list(model.get("final_differential", [])),
            location=dict(model.get("final_location", {})),
            trajectory=_trajectory(item),
            scores=dict(mine.scores),
            submitted=mine.submitted_at is not None,
            judges=judges,
            linked_images=images,
        )


def _linked(session: Session, item: JudgeItem) -> tuple[str, int | None]:
    """The project's own history and image count of a linked case (the run's may be redacted)."""
    # A case imported after the run is found by its id as well.
    case = (
        session.get(Case, item.case_pk)
        if item.case_pk
        else session.scalars(select(Case).where(Case.case_id == item.case_id)).first()
    )
    if case is None or case.current_revision_id is None:
        return "", None
    revision = session.get(CaseRevision, case.current_revision_id)
    history = str((revision.content if revision else {}).get("clinical_history") or "")
    count = session.scalar(
        select(func.count())
        .select_from(CaseImage)
        .where(CaseImage.revision_id == case.current_revision_id)
    )
    return history, int(count or 0)


def judges_of(session: Session, item_id: uuid.UUID) -> dict[str, dict[str, Any]]:
    rows = session.scalars(select(JudgeModeScore).where(JudgeModeScore.item_id == item_id))
    return {r.mode: {"scores": dict(r.scores), "reasons": dict(r.reasons)} for r in rows}


def missing_keys(item: JudgeItem, scores: Sheet) -> list[str]:
    """Keys a complete sheet needs that this one lacks."""
    need = list(TARGETS)
    for diagnosis in _trajectory(item):
        need += [trajectory_key(diagnosis, "label"), trajectory_key(diagnosis, "score")]
    return [k for k in need if scores.get(k) is None]


def may_see_runs(project: Project, actor: str) -> bool:
    """Conflicts and agreement name the runs and the judges: seniors and curators only."""
    with project.read() as session:
        return allows(session, actor, Action.READ_OTHERS_WORK)
