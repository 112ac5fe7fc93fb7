"""The demo's human reference scoring: the two bundled judged runs, scored by simulated
physicians (from the judges' scores with seeded noise, so they disagree now and then),
and one conflict adjudicated by the senior."""

from __future__ import annotations

import random
import uuid
from typing import Any

from sqlalchemy import select

from annotator.judging.runfile import TARGETS
from annotator.judging.sheet import trajectory_key
from annotator.resources import judged_runs_dir
from annotator.services.judging import review as judge_review
from annotator.services.judging import scoring as judge_scoring
from annotator.services.judging.imports import import_runs
from annotator.services.judging.kind import JUDGE
from annotator.store.project import Project
from annotator.store.schema import JudgeModeScore, PhysicianScore, User


def _judge_view(project: Project, item: uuid.UUID) -> dict[str, Any]:
    with project.tx() as session:
        rows = session.scalars(select(JudgeModeScore).where(JudgeModeScore.item_id == item))
        return {r.mode: dict(r.scores) for r in rows}


def _noisy(value: int, rng: random.Random, spread: float) -> int:
    step = rng.choice((-1, 1)) if rng.random() < spread else 0
    return max(0, min(3, value + step))


def _score(project: Project, name: str, item: uuid.UUID, rng: random.Random) -> None:
    judges = _judge_view(project, item)
    base: dict[str, Any] = judges.get("llm") or next(iter(judges.values()), {})
    view = judge_scoring.view(project, name, item)
    for target in TARGETS:
        JUDGE.set_field(project, name, item, target, _noisy(base.get(target, 1), rng, 0.35))
    for dx in view.trajectory:
        score = _noisy(base.get(trajectory_key(dx, "score"), 1), rng, 0.25)
        label = base.get(trajectory_key(dx, "label"), "U")
        if rng.random() < 0.1:
            label = rng.choice([x for x in "EAU" if x != label])
        JUDGE.set_field(project, name, item, trajectory_key(dx, "score"), score)
        JUDGE.set_field(project, name, item, trajectory_key(dx, "label"), label)
    JUDGE.submit(project, name, item)


def demo_judge_scoring(project: Project, curator: str, senior: str, seed: int) -> int:
    """Import, assign two physicians per output, score, adjudicate one conflict.

    Returns the number of conflicts left open for the senior on the Judge scoring page.
    """
    rng = random.Random(seed)
    import_runs(project, curator, sorted(judged_runs_dir().glob("*.benchmark_full.json")))
    judge_scoring.assign(project, curator, 2)
    with project.tx() as session:
        names = sorted(
            {
                u.name
                for u in session.scalars(
                    select(User).join(PhysicianScore, PhysicianScore.scorer_id == User.id)
                )
            }
        )
    for name in names:
        for item, _title, submitted in judge_scoring.my_items(project, name):
            if not submitted:
                _score(project, name, item, rng)
    open_conflicts = judge_review.list_conflicts(project, senior, open_only=True)
    if open_conflicts:
        first = open_conflicts[0]
        value = max(first.by_scorer.values()) if first.key in TARGETS else "A"
        JUDGE.adjudicate(
            project,
            senior,
            first.item_id,
            first.key,
            value,
            "Demo: the rubric's wording supports the higher level.",
        )
    return max(len(open_conflicts) - 1, 0)
