"""The exam-order vocabulary shared by review and agreement: stages, boards and relations.

An annotator ranks a case's exams into stages (1 = first; equal stages = same step). A board
maps each figure to its dense stage; each pair of ranked exams stands in a relation ``'<'``,
``'='`` or ``'>'``, and two annotators' relations for a pair either agree or differ by one of
the disagreement types.
"""

from __future__ import annotations

from typing import Any, Literal

Relation = Literal["<", "=", ">"]
DisagreementType = Literal["tie_vs_strict", "adjacent_swap", "reversal"]
DISAGREEMENT_TYPES: tuple[DisagreementType, ...] = ("tie_vs_strict", "adjacent_swap", "reversal")


def relation(a_stage: float, b_stage: float) -> Relation:
    """Relation of exam a to exam b in one ranking: earlier ``'<'``, same stage ``'='``."""
    if a_stage < b_stage:
        return "<"
    if a_stage > b_stage:
        return ">"
    return "="


def disagreement_type(
    first: tuple[float, float], second: tuple[float, float]
) -> DisagreementType | None:
    """Classify two annotators' stages for one exam pair; None when they agree.

    ``first`` and ``second`` are ``(stage of exam a, stage of exam b)`` per annotator.
    ``tie_vs_strict``: one ties the pair, the other orders it. ``adjacent_swap``: both
    order it, oppositely, each with the exams one stage apart. ``reversal``: opposite
    orders with at least one annotator putting the exams two or more stages apart.
    """
    r1, r2 = relation(*first), relation(*second)
    if r1 == r2:
        return None
    if "=" in (r1, r2):
        return "tie_vs_strict"
    gaps = (abs(first[0] - first[1]), abs(second[0] - second[1]))
    return "adjacent_swap" if max(gaps) == 1 else "reversal"


def dense_order(stages: dict[str, int | None]) -> dict[str, int | None]:
    """Renumber stages 1..n keeping ties (1, 3, 3 -> 1, 2, 2); None stays unranked."""
    distinct = sorted({s for s in stages.values() if s is not None})
    rank = {s: i + 1 for i, s in enumerate(distinct)}
    return {f: (None if s is None else rank[s]) for f, s in sorted(stages.items())}


def order_of(labels: dict[str, Any], figures: list[str]) -> dict[str, int | None]:
    """An annotator's order board as figure -> dense stage."""
    stages: dict[str, int | None] = {}
    for figure in figures:
        entry = labels.get(f"stage:{figure}")
        stages[figure] = entry.get("value") if isinstance(entry, dict) else None
    return dense_order(stages)
