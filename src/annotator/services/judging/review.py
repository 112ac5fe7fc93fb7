"""Conflicts between physicians' judged-output scores, their adjudication, and all ratings.

A conflict is a key on which submitted physicians fall on both sides of acceptable (2-3) vs
unacceptable (0-1), or give different E/A/U labels. The senior's value is the human reference.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action
from annotator.judging.human import conflicts, human_sheet
from annotator.judging.sheet import Sheet, split_key
from annotator.judging.table9 import ItemKey, Ratings
from annotator.services.rating.engine import the_one
from annotator.services.users import require_user
from annotator.store.project import Project
from annotator.store.schema import (
    JudgeAdjudication,
    JudgedRun,
    JudgeItem,
    JudgeModeScore,
    PhysicianScore,
    User,
)

HUMAN = "human"


@dataclass(frozen=True)
class JudgeConflict:
    item_id: uuid.UUID
    run: str
    case_id: str
    key: str
    by_scorer: dict[str, Any]
    reason: str
    decided: Any = None


def _submitted(session: Session) -> dict[uuid.UUID, dict[str, Sheet]]:
    out: dict[uuid.UUID, dict[str, Sheet]] = {}
    rows = session.execute(
        select(PhysicianScore, User.name)
        .join(User, User.id == PhysicianScore.scorer_id)
        .where(PhysicianScore.submitted_at.is_not(None))
    )
    for row, name in rows:
        out.setdefault(row.item_id, {})[name] = dict(row.scores)
    return out


def _adjudicated(session: Session) -> dict[uuid.UUID, dict[str, Any]]:
    out: dict[uuid.UUID, dict[str, Any]] = {}
    rows = session.scalars(
        select(JudgeAdjudication)
        .where(JudgeAdjudication.superseded.is_(False))
        .order_by(JudgeAdjudication.decided_at)
    )
    for row in rows:
        out.setdefault(row.item_id, {})[row.key] = row.value
    return out


def conflict_reason(key: str, values: dict[str, Any]) -> str:
    target, diagnosis, part = split_key(key)
    what = target if diagnosis is None else f"trajectory {diagnosis!r} {part}"
    if part == "label":
        return f"{what}: labels differ ({', '.join(sorted(set(map(str, values.values()))))})"
    return f"{what}: acceptable (2-3) vs unacceptable (0-1)"


def list_conflicts(
    project: Project, actor: str, *, open_only: bool = False
) -> list[JudgeConflict]:
    """Every conflicting key of every item, with the senior's value where decided.

    Conflicts show other physicians' scores and name the runs: seniors and curators only.
    """
    with project.read() as session:
        require_user(session, actor, Action.READ_OTHERS_WORK)
        decided = _adjudicated(session)
        items = {i.id: i for i in session.scalars(select(JudgeItem))}
        runs = {r.id: r.target_model for r in session.scalars(select(JudgedRun))}
        out = []
        for item_id, sheets in _submitted(session).items():
            item = items[item_id]
            for key, values in conflicts(sheets).items():
                value = decided.get(item_id, {}).get(key)
                if open_only and value is not None:
                    continue
                out.append(
                    JudgeConflict(
                        item_id,
                        runs[item.run_id],
                        item.case_id,
                        key,
                        values,
                        conflict_reason(key, values),
                        value,
                    )
                )
        return sorted(out, key=lambda c: (c.run, c.case_id, c.key))


def all_ratings(project: Project, actor: str) -> tuple[Ratings, list[str], list[str]]:
    """Every rater's sheets by (run, case): ``(ratings, judge modes, physicians)``.

    Physicians count once submitted; ``human`` is the reference (see judging.human). Seniors
    and curators only: the sheets are other physicians' work and the judges' scores.
    """
    with project.read() as session:
        require_user(session, actor, Action.READ_OTHERS_WORK)
        runs = {r.id: r.target_model for r in session.scalars(select(JudgedRun))}
        items = {i.id: (runs[i.run_id], i.case_id) for i in session.scalars(select(JudgeItem))}
        ratings: Ratings = {}
        modes: set[str] = set()
        for row in session.scalars(select(JudgeModeScore)):
            ratings.setdefault(row.mode, {})[items[row.item_id]] = dict(row.scores)
            modes.add(row.mode)
        physicians: set[str] = set()
        decided = _adjudicated(session)
        human: dict[ItemKey, Sheet] = {}
        for item_id, sheets in _submitted(session).items():
            for name, sheet in sheets.items():
                ratings.setdefault(name, {})[items[item_id]] = sheet
                physicians.add(name)
            human[items[item_id]] = human_sheet(sheets, decided.get(item_id, {}))
        judges = sorted(modes)
        if human:
            ratings[HUMAN] = human
        return ratings, judges, sorted(physicians)


def item_of(project: Project, run: str, case_id: str) -> uuid.UUID:
    """The item of one run (its target model) and case, for the command line."""
    return the_one(
        project,
        select(JudgeItem.id)
        .join(JudgedRun, JudgedRun.id == JudgeItem.run_id)
        .where(JudgedRun.target_model == run, JudgeItem.case_id == case_id),
        f"no single judged output of run {run!r} on case {case_id!r}",
    )
