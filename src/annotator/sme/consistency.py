"""Cronbach's alpha of a parent rubric: do its benchmarks measure one thing?

An *item*, in Cronbach's sense, is one benchmark of the rubric (a scored criterion) and a
*subject* is one test case (``case_id``): the matrix is test cases x benchmarks, each cell
the mean normalised reference score of that benchmark's items on that case; only cases
scored on every benchmark count. Any other reading (items of one case in name order, as
before) made alpha depend on how items happened to be named.

The interval is the asymptotically distribution-free (ADF) one of Maydeu-Olivares, Coffman
& Hartmann (2007) on Bonett's ln(1 - alpha) scale: Feldt's (1965) F interval assumes normal
scores and covered 0.92-0.93 at alpha 0.9 on 0..4 scores at every n (docs/statistics.md).
ADF needs many cases, so none is printed from fewer than :data:`CRONBACH_MIN_CASES`; the
rubric is flagged "below" 0.7 when the upper bound is under 0.7, "possibly below" when the
interval straddles it, and never without an interval.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from annotator.agreement.decision import below_flag

CRONBACH_MIN = 0.7
CRONBACH_MIN_CASES = 70  # ADF covered >= 0.937 from 70 cases, under 0.93 at 30


@dataclass(frozen=True)
class Consistency:
    """A rubric's Cronbach's alpha over its benchmarks (None where undefined)."""

    value: float | None
    ci: tuple[float, float] | None
    cases: int  # test cases scored on every benchmark
    items: int  # benchmarks (Cronbach's items)
    flag: str | None


def cronbach_alpha(matrix: npt.ArrayLike) -> float | None:
    """Cronbach's alpha of a subjects x items matrix (complete rows only)."""
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2:
        return None
    x = x[~np.isnan(x).any(axis=1)]
    n, k = x.shape
    if n < 2 or k < 2:
        return None
    total = x.sum(axis=1).var(ddof=1)
    if total == 0:
        return None
    return float(k / (k - 1) * (1 - x.var(axis=0, ddof=1).sum() / total))


def adf_interval(
    matrix: npt.ArrayLike, confidence: float = 0.95, log: bool = True
) -> tuple[float, float] | None:
    """The ADF interval of alpha for a complete subjects x items matrix, or None.

    Delta method on the sample covariance S with the fourth-order moments of the data:
    Var(alpha) = g' Gamma g / n, Gamma the covariance of vech((x - mean)(x - mean)'), g the
    gradient of alpha in S. g' Gamma g is the variance of each subject's influence value
    g' vech(d d'), computed directly (ddof 1). With ``log`` the interval is taken on
    ln(1 - alpha) (Bonett), which keeps it under 1; t(n - 1) quantiles.
    """
    from scipy.stats import t

    x = np.asarray(matrix, dtype=np.float64)
    alpha = cronbach_alpha(x)
    if alpha is None or alpha >= 1:
        return None
    x = x[~np.isnan(x).any(axis=1)]  # complete rows, as alpha itself
    n, k = x.shape
    d = x - x.mean(axis=0)
    cov = d.T @ d / (n - 1)
    total, trace = float(cov.sum()), float(np.trace(cov))
    # d alpha / d S_ij = k/(k-1) (tr S / T^2 - [i == j] / T), T = 1'S1, summed against d d'.
    influence = k / (k - 1) * (trace / total**2 * d.sum(axis=1) ** 2
                               - (d**2).sum(axis=1) / total)
    se = float(np.sqrt(influence.var(ddof=1) / n))
    q = float(t.ppf(1 - (1 - confidence) / 2, n - 1))
    if not log:
        return alpha - q * se, alpha + q * se
    spread = q * se / (1 - alpha)  # se of ln(1 - alpha) by the delta method
    return 1 - (1 - alpha) * float(np.exp(spread)), 1 - (1 - alpha) * float(np.exp(-spread))


def feldt_interval(alpha: float, n: int, k: int, confidence: float = 0.95) -> tuple[float, float]:
    """Feldt's interval: ``1 - (1 - alpha) F`` at the F(n-1, (n-1)(k-1)) quantiles.

    Exact for normal scores; kept for the coverage benchmark's comparison (not printed).
    """
    from scipy.stats import f

    df1, df2 = n - 1, (n - 1) * (k - 1)
    tail = (1 - confidence) / 2
    low = 1 - (1 - alpha) * float(f.ppf(1 - tail, df1, df2))
    high = 1 - (1 - alpha) * float(f.ppf(tail, df1, df2))
    return low, high


def rubric_consistency(case_scores: Mapping[str, Mapping[str, float]]) -> Consistency:
    """Cronbach's alpha of benchmark code -> (case id -> mean normalised score)."""
    benchmarks = sorted(case_scores)
    cases = sorted(set.intersection(*(set(case_scores[b]) for b in benchmarks))
                   if benchmarks else set())
    matrix = np.array([[case_scores[b][c] for b in benchmarks] for c in cases])
    value = cronbach_alpha(matrix) if len(benchmarks) >= 2 and cases else None
    enough = value is not None and len(cases) >= CRONBACH_MIN_CASES
    ci = adf_interval(matrix) if enough else None
    flag = below_flag("Cronbach's alpha", value, ci, len(cases), CRONBACH_MIN_CASES,
                      CRONBACH_MIN)
    return Consistency(value, ci, len(cases), len(benchmarks), flag)
