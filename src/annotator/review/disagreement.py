"""What kind of disagreement a conflict is, and how much it matters to the benchmark.

The queue shows first what changes the scoring core's numbers most: a discard (the case
leaves the release), essential vs not essential (the only importance distinction the core
reads), order reversals; then the rest; optional vs unnecessary last, because the core reads
both as optional, which is why those conflicts may be resolved in bulk.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import Any

from annotator.domain.labels import DIFFICULTY, IMPORTANCE, RARITY
from annotator.domain.order import disagreement_type

# Order disagreements from mild to severe; a board's type is its most severe pair.
ORDER_TYPES = ("ranked_vs_unranked", "tie_vs_strict", "adjacent_swap", "reversal")
BULK_TYPES = ("optional_vs_unnecessary",)
SCALES: dict[str, Sequence[str]] = {
    "importance": IMPORTANCE,
    "difficulty": DIFFICULTY,
    "rarity": RARITY,
}

# Impact groups, most important first (the queue sorts on these numbers).
IMPACT_GROUPS = {
    0: "discard",
    1: "essential vs not essential",
    2: "order reversal",
    3: "order",
    4: "metadata, caption and rubric",
    5: "difficulty and rarity",
    6: "other importance and step text",
    9: "optional vs unnecessary (bulk)",
}


def _scale_type(values: Sequence[Any], scale: Sequence[str]) -> str:
    def rank(value: Any) -> int:
        return scale.index(value) if value in scale else -1

    distinct = sorted({v for v in values if v is not None}, key=rank)
    names = (["unset"] if any(v is None for v in values) else []) + [str(v) for v in distinct]
    return "_vs_".join(names)


def order_type(boards: Sequence[dict[str, int | None]]) -> str | None:
    """The most severe disagreement between any two boards (figure -> stage); None if equal."""
    worst = -1
    for first, second in combinations(boards, 2):
        figures = sorted(set(first) | set(second))
        if any((first.get(f) is None) != (second.get(f) is None) for f in figures):
            worst = max(worst, 0)
        both = [f for f in figures if first.get(f) is not None and second.get(f) is not None]
        for a, b in combinations(both, 2):
            kind = disagreement_type(
                (float(first[a] or 0), float(first[b] or 0)),
                (float(second[a] or 0), float(second[b] or 0)),
            )
            if kind is not None:
                worst = max(worst, ORDER_TYPES.index(kind))
    return ORDER_TYPES[worst] if worst >= 0 else None


def disagreement(family: str, values: Sequence[Any]) -> str:
    """A short name for how ``values`` (one per reviewer) differ, e.g. ``essential_vs_optional``."""
    if family == "discard":
        return "discard_vs_keep"
    if family in SCALES:
        return _scale_type(values, SCALES[family])
    if family == "order":
        return order_type([v for v in values if isinstance(v, dict)]) or "order"
    if family == "meta":
        return "metadata"
    return f"{family}_text"  # caption_text, step_text, rubric_text


def impact(family: str, kind: str | None) -> int:
    """Queue position group of a conflict (lower comes first); see IMPACT_GROUPS."""
    if family == "discard":
        return 0
    if family == "importance":
        if kind in BULK_TYPES:
            return 9
        return 1 if "essential" in (kind or "").split("_vs_") else 6
    if family == "order":
        return 2 if kind == "reversal" else 3
    if family in ("meta", "caption", "rubric"):
        return 4
    if family in ("difficulty", "rarity"):
        return 5
    return 6


def bulk_resolvable(kind: str | None) -> bool:
    """True for conflicts that do not change the benchmark's numbers (resolved in bulk)."""
    return kind in BULK_TYPES
