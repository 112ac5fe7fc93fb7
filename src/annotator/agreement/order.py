"""Agreement on exam order: relations between exam pairs, Kendall's tau-b, disagreement types.

An annotator ranks a case's exams into stages (1 = first; equal stages = same step). The
units of order agreement are the pairs of ranked exams: each annotator's ranking implies a
relation ``'<'``, ``'='`` or ``'>'`` for every pair, and two annotators agree on a pair when
they imply the same relation.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

from annotator.domain.order import (
    DISAGREEMENT_TYPES,
    DisagreementType,
    Relation,
    disagreement_type,
    relation,
)

__all__ = [
    "CASE_DISAGREEMENTS", "DISAGREEMENT_TYPES", "CaseDisagreement", "DisagreementType",
    "Relation", "RelationCounts", "case_disagreement", "disagreement_type", "kendall_tau_b",
    "relation", "relation_agreement", "relation_counts",
]

# How two whole rankings of one case differ (agreement's unit; the pair types are in domain).
CaseDisagreement = Literal["tie_vs_strict", "adjacent_swap", "reversal", "reordering"]
CASE_DISAGREEMENTS: tuple[CaseDisagreement, ...] = (
    "tie_vs_strict", "adjacent_swap", "reversal", "reordering")


def case_disagreement(first: Sequence[float], second: Sequence[float]) -> CaseDisagreement | None:
    """Classify two annotators' whole rankings of one case (None: they imply the same order).

    Pair by pair, a full reversal of three exams looks like two adjacent swaps and one
    reversal; the ranking as a whole is typed here instead, from the exam pairs ranked by
    both: ``tie_vs_strict`` when no pair is ordered oppositely (only ties differ);
    ``adjacent_swap`` when every oppositely ordered pair is one stage apart in both rankings
    (neighbouring stages exchanged); ``reversal`` when no pair both annotators order keeps
    its order (the ranking is turned round); ``reordering`` otherwise (an exam moved by two
    or more stages).
    """
    stages = _paired_stages(first, second)
    concordant = discordant = ties = 0
    adjacent = True
    for (a1, a2), (b1, b2) in combinations(stages, 2):
        r1, r2 = relation(a1, b1), relation(a2, b2)
        if r1 == r2:
            concordant += r1 != "="
        elif "=" in (r1, r2):
            ties += 1
        else:
            discordant += 1
            adjacent = adjacent and abs(a1 - b1) == 1 and abs(a2 - b2) == 1
    if discordant == 0:
        return "tie_vs_strict" if ties else None
    if adjacent:
        return "adjacent_swap"
    return "reversal" if concordant == 0 else "reordering"


@dataclass(frozen=True)
class RelationCounts:
    """Pair counts of two annotators' rankings of one case (additive over cases).

    ``strict_pairs`` are the pairs that at least one annotator ordered strictly: pairs both
    annotators tie are left out there, because they agree trivially.
    """

    pairs: int = 0
    agreeing: int = 0
    strict_pairs: int = 0
    strict_agreeing: int = 0
    tie_vs_strict: int = 0
    adjacent_swap: int = 0
    reversal: int = 0

    def as_row(self) -> list[int]:
        """The counts in field order, one row of a per-case statistics array."""
        return [
            self.pairs,
            self.agreeing,
            self.strict_pairs,
            self.strict_agreeing,
            self.tie_vs_strict,
            self.adjacent_swap,
            self.reversal,
        ]


def _paired_stages(first: Sequence[float], second: Sequence[float]) -> list[tuple[float, float]]:
    if len(first) != len(second):
        raise ValueError("both rankings must list a stage for the same exams, in the same order")
    # An exam one annotator did not rank is not a unit of order agreement.
    return [(float(a), float(b)) for a, b in zip(first, second, strict=True) if a == a and b == b]


def relation_counts(first: Sequence[float], second: Sequence[float]) -> RelationCounts:
    """Count agreement on relations over every pair of exams ranked by both annotators.

    ``first[i]`` and ``second[i]`` are the two annotators' stages of exam i (nan = not
    ranked, which drops the exam).
    """
    stages = _paired_stages(first, second)
    counts = dict.fromkeys(("pairs", "agreeing", "strict_pairs", "strict_agreeing"), 0)
    kinds = dict.fromkeys(DISAGREEMENT_TYPES, 0)
    # stages[i] = (first annotator's stage, second annotator's stage) of exam i.
    for (first_i, second_i), (first_j, second_j) in combinations(stages, 2):
        kind = disagreement_type((first_i, first_j), (second_i, second_j))
        strict = relation(first_i, first_j) != "=" or relation(second_i, second_j) != "="
        counts["pairs"] += 1
        counts["strict_pairs"] += strict
        if kind is None:
            counts["agreeing"] += 1
            counts["strict_agreeing"] += strict
        else:
            kinds[kind] += 1
    return RelationCounts(**counts, **kinds)


def relation_agreement(
    first: Sequence[float], second: Sequence[float], strict_only: bool = False
) -> float | None:
    """Share of exam pairs on which two rankings imply the same relation (None: no pairs).

    With ``strict_only`` only pairs ordered strictly by at least one annotator count.
    """
    counts = relation_counts(first, second)
    agreeing, total = (
        (counts.strict_agreeing, counts.strict_pairs)
        if strict_only
        else (counts.agreeing, counts.pairs)
    )
    return agreeing / total if total else None


def kendall_tau_b(first: Sequence[float], second: Sequence[float]) -> float | None:
    """Kendall's tau-b between two rankings of one case (scipy); None when undefined.

    Undefined with fewer than two exams ranked by both, or when either annotator puts
    every exam on the same stage.
    """
    from scipy.stats import kendalltau

    stages = _paired_stages(first, second)
    if len(stages) < 2:
        return None
    a, b = np.array(stages).T
    if len(np.unique(a)) < 2 or len(np.unique(b)) < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        tau = kendalltau(a, b).statistic
    return float(tau) if np.isfinite(tau) else None
