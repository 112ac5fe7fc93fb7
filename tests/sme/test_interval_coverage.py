"""Exact coverage of the pass-rate interval the app prints, from the binomial distribution.

For n items the app can only ever see k = 0..n passes, so the coverage at a true rate p is
``sum_k P(k | n, p) * [p in interval(k, n)]`` with no simulation error. The interval comes
from ``benchmark_result`` itself (the path ``sme-results`` prints).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binom
from statsmodels.stats.proportion import proportion_confint

from annotator.agreement.intervals import MIN_PROPORTION_N
from annotator.sme.results import ItemOutcome, benchmark_result
from annotator.sme.spec import Benchmark

from .specs import benchmark

NEG2 = Benchmark.model_validate(benchmark())
GRID_N = (10, 30, 100)
GRID_P = (0.03, 0.5, 0.97)  # low, middle and high prevalence (docs/statistics.md)


def _app_interval(passes: int, n: int) -> tuple[float, float]:
    outcomes = [ItemOutcome(f"i{i}", True, i < passes, 4.0 if i < passes else 0.0)
                for i in range(n)]
    result, _ = benchmark_result(NEG2, outcomes)
    assert result.pass_rate_ci is not None and result.pass_rate_n == n
    return result.pass_rate_ci


def _coverage(n: int, p: float) -> float:
    k = np.arange(n + 1)
    bounds = np.array([_app_interval(int(x), n) for x in k])
    covered = (bounds[:, 0] <= p) & (p <= bounds[:, 1])
    return float(binom.pmf(k, n, p)[covered].sum())


def test_pass_rate_interval_keeps_its_promise_on_the_grid() -> None:
    coverage = {(n, p): _coverage(n, p) for n in GRID_N for p in GRID_P}
    assert min(coverage.values()) >= 0.93, coverage
    assert 0.94 <= float(np.mean(list(coverage.values()))) <= 0.96, coverage
    # The case: p = 0.97 over 30 items covered 0.61 with a percentile bootstrap.
    assert coverage[(30, 0.97)] >= 0.93


def test_pass_rate_interval_is_wilsons() -> None:
    for passes in (0, 7, 29, 30):
        assert _app_interval(passes, 30) == pytest.approx(
            proportion_confint(passes, 30, alpha=0.05, method="wilson"), abs=1e-12)


def test_below_the_minimum_there_is_no_pass_rate_interval() -> None:
    n = MIN_PROPORTION_N - 1
    outcomes = [ItemOutcome(f"i{i}", True, True, 4.0) for i in range(n)]
    result, _ = benchmark_result(NEG2, outcomes)
    assert result.pass_rate == 1.0 and result.pass_rate_ci is None and result.pass_rate_n == n


def test_newcombe_difference_keeps_its_promise_exactly() -> None:
    """Unpaired pass-rate difference (Newcombe's hybrid score interval through ``compare``):
    exact coverage over both binomials at 10 and 30 items a side, pass rates as in the
    coverage benchmark's comparison model (A 0.736; B 0.736, 0.821, 0.932)."""
    from annotator.sme.compare import Scored, compare_benchmark

    def interval(i: int, j: int, n: int) -> tuple[float, float]:
        # Scores with some spread whatever the passes, so the comparison is made (Welch).
        a = [Scored(None, 0.5 + 0.1 * (x % 2), x < i) for x in range(n)]
        b = [Scored(None, 0.5 + 0.1 * (x % 2), x < j) for x in range(n)]
        found = compare_benchmark("B-1", "R", 1.0, a, b).pass_rate_ci
        assert found is not None
        return found

    coverage = []
    for n in (10, 30):
        k = np.arange(n + 1)
        bounds = {(i, j): interval(i, j, n) for i in k for j in k}
        for pa, pb in ((0.736, 0.736), (0.736, 0.821), (0.736, 0.932)):
            weight = binom.pmf(k, n, pa)[:, None] * binom.pmf(k, n, pb)[None, :]
            covered = np.array([[bounds[(i, j)][0] <= pb - pa <= bounds[(i, j)][1]
                                 for j in k] for i in k])
            coverage.append(float(weight[covered].sum()))
    assert min(coverage) >= 0.93, coverage
    assert 0.94 <= float(np.mean(coverage)) <= 0.96, coverage
