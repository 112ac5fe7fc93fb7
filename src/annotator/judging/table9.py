"""Pairwise agreement of judges and physicians (the paper's Table 9, and more).

``ratings[rater][(run, case_id)]`` is that rater's sheet of the item. For every pair of
raters and every target: binary agreement after 0-1 vs 2-3 over the units both scored
(trajectory: each diagnosis string is a unit), exact and within-one agreement and
quadratic-weighted kappa on the raw 0-3 scores, and for trajectory E/A/U label agreement and
Cohen's kappa. The Table 9 cell is the macro average of the four binary agreements. 95%
intervals are made for small samples (:mod:`annotator.agreement.intervals`): Wilson's score
interval for a binary agreement with one unit per case, else Wilson's interval at the
effective sample size (the jackknife over cases gives the variance, so the units of a case
count together); each carries its number of cases, and below
:data:`MIN_CASES` cases there is none ("too few to estimate": a percentile bootstrap of a
4-case cell covered 42%), below :data:`ONE_UNIT_MIN_CASES` for a target with one unit per
case. Undefined values are None (``null`` in JSON), never NaN.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import combinations
from typing import Any

import numpy as np

from annotator.agreement.intervals import (
    MIN_PROPORTION_N,
    wilson_effective_interval,
    wilson_interval,
)
from annotator.agreement.kappa import kappa_from_confusion
from annotator.judging.runfile import ALL_TARGETS, LABELS, TARGETS
from annotator.judging.sheet import Sheet, acceptable, split_key

ItemKey = tuple[str, str]  # (run, case_id)
Ratings = dict[str, dict[ItemKey, Sheet]]
MIN_CASES = MIN_PROPORTION_N  # fewer cases: no interval, "too few to estimate"
# Plain Wilson (one unit per case) covered 0.914 at 10 cases, true agreement 0.95 (exact,
# docs/statistics.md); >= 0.939 at 30 and 100 cases on the grid.
ONE_UNIT_MIN_CASES = 30


def _units(a: Sheet, b: Sheet, target: str, part: str) -> list[tuple[Any, Any]]:
    """The (a, b) values of one target both raters gave on one item."""
    if target != "trajectory":
        both = a.get(target) is not None and b.get(target) is not None
        return [(a[target], b[target])] if both else []
    pairs = []
    for key, value in a.items():
        kind, diagnosis, which = split_key(key)
        if kind == "trajectory" and which == part and value is not None:
            other = b.get(key)
            if other is not None:
                pairs.append((value, other))
    return pairs


def _ratio(s: np.ndarray) -> float | None:
    return None if s[0] <= 0 else float(s[1] / s[0])


def _ci(rows: list[list[float]], statistic: Callable[[np.ndarray], float | None]) -> Any:
    """The interval of per-case rows [units, agreeing, units, agreeing, ...]: Wilson when
    every case is one unit of one proportion, else Wilson at the effective sample size."""
    if not rows:
        return None
    table = np.asarray(rows)
    if statistic is _ratio and bool((table[:, 0] == 1).all()):
        ci = wilson_interval(int(table[:, 1].sum()), len(rows), ONE_UNIT_MIN_CASES)
    else:
        ci = wilson_effective_interval(table, statistic, float(table[:, 0::2].sum()),
                                       MIN_CASES)
    return None if ci is None else [round(ci.low, 4), round(ci.high, 4)]


def _per_case(
    a: dict[ItemKey, Sheet], b: dict[ItemKey, Sheet], target: str, part: str = "score"
) -> dict[str, list[tuple[Any, Any]]]:
    cases: dict[str, list[tuple[Any, Any]]] = {}
    for item in sorted(set(a) & set(b)):
        units = _units(a[item], b[item], target, part)
        if units:
            cases.setdefault(item[1], []).extend(units)
    return cases


def _score_stats(units: Iterable[tuple[int, int]]) -> tuple[list[float], np.ndarray]:
    """[n, binary agree, exact, within one] and the 4x4 confusion table."""
    row = [0.0, 0.0, 0.0, 0.0]
    table = np.zeros((4, 4))
    for x, y in units:
        row[0] += 1
        row[1] += acceptable(x) == acceptable(y)
        row[2] += x == y
        row[3] += abs(x - y) <= 1
        table[x, y] += 1
    return row, table


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def target_figures(a: dict[ItemKey, Sheet], b: dict[ItemKey, Sheet], target: str) -> dict[str, Any]:
    """One target's figures for one pair of raters."""
    cases = _per_case(a, b, target)
    rows, tables = [], []
    for units in cases.values():
        row, table = _score_stats(units)
        rows.append(row)
        tables.append(table)
    total = np.sum(rows, axis=0) if rows else np.zeros(4)
    n = int(total[0])
    out: dict[str, Any] = {
        "binary": _rounded(_ratio(total[[0, 1]])),
        "n": n,
        "n_cases": len(rows),
        "ci": _ci([[r[0], r[1]] for r in rows], _ratio),
        "exact": _rounded(_ratio(total[[0, 2]])),
        "within_one": _rounded(_ratio(total[[0, 3]])),
        "qwk": _rounded(kappa_from_confusion(np.sum(tables, axis=0), "quadratic"))
        if tables
        else None,
    }
    if target == "trajectory":
        out.update(_label_figures(a, b))
    return out


def _label_figures(a: dict[ItemKey, Sheet], b: dict[ItemKey, Sheet]) -> dict[str, Any]:
    index = {label: i for i, label in enumerate(LABELS)}
    table = np.zeros((3, 3))
    rows = []
    for units in _per_case(a, b, "trajectory", "label").values():
        same = 0
        for x, y in units:
            table[index[x], index[y]] += 1
            same += x == y
        rows.append([float(len(units)), float(same)])
    n = int(table.sum())
    return {
        "label_n": n,
        "label_n_cases": len(rows),
        "label_agreement": _rounded(float(np.trace(table) / n)) if n else None,
        "label_ci": _ci(rows, _ratio),
        "label_kappa": _rounded(kappa_from_confusion(table)) if n else None,
    }


def _macro(
    a: dict[ItemKey, Sheet], b: dict[ItemKey, Sheet]
) -> tuple[float | None, Any, int]:
    """Macro binary agreement (equal weight per target), its interval and its cases."""
    per_target = [_per_case(a, b, t) for t in ALL_TARGETS]
    case_ids = sorted(set().union(*per_target))
    rows = []
    for case in case_ids:
        row = []
        for cases in per_target:
            stats, _ = _score_stats(cases.get(case, []))
            row.extend(stats[:2])
        rows.append(row)

    def macro(s: np.ndarray) -> float | None:
        ratios = [_ratio(s[2 * i : 2 * i + 2]) for i in range(len(ALL_TARGETS))]
        return None if any(r is None for r in ratios) else float(np.mean(ratios))  # type: ignore[arg-type]

    if not rows:
        return None, None, 0
    return _rounded(macro(np.sum(rows, axis=0))), _ci(rows, macro), len(rows)


def pair_figures(ratings: Ratings, a: str, b: str) -> dict[str, Any]:
    """The JSON object of one pair."""
    sheets_a, sheets_b = ratings.get(a, {}), ratings.get(b, {})
    shared = [i for i in set(sheets_a) & set(sheets_b) if sheets_a[i] and sheets_b[i]]
    macro, macro_ci, macro_n = _macro(sheets_a, sheets_b)
    return {
        "a": a,
        "b": b,
        "n_items": len(shared),
        "targets": {t: target_figures(sheets_a, sheets_b, t) for t in ALL_TARGETS},
        "macro_binary": macro,
        "macro_ci": macro_ci,
        "macro_n": macro_n,  # cases behind the cell
    }


def agreement(ratings: Ratings, raters: list[str] | None = None) -> dict[str, Any]:
    """``{"raters": [...], "pairs": [...]}`` for every pair, in rater order."""
    order = raters if raters is not None else list(ratings)
    return {
        "raters": order,
        "pairs": [pair_figures(ratings, a, b) for a, b in combinations(order, 2)],
    }


def _mean(values: list[int]) -> float | None:
    return round(float(np.mean(values)), 4) if values else None


def run_means(ratings: Ratings, judges: list[str], human: str = "human") -> list[dict[str, Any]]:
    """Per run and target: each judge's mean score vs the human reference's, same units."""
    rows = []
    runs = sorted({item[0] for sheets in ratings.values() for item in sheets})
    for run in runs:
        for judge in judges:
            for target in ALL_TARGETS:
                a = {i: s for i, s in ratings.get(judge, {}).items() if i[0] == run}
                units = [
                    u for us in _per_case(a, ratings.get(human, {}), target).values() for u in us
                ]
                rows.append(
                    {
                        "run": run,
                        "judge": judge,
                        "target": target,
                        "n": len(units),
                        "judge_mean": _mean([x for x, _ in units]),
                        "human_mean": _mean([y for _, y in units]),
                    }
                )
    return rows


def big_differences(
    ratings: Ratings, judges: list[str], human: str = "human", gap: int = 2
) -> list[dict[str, Any]]:
    """Units where the human reference and a judge differ by ``gap`` or more, to read."""
    out = []
    reference = ratings.get(human, {})
    for judge in judges:
        for item, sheet in sorted(ratings.get(judge, {}).items()):
            other = reference.get(item, {})
            for key, value in sheet.items():
                target, diagnosis, part = split_key(key)
                theirs = other.get(key)
                if part != "score" or theirs is None or value is None:
                    continue
                if abs(value - theirs) >= gap:
                    out.append(
                        {
                            "run": item[0],
                            "case_id": item[1],
                            "target": target,
                            "diagnosis": diagnosis,
                            "judge": judge,
                            "judge_score": value,
                            "human_score": theirs,
                        }
                    )
    return out


__all__ = ["TARGETS", "agreement", "big_differences", "pair_figures", "run_means"]
