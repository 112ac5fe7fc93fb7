"""Seeded 95% BCa bootstrap over cases, on per-case sufficient statistics.

Resampling cases and recomputing a coefficient from raw rows costs a full recomputation
per resample. Every coefficient here is instead a function of column sums of per-case
statistics (agreeing and total pairs, category counts, confusion or coincidence tables;
see :mod:`annotator.agreement.sufficient`), so one resample is a weighted sum: the weight
of a case is the number of times it was drawn. A case drawn twice thus counts as two
distinct cases, exactly as if its copies had been re-keyed, and units of different draws
are never merged. 1,000 cases x 1,000 resamples is one matrix product.

Examples of per-case statistics for :func:`bootstrap_ci`::

    relation agreement   rows RelationCounts.as_row()  ->  lambda s: s[1] / s[0]
    mean tau-b per case  rows [tau or 0, 1 if defined] ->  lambda s: s[0] / s[1]
    Cohen's kappa        cases x k x k confusion counts -> kappa_from_confusion
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from typing import Literal, TypedDict, Unpack

import numpy as np
import numpy.typing as npt

from annotator.agreement._matrix import FloatArray, IntArray, as_ratings
from annotator.agreement.kappa import (
    Weights,
    mean_kappa_from_confusions,
    pair_confusions,
)
from annotator.agreement.sufficient import Decomposition, Level, decompose

MIN_CASES = 20
# The smallest n of 30, 50, 70, 100 cases at which the BCa interval of these met the target
# (coverage >= 0.93 at every grid point, mean 0.94-0.96) on the coverage grid
# (benchmarks/bench_coverage.py, docs/statistics.md): no interval from fewer cases.
# One minimum per coefficient: alpha's is that of its worst level (interval alpha covered
# 0.929 at 50 and 0.923 at 70 cases at low agreement); AC1 and AC2 met the target from 50
# (0.914 and 0.863 at their worst point at 30); Fleiss' kappa from 30 (0.932 at its worst).
# Percent agreement, unanimity and PABAK covered 0.895-0.925 at 30 cases at low agreement
# (0.82-0.87 at 20) and >= 0.934 from 50; Cohen's kappa 0.927 at 20 and 0.914 at 25 cases,
# >= 0.941 from 30. So no agreement coefficient prints an interval from fewer than 30 cases.
STATED_MIN_CASES: dict[str, int] = {
    "krippendorff_alpha": 100, "fleiss_kappa": 30, "gwet_ac1": 50, "gwet_ac2": 50,
    "percent_agreement": 50, "unanimity": 50, "pabak": 50,
    "cohen_kappa": 30, "mean_pairwise_cohen_kappa": 30,
}
_NAMES = {"krippendorff_alpha": "Krippendorff's alpha", "fleiss_kappa": "Fleiss' kappa",
          "gwet_ac1": "Gwet's AC1", "gwet_ac2": "Gwet's AC2",
          "percent_agreement": "exact agreement", "unanimity": "unanimity", "pabak": "PABAK",
          "cohen_kappa": "Cohen's kappa", "mean_pairwise_cohen_kappa": "Cohen's kappa"}


def min_cases_of(coefficient: str) -> int:
    """The fewest cases with a printed interval for ``coefficient`` (coverage measured)."""
    return STATED_MIN_CASES.get(coefficient, MIN_CASES)


def stated_minimums() -> str:
    """The stated minimums in words: ``30 for Fleiss' kappa, ...; 50 for ...``."""
    by_n: dict[int, list[str]] = {}
    for coefficient, n in STATED_MIN_CASES.items():
        names = by_n.setdefault(n, [])
        if _NAMES[coefficient] not in names:
            names.append(_NAMES[coefficient])
    return "; ".join(f"{n} for {', '.join(names)}" for n, names in sorted(by_n.items()))

NOMINAL_CASES = 30  # fewer cases: coverage below nominal (docs/statistics.md, coverage table)
Coefficient = Literal[
    "percent_agreement",
    "unanimity",
    "pabak",
    "fleiss_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "krippendorff_alpha",
    "cohen_kappa",
    "mean_pairwise_cohen_kappa",
]
_BLOCK = 200  # resamples per matrix product: bounds memory for large case counts


def bootstrap_draws(n_cases: int, n_resamples: int = 1000, seed: int = 0) -> IntArray:
    """The case indices drawn, resamples x n_cases; the one source of draws for a seed."""
    rng = np.random.default_rng(seed)
    draws: IntArray = rng.integers(0, n_cases, size=(n_resamples, n_cases), dtype=np.int64)
    return draws


@dataclass(frozen=True)
class BootstrapCI:
    """A BCa interval and how many resamples it rests on.

    ``dropped`` resamples gave an undefined statistic (a rare label drawn in no resample,
    no variation left) and are left out of the quantiles rather than voiding the interval;
    ``n_cases`` below :data:`NOMINAL_CASES` means the coverage is below nominal.
    """

    low: float
    high: float
    n_resamples: int
    dropped: int
    n_cases: int

    @property
    def interval(self) -> tuple[float, float]:
        return self.low, self.high

    @property
    def below_nominal(self) -> bool:
        return self.n_cases < NOMINAL_CASES

    def as_dict(self) -> dict[str, float | int | bool]:
        """The JSON form: the interval's resamples, drops and the coverage flag."""
        return {"n_resamples": self.n_resamples, "dropped_resamples": self.dropped,
                "n_cases": self.n_cases, "coverage_below_nominal": self.below_nominal}


def bootstrap_interval(
    per_case_stats: npt.ArrayLike,
    statistic: Callable[[FloatArray], float | None],
    n_resamples: int = 1000,
    seed: int = 0,
    *,
    min_cases: int = MIN_CASES,
    confidence: float = 0.95,
    batch: Callable[[FloatArray], FloatArray] | None = None,
) -> BootstrapCI | None:
    """BCa bootstrap CI of ``statistic`` over cases, with the count of dropped resamples.

    ``per_case_stats`` is cases x ... (one row per case, any trailing shape);
    ``statistic`` receives the sum of the drawn rows (shape ``per_case_stats.shape[1:]``)
    and returns the coefficient or None. ``batch``, when given, computes the same statistic
    for a block of resample sums at once (block x ...; nan where undefined) and is used
    instead. Resamples where it is undefined (None or nan) are dropped and counted.
    Returns None below ``min_cases`` cases, when every resample is undefined, or when the
    statistic is undefined on all cases.

    The interval is Efron's bias-corrected and accelerated (BCa) percentile interval,
    computed as ``scipy.stats.bootstrap(method="BCa")`` does (the same draws for a seed, so
    the two agree to rounding when no resample is undefined): the bias correction from the
    share of resamples below the estimate (ties count half), the acceleration from the
    leave-one-case-out jackknife, which on case sums is ``statistic(total - row)``. The
    plain percentile interval it replaces covered 0.82-0.94 at 30 units (issue 25).
    """
    stats = np.asarray(per_case_stats, dtype=np.float64)
    n_cases = stats.shape[0]
    if n_cases < max(min_cases, 2) or n_resamples < 1:
        return None
    shape = stats.shape[1:]
    flat = stats.reshape(n_cases, -1)

    def evaluate(sums: FloatArray) -> FloatArray:
        """The statistic of each row of ``sums`` (rows x flattened stats); nan if undefined."""
        if batch is not None:
            return np.asarray(batch(sums.reshape(len(sums), *shape)), dtype=np.float64)
        out = np.empty(len(sums))
        for i, row in enumerate(sums.reshape((len(sums), *shape))):
            value = statistic(row)
            out[i] = np.nan if value is None else value
        return out

    total = flat.sum(axis=0)
    estimate = evaluate(total[None, :])[0]
    if not np.isfinite(estimate):
        return None
    draws = bootstrap_draws(n_cases, n_resamples, seed)
    values = np.empty(n_resamples)
    for start in range(0, n_resamples, _BLOCK):
        block = draws[start : start + _BLOCK]
        # weights[r, c] = how often case c was drawn in resample r.
        offsets = np.arange(len(block))[:, None] * n_cases
        weights = np.bincount((block + offsets).ravel(), minlength=len(block) * n_cases)
        sums = weights.reshape(len(block), n_cases).astype(np.float64) @ flat
        values[start : start + len(block)] = evaluate(sums)
    defined = values[np.isfinite(values)]
    if defined.size == 0:
        return None
    jackknife = evaluate(total[None, :] - flat)
    low, high = bca_bounds(defined, float(estimate), jackknife[np.isfinite(jackknife)],
                           confidence)
    return BootstrapCI(low, high, n_resamples, n_resamples - defined.size, n_cases)


def bca_bounds(
    resampled: FloatArray, estimate: float, jackknife: FloatArray, confidence: float = 0.95
) -> tuple[float, float]:
    """Efron's BCa bounds from bootstrap values, the estimate and jackknife values.

    As ``scipy.stats.bootstrap(method="BCa")`` (Efron & Tibshirani 1993, 14.3): z0 from
    the share of resamples below the estimate (ties count half), the acceleration
    ``sum d^3 / (6 (sum d^2)^1.5)`` with ``d`` the jackknife values' deviations from their
    mean (0 when they do not vary), and the adjusted percentiles of the resamples.
    """
    from scipy.special import ndtr, ndtri

    below = (np.count_nonzero(resampled < estimate)
             + np.count_nonzero(resampled <= estimate)) / (2 * resampled.size)
    # Every resample on one side of the estimate (scipy gives nan there): the share is
    # clipped to half a resample, so the interval ends at the extreme resamples' side.
    half = 1 / (2 * resampled.size)
    z0 = float(ndtri(min(max(below, half), 1 - half)))
    d = jackknife.mean() - jackknife if jackknife.size else np.zeros(1)
    spread = float(np.sum(d**2))
    accel = float(np.sum(d**3)) / (6 * spread**1.5) if spread > 0 else 0.0
    tail = (1 - confidence) / 2
    levels = []
    for z in (float(ndtri(tail)), float(ndtri(1 - tail))):
        shifted = z0 + z
        denominator = 1 - accel * shifted
        levels.append(float(ndtr(z0 + shifted / denominator)) if denominator > 0
                      else float(shifted > 0))
    low, high = np.percentile(resampled, [100 * levels[0], 100 * levels[1]])
    return float(low), float(high)


class IntervalOptions(TypedDict, total=False):
    """The keyword options of :func:`bootstrap_ci` (:func:`bootstrap_interval`'s defaults)."""

    min_cases: int
    confidence: float


def bootstrap_ci(
    per_case_stats: npt.ArrayLike,
    statistic: Callable[[FloatArray], float | None],
    n_resamples: int = 1000,
    seed: int = 0,
    **options: Unpack[IntervalOptions],
) -> tuple[float, float] | None:
    """The interval of :func:`bootstrap_interval` alone (undefined resamples dropped)."""
    ci = bootstrap_interval(per_case_stats, statistic, n_resamples, seed, **options)
    return None if ci is None else ci.interval


def per_case_sums(
    unit_stats: npt.ArrayLike, case_ids: Sequence[Hashable]
) -> tuple[list[Hashable], FloatArray]:
    """Sum unit rows by case: ``(cases in order of first appearance, cases x ... sums)``."""
    stats = np.asarray(unit_stats, dtype=np.float64)
    if len(case_ids) != stats.shape[0]:
        raise ValueError(f"{len(case_ids)} case ids for {stats.shape[0]} units")
    index: dict[Hashable, int] = {}
    codes = np.fromiter((index.setdefault(c, len(index)) for c in case_ids), dtype=np.int64)
    sums = np.zeros((len(index), *stats.shape[1:]))
    np.add.at(sums, codes, stats)
    return list(index), sums


def _decomposition(
    matrix: FloatArray,
    coefficient: Coefficient,
    n_categories: int | None,
    level: Level | None,
    weights: Weights,
    values: Sequence[float] | None,
) -> Decomposition:
    if coefficient in ("cohen_kappa", "mean_pairwise_cohen_kappa"):
        if n_categories is None:
            raise ValueError(f"{coefficient} needs n_categories (the full label set)")
        if coefficient == "cohen_kappa" and matrix.shape[1] != 2:
            raise ValueError("cohen_kappa needs a matrix of exactly two rater columns")
        tables = pair_confusions(matrix, n_categories)
        return Decomposition(tables, lambda s: mean_kappa_from_confusions(s, weights, values))
    return decompose(matrix, coefficient, n_categories=n_categories, level=level,
                     weights=weights)


def case_bootstrap_interval(
    matrix: npt.ArrayLike,
    case_ids: Sequence[Hashable],
    coefficient: Coefficient,
    *,
    n_categories: int | None = None,
    level: Level | None = None,
    weights: Weights = None,
    values: Sequence[float] | None = None,
    n_resamples: int = 1000,
    seed: int = 0,
    min_cases: int = MIN_CASES,
) -> BootstrapCI | None:
    """95% bootstrap CI over cases of a coefficient of a units x raters ``matrix``.

    ``case_ids[u]`` names the case of unit (row) u; units of a case are resampled together.
    ``coefficient`` names a function of :mod:`annotator.agreement.coefficients` or
    :mod:`annotator.agreement.kappa` (``cohen_kappa`` on a two-column matrix); its options
    are passed as for that function. None below ``min_cases`` cases or when every resample
    is undefined; undefined resamples are dropped and counted.
    """
    ratings = as_ratings(matrix)
    parts = _decomposition(ratings, coefficient, n_categories, level, weights, values)
    _, sums = per_case_sums(parts.unit_stats, case_ids)
    return bootstrap_interval(sums, parts.from_sums, n_resamples, seed, min_cases=min_cases)


class CaseBootstrapOptions(TypedDict, total=False):
    """The keyword options of :func:`case_bootstrap_interval` (its defaults apply)."""

    n_categories: int | None
    level: Level | None
    weights: Weights
    values: Sequence[float] | None
    n_resamples: int
    seed: int
    min_cases: int


def case_bootstrap(
    matrix: npt.ArrayLike,
    case_ids: Sequence[Hashable],
    coefficient: Coefficient,
    **options: Unpack[CaseBootstrapOptions],
) -> tuple[float, float] | None:
    """The interval of :func:`case_bootstrap_interval` alone (the same options)."""
    ci = case_bootstrap_interval(matrix, case_ids, coefficient, **options)
    return None if ci is None else ci.interval
