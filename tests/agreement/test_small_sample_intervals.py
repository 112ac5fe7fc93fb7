"""The interval methods added for coverage (issue 25), each checked against a reference
implementation: the case bootstrap's BCa against ``scipy.stats.bootstrap(method="BCa")``,
the Welch-Satterthwaite interval against ``scipy.stats.ttest_ind(equal_var=False)`` and
``ttest_1samp``, and Wilson at the effective sample size against statsmodels' Wilson."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import bootstrap, ttest_1samp, ttest_ind
from statsmodels.stats.proportion import proportion_confint

from annotator.agreement.bootstrap import bootstrap_interval
from annotator.agreement.intervals import welch_interval, wilson_effective_interval


def _ratio_of_sums(s: np.ndarray) -> float:
    return float(s[1] / s[0])


@pytest.mark.parametrize("n_cases", [12, 40])
def test_case_bootstrap_is_scipys_bca(n_cases: int) -> None:
    rng = np.random.default_rng(n_cases)
    rows = np.column_stack([rng.uniform(1, 4, n_cases), rng.gamma(2.0, 1.0, n_cases)])
    ours = bootstrap_interval(rows, _ratio_of_sums, 1000, seed=5, min_cases=10)
    reference = bootstrap((np.arange(n_cases),),
                          lambda i: _ratio_of_sums(rows[i].sum(axis=0)), n_resamples=1000,
                          method="BCa", vectorized=False, random_state=np.random.default_rng(5))
    assert ours is not None
    assert ours.interval == pytest.approx(
        (reference.confidence_interval.low, reference.confidence_interval.high), abs=1e-12)
    percentile = np.quantile(reference.bootstrap_distribution, [0.025, 0.975])
    assert ours.interval != pytest.approx(tuple(percentile))  # BCa moved it


def test_case_bootstrap_uses_the_batch_statistic_for_the_jackknife_too() -> None:
    rng = np.random.default_rng(3)
    rows = np.column_stack([rng.uniform(1, 4, 30), rng.gamma(2.0, 1.0, 30)])
    plain = bootstrap_interval(rows, _ratio_of_sums, 500, seed=1)
    batched = bootstrap_interval(rows, _ratio_of_sums, 500, seed=1,
                                 batch=lambda sums: sums[:, 1] / sums[:, 0])
    assert plain is not None and batched is not None
    assert batched.interval == pytest.approx(plain.interval, abs=1e-12)


def test_welch_interval_is_welchs_and_the_one_sample_t() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.beta(2, 5, 14), rng.beta(5, 2, 23)
    ci = welch_interval([a, b], [-1.0, 1.0])
    reference = ttest_ind(b, a, equal_var=False).confidence_interval(0.95)
    assert ci is not None and ci.n == 37
    assert ci.bounds == pytest.approx((reference.low, reference.high), abs=1e-12)
    one = welch_interval([a], [1.0])
    t1 = ttest_1samp(a, 0).confidence_interval(0.95)
    assert one is not None and one.bounds == pytest.approx((t1.low, t1.high), abs=1e-12)


def test_welch_interval_minimum_and_no_spread() -> None:
    assert welch_interval([np.ones(9) * 0.5, np.linspace(0, 1, 20)], [0.5, 0.5]) is None
    assert welch_interval([np.ones(12), np.ones(12)], [0.5, 0.5]) is None
    assert welch_interval([np.ones(12), np.linspace(0, 1, 12)], [0.5, 0.5]) is not None


def test_wilson_at_the_effective_n_is_wilson_for_one_unit_per_case() -> None:
    # One unit per case: the jackknife variance is p(1-p)/(n-1), so the effective n is n-1.
    agree = np.array([1.0] * 17 + [0.0] * 8)
    rows = np.column_stack([np.ones(25), agree])
    ci = wilson_effective_interval(rows, _ratio_of_sums, max_n=25)
    p = 17 / 25
    expected = proportion_confint(p * 24, 24, alpha=0.05, method="wilson")
    assert ci is not None and ci.n == 25
    assert ci.bounds == pytest.approx(expected, abs=1e-12)


def test_wilson_at_the_effective_n_is_never_zero_width() -> None:
    rows = np.column_stack([np.full(12, 2.0), np.full(12, 2.0)])  # every unit agrees
    ci = wilson_effective_interval(rows, _ratio_of_sums, max_n=24)
    expected = proportion_confint(24, 24, alpha=0.05, method="wilson")
    assert ci is not None and ci.high == pytest.approx(1.0) and ci.low < 0.9
    assert ci.bounds == pytest.approx(expected, abs=1e-12)  # all units, no design effect
    assert wilson_effective_interval(rows[:9], _ratio_of_sums, max_n=18) is None  # < 10 cases
