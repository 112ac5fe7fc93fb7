"""Cronbach's alpha of a parent rubric: do its benchmarks measure one thing?

An *item*, in Cronbach's sense, is one benchmark of the rubric (a scored criterion) and a
*subject* is one test case (``case_id``): the matrix is test cases x benchmarks, each cell
the mean normalised reference score of that benchmark's items on that case; only cases
scored on every benchmark count. Any other reading (items of one case in name order, as
before) made alpha depend on how items happened to be named. The interval is Feldt's
(1965) F-based one, as in pingouin's ``cronbach_alpha``; the rubric is flagged "below" 0.7
when its upper bound is under 0.7, "possibly below" when it straddles, and not at all from
fewer than :data:`CRONBACH_MIN_CASES` cases.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from annotator.agreement.decision import below_flag

CRONBACH_MIN = 0.7
CRONBACH_MIN_CASES = 10


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


def feldt_interval(alpha: float, n: int, k: int, confidence: float = 0.95) -> tuple[float, float]:
    """Feldt's interval: ``1 - (1 - alpha) F`` at the F(n-1, (n-1)(k-1)) quantiles."""
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
    ci = None if value is None else feldt_interval(value, len(cases), len(benchmarks))
    flag = below_flag("Cronbach's alpha", value, ci, len(cases), CRONBACH_MIN_CASES,
                      CRONBACH_MIN)
    return Consistency(value, ci, len(cases), len(benchmarks), flag)
