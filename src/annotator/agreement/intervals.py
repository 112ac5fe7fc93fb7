"""95% intervals made for small samples: Wilson for proportions, BCa bootstrap for means.

Clustered proportions (a Table 9 cell: units in cases) get Wilson's interval at the
effective sample size (:func:`wilson_effective_interval`); agreement coefficients get the
BCa bootstrap over cases of :mod:`annotator.agreement.bootstrap`.

A percentile bootstrap of a pass rate of 29/30 gives [1, 1] in a third of resample sets and
covers the true rate 61% of the time; Wilson's score interval covers it at least 93% of the
time from 10 items on (exact binomial coverage, see ``docs/statistics.md``). Means get the
bias-corrected and accelerated (BCa) bootstrap of ``scipy.stats.bootstrap``. Below a
figure's stated minimum n there is no interval: callers print "too few to estimate", never
a zero-width interval. The minimums are where the measured coverage meets the target
(``benchmarks/bench_coverage.py``): 10 items for Wilson, 30 for BCa of a mean.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from annotator.agreement._matrix import FloatArray

MIN_PROPORTION_N = 10  # Wilson coverage >= 0.93 on the grid from here (docs/statistics.md)
MIN_MEAN_N = 30  # BCa of a mean covered 0.92 at 10 items, >= 0.938 from 30 (docs/statistics.md)
N_RESAMPLES = 1000
CONFIDENCE = 0.95
TOO_FEW = "too few to estimate"
PROPORTION_METHOD = "Wilson score interval"
MEAN_METHOD = "BCa bootstrap (scipy.stats.bootstrap, 1,000 resamples, seeded)"
MIN_RUBRIC_N = 10  # Welch-Satterthwaite covered >= 0.93 on the grid from 10 items per benchmark
RUBRIC_METHOD = "Welch-Satterthwaite t interval of the weighted mean"


@dataclass(frozen=True)
class Interval:
    """A 95% interval and the n it rests on."""

    low: float
    high: float
    n: int

    @property
    def bounds(self) -> tuple[float, float]:
        return self.low, self.high


def wilson_interval(successes: int, n: int, minimum: int = MIN_PROPORTION_N) -> Interval | None:
    """Wilson's score interval of ``successes`` out of ``n``; None below ``minimum``."""
    from scipy.stats import binomtest

    if n < max(minimum, 1):
        return None
    ci = binomtest(int(successes), int(n)).proportion_ci(CONFIDENCE, method="wilson")
    return Interval(float(ci.low), float(ci.high), int(n))


def bca_interval(
    samples: Sequence[npt.ArrayLike],
    weights: Sequence[float] | None = None,
    seed: int = 0,
    minimum: int = MIN_MEAN_N,
    n_resamples: int = N_RESAMPLES,
) -> Interval | None:
    """BCa interval of the weighted sum of the means of independent ``samples``.

    One sample: the interval of its mean. Several (a rubric's benchmarks): each sample is
    resampled on its own (a stratified bootstrap) and the statistic is
    ``sum_i weights_i * mean(samples_i)``. None when any sample has fewer than ``minimum``
    values, or when BCa is undefined (no variation at all). ``n`` is the total count.
    """
    from scipy.stats import bootstrap

    data = [np.asarray(s, dtype=np.float64) for s in samples]
    w = np.ones(len(data)) if weights is None else np.asarray(weights, dtype=np.float64)
    if not data or any(len(d) < max(minimum, 2) for d in data):
        return None
    if all(np.ptp(d) == 0 for d in data):
        return None  # BCa's acceleration is 0/0: no spread to estimate from

    def statistic(*xs: FloatArray, axis: int = -1) -> FloatArray:
        total: FloatArray = np.sum([wi * x.mean(axis=axis) for wi, x in zip(w, xs, strict=True)],
                                   axis=0)
        return total

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate resamples give nan; checked below
        result = bootstrap(tuple(data), statistic, n_resamples=n_resamples, method="BCa",
                           confidence_level=CONFIDENCE, random_state=np.random.default_rng(seed),
                           vectorized=True)
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if not (np.isfinite(low) and np.isfinite(high)):
        return None
    return Interval(low, high, int(sum(len(d) for d in data)))


def welch_interval(
    samples: Sequence[npt.ArrayLike],
    weights: Sequence[float],
    minimum: int = MIN_RUBRIC_N,
) -> Interval | None:
    """Welch-Satterthwaite t interval of ``sum_i weights_i * mean(samples_i)``.

    The samples are independent (a rubric's benchmarks); the standard error is
    ``sqrt(sum w_i^2 s_i^2 / n_i)`` and the degrees of freedom Satterthwaite's (1946). With
    weights (-1, 1) this is Welch's interval of a difference of two means
    (``scipy.stats.ttest_ind(equal_var=False)``); with one sample, the t interval of its
    mean. A rubric score's stratified BCa covered 0.92-0.94 (mean 0.938) on the grid; this
    covers at least 0.93 from 10 items per benchmark (``docs/statistics.md``). None when a
    sample has fewer than ``minimum`` values or none has any spread. ``n`` is the total.
    """
    from scipy.stats import t

    data = [np.asarray(s, dtype=np.float64) for s in samples]
    w = np.asarray(weights, dtype=np.float64)
    if not data or len(w) != len(data) or any(len(d) < max(minimum, 2) for d in data):
        return None
    parts = np.array([wi**2 * d.var(ddof=1) / len(d) for wi, d in zip(w, data, strict=True)])
    variance = float(parts.sum())
    if variance <= 0:
        return None
    dof = variance**2 / float(np.sum(parts**2 / np.array([len(d) - 1 for d in data])))
    centre = float(sum(wi * d.mean() for wi, d in zip(w, data, strict=True)))
    half = float(t.ppf(1 - (1 - CONFIDENCE) / 2, dof)) * np.sqrt(variance)
    return Interval(centre - half, centre + half, int(sum(len(d) for d in data)))


def interval_text(value: float | None, ci: Interval | None, n: int, digits: int = 2) -> str:
    """``0.83 [0.70, 0.95] n=12``; ``0.75 (n=4: too few to estimate)``; ``–`` without value."""
    if value is None:
        return "–" if n == 0 else f"– (n={n})"
    figure = f"{value:.{digits}f}"
    if ci is None:
        return f"{figure} (n={n}: {TOO_FEW})"
    return f"{figure} [{ci.low:.{digits}f}, {ci.high:.{digits}f}] n={ci.n}"


def wilson_effective_interval(
    per_case: npt.ArrayLike,
    statistic: Callable[[FloatArray], float | None],
    max_n: float,
    minimum: int = MIN_PROPORTION_N,
) -> Interval | None:
    """Wilson's score interval at the effective sample size, for clustered proportions.

    For a proportion (or a mean of proportions) whose units come in cases, such as a Table
    9 cell: ``per_case`` is cases x stats, ``statistic`` maps the column sums to the
    figure (None where undefined). Its variance is the leave-one-case-out jackknife
    variance, the effective sample size ``p(1 - p) / variance`` (Kish's design effect),
    capped at ``max_n`` (the units the figure rests on) and equal to it when the variance
    is 0; Wilson's interval is then taken at that n (Dean & Pagano 2015 recommend Wilson
    with the design-effect-adjusted n for clustered binomial data). Unlike a bootstrap it
    is never zero-width at p = 0 or 1. None below ``minimum`` cases or when the figure is
    undefined. ``n`` is the number of cases.
    """
    from scipy.stats import norm

    rows = np.asarray(per_case, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] < max(minimum, 2) or max_n <= 0:
        return None
    total = rows.sum(axis=0)
    value = statistic(total)
    if value is None or not np.isfinite(value):
        return None
    p = min(max(float(value), 0.0), 1.0)
    left_out = [statistic(total - row) for row in rows]
    jackknife = np.array([v for v in left_out if v is not None and np.isfinite(v)])
    n_cases = rows.shape[0]
    variance = 0.0
    if jackknife.size >= 2:
        k = jackknife.size
        variance = (k - 1) / k * float(np.sum((jackknife - jackknife.mean()) ** 2))
    n = float(max_n) if variance <= 0 or p in (0.0, 1.0) else min(p * (1 - p) / variance,
                                                                  float(max_n))
    z = float(norm.ppf(1 - (1 - CONFIDENCE) / 2))
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return Interval(max(0.0, centre - half), min(1.0, centre + half), int(n_cases))
