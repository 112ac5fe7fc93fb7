"""System comparisons checked against scipy.stats and statsmodels on generated data."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests
from statsmodels.stats.proportion import confint_proportions_2indep

from annotator.sme.compare import (
    MIN_PAIRED_PASS,
    MIN_PAIRS,
    MIN_RUBRIC_PAIRED,
    MIN_RUBRIC_WELCH,
    RubricComparison,
    Scored,
    bonferroni,
    compare,
    compare_benchmark,
    holm,
)


def _items(scores: np.ndarray, cases: list[str], threshold: float = 0.5) -> list[Scored]:
    return [Scored(c, float(s), bool(s >= threshold)) for c, s in zip(cases, scores, strict=True)]


def test_unpaired_is_welch_with_cohens_d_and_newcombe() -> None:
    rng = np.random.default_rng(1)
    a, b = rng.beta(5, 3, size=8), rng.beta(7, 2, size=9)
    result = compare_benchmark("B-1", "R", 1.0, _items(a, [f"a{i}" for i in range(8)]),
                               _items(b, [f"b{i}" for i in range(9)]))
    assert result.method == "Welch" and result.pairs == 0
    welch = stats.ttest_ind(b, a, equal_var=False)
    assert result.p == pytest.approx(welch.pvalue, abs=1e-12)
    interval = welch.confidence_interval(0.95)
    assert result.ci == pytest.approx((interval.low, interval.high), abs=1e-12)
    pooled = np.sqrt((7 * a.var(ddof=1) + 8 * b.var(ddof=1)) / 15)
    assert result.cohen_d == pytest.approx((b.mean() - a.mean()) / pooled, abs=1e-12)
    assert result.difference == pytest.approx(b.mean() - a.mean(), abs=1e-12)
    passes_a, passes_b = int((a >= 0.5).sum()), int((b >= 0.5).sum())
    low, high = confint_proportions_2indep(passes_b, 9, passes_a, 8, method="newcomb")
    assert result.pass_rate_ci == pytest.approx((low, high), abs=1e-9)


def test_paired_is_a_t_interval_of_the_case_differences() -> None:
    """The paired BCa it replaced covered 0.77-0.91 at 10 shared cases and 0.905 at 30
    (docs/statistics.md, coverage): the paired t interval covers >= 0.95 there."""
    rng = np.random.default_rng(2)
    cases = [f"c{i:02d}" for i in range(15)]
    a = rng.beta(4, 3, size=15)
    b = np.clip(a + rng.normal(0.08, 0.1, size=15), 0, 1)
    result = compare_benchmark("B-1", "R", 1.0, _items(a, cases), _items(b, cases), seed=4)
    assert result.method == "paired t" and result.pairs == 15
    reference = stats.ttest_rel(b, a)
    ci = reference.confidence_interval(0.95)
    assert result.ci == pytest.approx((ci.low, ci.high), abs=1e-12)
    assert result.p == pytest.approx(reference.pvalue, abs=1e-12)
    assert result.standard_error == pytest.approx(stats.sem(b - a), abs=1e-12)
    passed = (b >= 0.5).astype(float) - (a >= 0.5)
    on_pass = stats.ttest_1samp(passed, 0.0).confidence_interval(0.95)
    assert result.pass_rate_ci == pytest.approx((on_pass.low, on_pass.high), abs=1e-12)


def test_the_paired_interval_starts_at_its_stated_minimum() -> None:
    """From 10 shared cases the analysis is paired with an interval; with 9 it is Welch's."""
    assert MIN_PAIRS == MIN_PAIRED_PASS == 10
    rng = np.random.default_rng(3)
    a = rng.beta(4, 3, size=10)
    b = np.clip(a + 0.2 + rng.normal(0, 0.05, size=10), 0, 1)
    cases = [f"c{i:02d}" for i in range(10)]
    nine = compare_benchmark("R-1", "R", 1.0, _items(a[:9], cases[:9]), _items(b[:9], cases[:9]))
    assert nine.method == "Welch" and nine.pairs == 9
    ten = compare_benchmark("R-1", "R", 1.0, _items(a, cases), _items(b, cases))
    assert ten.method == "paired t" and ten.ci is not None and ten.pass_rate_ci is not None


def test_the_rubric_interval_needs_30_cases_in_each_paired_benchmark() -> None:
    """The rubric's normal interval covered 0.915 at 10 shared cases a paired benchmark
    (docs/statistics.md): below 30 the weighted difference is printed without an interval.
    With Welch members it met the target from 10 items a side."""
    assert (MIN_RUBRIC_PAIRED, MIN_RUBRIC_WELCH) == (30, 10)
    rng = np.random.default_rng(6)
    a1, a2 = rng.beta(4, 3, size=30), rng.beta(3, 3, size=30)
    b1, b2 = (np.clip(x + rng.normal(0.1, 0.1, size=30), 0, 1) for x in (a1, a2))
    cases = [f"c{i:02d}" for i in range(30)]

    def rubric(n2: int) -> RubricComparison:
        (found,) = compare("A", "B", {
            "R-1": ("R", 0.5, _items(a1, cases), _items(b1, cases)),
            "R-2": ("R", 0.5, _items(a2[:n2], cases[:n2]), _items(b2[:n2], cases[:n2])),
        }).rubrics
        return found

    few, enough = rubric(29), rubric(30)
    assert few.benchmarks == ["R-1", "R-2"] and few.difference is not None and few.ci is None
    assert enough.ci is not None and enough.ci[0] < enough.difference < enough.ci[1]
    side_a, side_b = [f"a{i:02d}" for i in range(10)], [f"b{i:02d}" for i in range(10)]

    def welch(n: int) -> RubricComparison:
        (found,) = compare("A", "B", {
            "R-1": ("R", 0.5, _items(a1[:10], side_a), _items(b1[:10], side_b)),
            "R-2": ("R", 0.5, _items(a2[:n], side_a[:n]), _items(b2[:10], side_b)),
        }).rubrics
        return found

    assert welch(9).ci is None and welch(10).ci is not None  # unpaired: from 10 a side


def test_holm_and_bonferroni_match_statsmodels() -> None:
    p = [0.01, 0.04, 0.03, 0.005, 0.5]
    assert holm(p) == pytest.approx(list(multipletests(p, method="holm")[1]), abs=1e-12)
    assert bonferroni(p) == pytest.approx(list(multipletests(p, method="bonferroni")[1]),
                                          abs=1e-12)


def test_drift_tests_and_the_five_percent_rule() -> None:
    rng = np.random.default_rng(3)
    a, b = rng.beta(8, 2, size=40), rng.beta(5, 3, size=40)
    result = compare_benchmark("B-1", "R", 1.0, _items(a, [f"a{i}" for i in range(40)]),
                               _items(b, [f"b{i}" for i in range(40)]))
    drift = result.drift
    assert drift is not None
    ks, mw = stats.ks_2samp(a, b), stats.mannwhitneyu(b, a, alternative="two-sided")
    assert (drift.ks_statistic, drift.ks_p) == pytest.approx((ks.statistic, ks.pvalue))
    assert (drift.mann_whitney_u, drift.mann_whitney_p) == pytest.approx((mw.statistic,
                                                                          mw.pvalue))
    assert drift.change == pytest.approx(b.mean() - a.mean())
    assert drift.alert == bool(abs(drift.change) > 0.05 and min(ks.pvalue, mw.pvalue) < 0.05)
    assert drift.alert  # a drop from ~0.8 to ~0.62 is confirmed
    same = compare_benchmark("B-1", "R", 1.0, _items(a, [f"a{i}" for i in range(40)]),
                             _items(a + 0.01, [f"b{i}" for i in range(40)]))
    assert same.drift is not None and not same.drift.alert


def test_conclusions_come_from_holm_and_rubrics_weight_the_differences() -> None:
    rng = np.random.default_rng(5)
    cases = [f"c{i:02d}" for i in range(30)]  # the rubric's interval needs 30 a benchmark
    base = rng.beta(4, 3, size=30)
    better = np.clip(base + 0.25 + rng.normal(0, 0.03, size=30), 0, 1)
    noise = np.clip(base + rng.normal(0, 0.05, size=30), 0, 1)
    found = compare("copilot@1.3", "copilot@1.4", {
        "R-1": ("R", 0.6, _items(base, cases), _items(better, cases)),
        "R-2": ("R", 0.2, _items(base, cases), _items(noise, cases)),
        "R-3": ("R", 0.2, _items(base[:3], cases[:3]), _items(noise[:1], cases[:1])),
    })
    by_code = {c.code: c for c in found.benchmarks}
    assert by_code["R-1"].conclusion == "B better"
    assert by_code["R-2"].conclusion == "no detectable difference"
    assert by_code["R-3"].conclusion == "too few to compare"  # one B item
    tested = [by_code["R-1"].p, by_code["R-2"].p]
    assert [by_code["R-1"].p_holm, by_code["R-2"].p_holm] == pytest.approx(holm(tested))
    (rubric,) = found.rubrics
    assert rubric.benchmarks == ["R-1", "R-2"]
    d1, d2 = by_code["R-1"].difference or 0.0, by_code["R-2"].difference or 0.0
    assert rubric.difference == pytest.approx(0.75 * d1 + 0.25 * d2)
    se = np.hypot(0.75 * (by_code["R-1"].standard_error or 0.0),
                  0.25 * (by_code["R-2"].standard_error or 0.0))
    assert rubric.ci == pytest.approx((rubric.difference - 1.959963984540054 * se,
                                       rubric.difference + 1.959963984540054 * se))


def test_worst_of_k_is_the_seeds_reliability_view() -> None:
    from annotator.sme.compare import worst_of_k

    # The seed's example: one scenario, K = 10 runs; mean 0.762, worst 0.51.
    runs = [0.78, 0.82, 0.51, 0.79, 0.85, 0.74, 0.81, 0.77, 0.83, 0.72]
    items = [Scored("s1", s, True, run=k + 1) for k, s in enumerate(runs)]
    items += [Scored("s2", 0.9, True, run=1), Scored("s2", 0.5, False, run=2),
              Scored("s3", 0.7, True)]  # s3: a single run, not in the view
    view = worst_of_k(items)
    assert view is not None and (view.k, view.cases) == (10, 2)
    s1 = view.per_case[0]
    assert (s1.case_id, s1.runs, s1.worst) == ("s1", 10, 0.51)
    assert s1.mean == pytest.approx(0.762)
    assert view.mean == pytest.approx((0.762 + 0.7) / 2)
    assert view.worst == pytest.approx((0.51 + 0.5) / 2)
    assert worst_of_k([Scored("s3", 0.7, True)]) is None
