"""The order board decided as a whole: validation and the merge an edit starts from.

A board gives every exam of the case a stage (an integer >= 1; equal stages are ties) or
None (not ranked). That is always a valid partial order, so validation is about shape: every
exam present once, nothing else, and integers (a string "1.5" would crash the scoring core).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from annotator.domain.order import Relation, dense_order, relation
from annotator.errors import ValidationError


def validate_board(board: Any, figures: Sequence[str]) -> dict[str, int | None]:
    """Check a decided board and return it renumbered densely (1, 3, 3 -> 1, 2, 2).

    Raises ValidationError naming every problem: not an object, an unknown or missing exam,
    a stage that is not an integer >= 1 or null.
    """
    if not isinstance(board, dict):
        raise ValidationError("an order board maps every exam (figure) to a stage or null")
    problems: list[str] = []
    unknown = sorted(str(k) for k in board if k not in figures)
    if unknown:
        problems.append(f"no such exam: {', '.join(unknown)}")
    missing = [f for f in figures if f not in board]
    if missing:
        problems.append(f"no stage or null for {', '.join(missing)}")
    for figure in figures:
        stage = board.get(figure)
        if figure in board and stage is not None and (type(stage) is not int or stage < 1):
            problems.append(f"{figure}: stage {stage!r} is not an integer >= 1 or null")
    if problems:
        raise ValidationError("invalid order board: " + "; ".join(problems))
    return dense_order({f: board[f] for f in figures})


def agreed_relations(
    boards: Sequence[dict[str, int | None]],
) -> dict[tuple[str, str], Relation]:
    """Exam pairs (a, b) that every board ranks, with the relation they all agree on."""
    if not boards:
        return {}
    figures = sorted(set().union(*boards))
    agreed: dict[tuple[str, str], Relation] = {}
    for a, b in combinations(figures, 2):
        found = set()
        for board in boards:
            sa, sb = board.get(a), board.get(b)
            found.add(None if sa is None or sb is None else relation(sa, sb))
        if len(found) == 1 and None not in found:
            agreed[(a, b)] = found.pop()  # type: ignore[assignment]
    return agreed


def merge_boards(boards: Sequence[dict[str, int | None]]) -> dict[str, int | None]:
    """A starting board that keeps every pair the boards agree on.

    Each exam gets the mean of the stages the boards give it: pairs every board orders the
    same way keep that order, agreed ties stay tied, and a disputed pair comes out tied or
    ordered by the balance of opinions, for the adjudicator to settle. An exam no board
    ranks stays unranked.
    """
    figures = sorted(set().union(*boards)) if boards else []
    means: dict[str, float | None] = {}
    for figure in figures:
        stages = [b[figure] for b in boards if b.get(figure) is not None]
        means[figure] = sum(s for s in stages if s is not None) / len(stages) if stages else None
    distinct = sorted({m for m in means.values() if m is not None})
    return dense_order(
        {f: (None if m is None else distinct.index(m) + 1) for f, m in means.items()}
    )


def board_text(board: dict[str, int | None]) -> str:
    """A one-line reading of a board: ``Figure 1 < Figure 2 = Figure 3; unranked: Figure 4``."""
    ranked = sorted((s, f) for f, s in board.items() if s is not None)
    parts: list[str] = []
    for i, (stage, figure) in enumerate(ranked):
        if i:
            parts.append(" = " if ranked[i - 1][0] == stage else " < ")
        parts.append(figure)
    unranked = sorted(f for f, s in board.items() if s is None)
    text = "".join(parts) or "nothing ranked"
    return text + (f"; unranked: {', '.join(unranked)}" if unranked else "")
