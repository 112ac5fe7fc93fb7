"""95% intervals made for small samples: Wilson for proportions, BCa bootstrap for means.

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


def interval_text(value: float | None, ci: Interval | None, n: int, digits: int = 2) -> str:
    """``0.83 [0.70, 0.95] n=12``; ``0.75 (n=4: too few to estimate)``; ``–`` without value."""
    if value is None:
        return "–" if n == 0 else f"– (n={n})"
    figure = f"{value:.{digits}f}"
    if ci is None:
        return f"{figure} (n={n}: {TOO_FEW})"
    return f"{figure} [{ci.low:.{digits}f}, {ci.high:.{digits}f}] n={ci.n}"


def case_bca_interval(
    per_case: npt.ArrayLike,
    statistic: Callable[[FloatArray], float | None],
    seed: int = 0,
    minimum: int = MIN_PROPORTION_N,
    n_resamples: int = N_RESAMPLES,
) -> Interval | None:
    """BCa interval over cases of a statistic of the column sums of per-case rows.

    ``per_case`` is cases x stats (e.g. [units, agreeing units] per case); a resample draws
    cases and ``statistic`` receives the sums of the drawn rows (None where undefined).
    None below ``minimum`` cases, or when BCa is undefined (no spread, undefined resamples).
    ``n`` is the number of cases.
    """
    from scipy.stats import bootstrap

    rows = np.asarray(per_case, dtype=np.float64)
    if rows.ndim != 2 or rows.shape[0] < max(minimum, 2):
        return None

    def of_cases(index: FloatArray) -> float:
        value = statistic(rows[index.astype(np.int64)].sum(axis=0))
        return np.nan if value is None else float(value)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # degenerate data: nan bounds, checked below
        result = bootstrap((np.arange(rows.shape[0], dtype=np.float64),), of_cases,
                           n_resamples=n_resamples, method="BCa", vectorized=False,
                           confidence_level=CONFIDENCE, random_state=np.random.default_rng(seed))
    low, high = float(result.confidence_interval.low), float(result.confidence_interval.high)
    if not (np.isfinite(low) and np.isfinite(high)):
        return None
    return Interval(low, high, int(rows.shape[0]))
