"""The preferred order as a board of stages, and the one operation that moves an exam.

Stage labels (``stage:FIGURE``) hold ``{"value": int | None, "how": ...}``: an integer is a
stage (1 = first; equal stages are tied), ``None`` is "explicitly unranked", and a missing
label means "not placed yet" (the draft's suggestion is shown, never counted).

Drag and drop and the keyboard both call :func:`move_edits`, so they cannot disagree. Every
move leaves the stages dense (1, 2, 3 ... without gaps), which is how review compares
orders anyway; the board's column numbers are therefore the stage numbers.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from annotator.domain.labels import LabelEdit, label_key
from annotator.errors import ValidationError

MoveKind = Literal["stage", "new_stage", "unranked", "tie_previous"]


@dataclass(frozen=True)
class Move:
    """Where an exam goes: ``stage`` n (join column n), ``new_stage`` n (insert a column
    before column n; n = columns + 1 appends), ``unranked``, or ``tie_previous`` (the stage
    of the exam before it in the draft's order)."""

    kind: MoveKind
    stage: int = 0


@dataclass(frozen=True)
class Board:
    """The columns as the annotator sees them."""

    columns: list[list[str]]  # column i holds the figures at stage i + 1, in draft order
    unranked: list[str]  # explicitly unranked
    unplaced: list[str]  # no stage decision yet
    suggested: dict[str, int | None]  # the draft's stage per figure (shown, not counted)

    def stage_of(self, figure: str) -> int | None:
        """The dense stage of a figure, or None when unranked or unplaced."""
        for index, column in enumerate(self.columns):
            if figure in column:
                return index + 1
        return None


def _stages(labels: dict[str, Any], figures: list[str]) -> dict[str, int | None]:
    """Placed figures only: figure -> stage value (None = explicitly unranked)."""
    out: dict[str, int | None] = {}
    for figure in figures:
        entry = labels.get(label_key("stage", figure))
        if isinstance(entry, dict) and "value" in entry:
            value = entry["value"]
            out[figure] = value if type(value) is int else None
    return out


def _dense(stages: dict[str, int | None]) -> dict[str, int | None]:
    distinct = sorted({s for s in stages.values() if s is not None})
    rank = {s: i + 1 for i, s in enumerate(distinct)}
    return {f: (None if s is None else rank[s]) for f, s in stages.items()}


def board(labels: dict[str, Any], figures: list[str], suggestions: dict[str, Any]) -> Board:
    """The board for an annotator's labels (suggestions only decorate unplaced exams)."""
    stages = _dense(_stages(labels, figures))
    count = max((s for s in stages.values() if s is not None), default=0)
    columns: list[list[str]] = [[] for _ in range(count)]
    unranked: list[str] = []
    unplaced: list[str] = []
    for figure in figures:
        if figure not in stages:
            unplaced.append(figure)
        elif stages[figure] is None:
            unranked.append(figure)
        else:
            columns[int(stages[figure] or 0) - 1].append(figure)
    suggested = {f: suggestions.get(label_key("stage", f)) for f in figures}
    return Board(columns, unranked, unplaced, suggested)


def move_edits(
    labels: dict[str, Any], figures: list[str], figure: str, move: Move
) -> list[LabelEdit]:
    """The label edits that carry out ``move`` (empty when nothing changes).

    The moved exam's stage is recorded as the annotator's choice (``how: "set"``); other
    exams keep how they were set and only get renumbered when a column opens or closes.
    Raises ValidationError for an unknown exam, a stage below 1, or ``tie_previous`` on the
    first exam or after an exam without a stage.
    """
    if figure not in figures:
        raise ValidationError(f"the case has no exam {figure!r}")
    stages = _dense(_stages(labels, figures))
    target, others = _target(move, figure, figures, stages)
    after = _dense({**others, figure: target})
    edits: list[LabelEdit] = []
    for fig in figures:
        if fig not in after:
            continue
        key = label_key("stage", fig)
        old = labels.get(key)
        if fig == figure:
            new = {"value": after[fig], "how": "set"}
        else:
            how = old.get("how", "set") if isinstance(old, dict) else "set"
            new = {"value": after[fig], "how": how}
        if old != new:
            edits.append(LabelEdit(key, new))
    return edits


def _target(
    move: Move, figure: str, figures: list[str], stages: dict[str, int | None]
) -> tuple[int | None, dict[str, int | None]]:
    """The moved exam's new stage, and the other exams' stages before renumbering."""
    count = max((s for f, s in stages.items() if s is not None and f != figure), default=0)
    others = {f: s for f, s in stages.items() if f != figure}
    if move.kind in ("stage", "new_stage"):
        if move.stage < 1:
            raise ValidationError("a stage is a number from 1")
        # Joining a column that does not exist yet opens the next one.
        target = min(move.stage, count + 1)
        if move.kind == "new_stage":
            others = {
                f: (s + 1 if s is not None and s >= target else s) for f, s in others.items()
            }
        return target, others
    if move.kind == "unranked":
        return None, others
    if move.kind == "tie_previous":
        position = figures.index(figure)
        if position == 0:
            raise ValidationError(f"{figure} is the first exam; there is no previous one to tie")
        previous = figures[position - 1]
        if stages.get(previous) is None:
            raise ValidationError(f"{previous} has no stage yet; place it first")
        return stages[previous], others
    raise ValidationError(f"unknown move {move.kind!r}")  # pragma: no cover - Literal guards it
