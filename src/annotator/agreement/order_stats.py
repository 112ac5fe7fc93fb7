"""Exam-order figures beyond relation agreement: strict pairs, Kendall's tau-b, disagreement types.

Each annotator's order board is read as dense stages over the exams the scoring core uses
(follow-ups and non-imaging exams dropped first, so "one stage apart" means what the core
sees). For every annotator pair on a case, :func:`relation_counts` counts agreeing exam
pairs, strictly ordered pairs and the kind of each disagreement; the per-case sums are the
bootstrap's sufficient statistics.
"""

from __future__ import annotations

import math
from itertools import combinations
from statistics import median
from typing import Any

import numpy as np

from annotator.agreement.bootstrap import bootstrap_ci
from annotator.agreement.options import ReportOptions
from annotator.agreement.order import (
    CASE_DISAGREEMENTS,
    DISAGREEMENT_TYPES,
    CaseDisagreement,
    case_disagreement,
    kendall_tau_b,
    relation_counts,
)
from annotator.agreement.project_data import CaseBasis
from annotator.domain.order import order_of

TYPE_WORDS = {
    "tie_vs_strict": "tie vs strict order",
    "adjacent_swap": "adjacent-rank swap",
    "reversal": "reversal",
    "reordering": "reordering (an exam moved 2+ stages)",
}


def _ratio(s: np.ndarray, num: int, den: int) -> float | None:
    return float(s[num] / s[den]) if s[den] > 0 else None


def _stages(board: dict[str, int | None], figures: list[str]) -> list[float]:
    return [math.nan if (stage := board[f]) is None else float(stage) for f in figures]


def order_stages(case: CaseBasis) -> dict[str, dict[str, int | None]]:
    """Each annotator's dense stages over the used exams (None = unranked)."""
    figures = case.used_figures
    return {key: order_of(dict(labels), figures) for key, labels in case.labels.items()}


def _case_rows(case: CaseBasis) -> tuple[list[int], list[float], list[CaseDisagreement]]:
    """Summed relation counts, defined tau-b values and disagreement types of annotator pairs."""
    figures = case.used_figures
    boards = order_stages(case)
    row = [0] * 7
    taus: list[float] = []
    kinds: list[CaseDisagreement] = []
    for first, second in combinations(sorted(boards), 2):
        a, b = _stages(boards[first], figures), _stages(boards[second], figures)
        counts = relation_counts(a, b)
        if counts.pairs == 0:
            continue
        row = [x + y for x, y in zip(row, counts.as_row(), strict=True)]
        tau = kendall_tau_b(a, b)
        if tau is not None:
            taus.append(tau)
        kind = case_disagreement(a, b)
        if kind is not None:
            kinds.append(kind)
    return row, taus, kinds


def order_relation_row(case: CaseBasis) -> list[int]:
    """One case's summed relation counts over its annotator pairs (what the strict-pair
    agreement is a ratio of): the per-case sufficient statistic the stored sums keep. The
    relation counts alone, as :func:`_case_rows` sums them (no tau-b: scipy's is the slow
    part, and the stored sums do not need it)."""
    figures = case.used_figures
    boards = order_stages(case)
    row = [0] * 7
    for first, second in combinations(sorted(boards), 2):
        counts = relation_counts(_stages(boards[first], figures), _stages(boards[second], figures))
        if counts.pairs:
            row = [x + y for x, y in zip(row, counts.as_row(), strict=True)]
    return row


def order_details(
    cases: tuple[CaseBasis, ...], annotators: list[str], options: ReportOptions
) -> dict[str, Any]:
    """Strict-pair agreement, per-case Kendall tau-b and disagreement types, with CIs.

    ``annotators`` is unused (pairs are taken per case) but keeps the family hook's form.
    A case's tau-b is the mean over its annotator pairs where defined; it is undefined when
    every pair has fewer than two commonly ranked exams or one annotator ties them all.
    """
    del annotators
    rows: list[list[int]] = []
    tau_rows: list[list[float]] = []
    case_taus: list[float] = []
    types = dict.fromkeys(CASE_DISAGREEMENTS, 0)
    for case in cases:
        row, taus, kinds = _case_rows(case)
        if row[0] == 0:
            continue  # no exam pair ranked by two annotators: no order unit in this case
        for kind in kinds:
            types[kind] += 1
        rows.append(row)
        tau = float(np.mean(taus)) if taus else None
        tau_rows.append([0.0 if tau is None else tau, 0.0 if tau is None else 1.0])
        if tau is not None:
            case_taus.append(tau)
    sums = np.array(rows, dtype=np.float64).reshape(len(rows), 7)
    total = sums.sum(axis=0)
    def ci(stats: np.ndarray, num: int, den: int) -> tuple[float, float] | None:
        return bootstrap_ci(stats, lambda s: _ratio(s, num, den), options.n_resamples,
                            options.seed, min_cases=options.min_cases)

    strict = {
        "value": _ratio(total, 3, 2),
        "ci95": ci(sums, 3, 2) if rows else None,
        "pairs": int(total[2]),
    }
    taus_arr = np.array(tau_rows, dtype=np.float64).reshape(len(tau_rows), 2)
    tau_b = {
        "mean": float(np.mean(case_taus)) if case_taus else None,
        "ci95": ci(taus_arr, 0, 1) if case_taus else None,
        "median": float(median(case_taus)) if case_taus else None,
        "n_cases": len(rows),
        "n_defined": len(case_taus),
        "n_undefined": len(rows) - len(case_taus),
    }
    most = max(CASE_DISAGREEMENTS, key=lambda k: (types[k], -CASE_DISAGREEMENTS.index(k)))
    return {
        "strict_agreement": strict,
        "kendall_tau_b": tau_b,
        "disagreement_types": types,
        "disagreement_unit": "annotator pairs per case (each pair's whole ranking typed once)",
        "pair_disagreement_types": {
            kind: int(total[4 + i]) for i, kind in enumerate(DISAGREEMENT_TYPES)},
        "most_common_disagreement": TYPE_WORDS[most] if types[most] else None,
    }
