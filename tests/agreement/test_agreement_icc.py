"""ICC in the six Shrout & Fleiss forms, with F-distribution confidence intervals."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.agreement import ICC_FORMS, icc

# Shrout & Fleiss (1979), Table 4 values for their Table 2 data.
PUBLISHED = {
    "ICC(1,1)": 0.1657,
    "ICC(2,1)": 0.2898,
    "ICC(3,1)": 0.7148,
    "ICC(1,k)": 0.4428,
    "ICC(2,k)": 0.6201,
    "ICC(3,k)": 0.9093,
}
# R psych::ICC on the same data (as reproduced in pingouin's tests), two decimals.
PSYCH_CI = {
    "ICC(1,1)": (-0.13, 0.72),
    "ICC(2,1)": (0.02, 0.76),
    "ICC(3,1)": (0.34, 0.95),
    "ICC(1,k)": (-0.88, 0.91),
    "ICC(2,k)": (0.07, 0.93),
    "ICC(3,k)": (0.68, 0.99),
}


def test_shrout_fleiss_table_values_and_cis(shrout_fleiss: np.ndarray) -> None:
    result = icc(shrout_fleiss)
    assert result is not None
    assert tuple(result) == ICC_FORMS
    for form, expected in PUBLISHED.items():
        assert result[form].value is not None
        assert round(result[form].value, 4) == expected  # type: ignore[arg-type]
        ci = result[form].ci95
        assert ci is not None
        assert (round(ci[0], 2), round(ci[1], 2)) == PSYCH_CI[form]
        assert ci[0] < result[form].value < ci[1]  # type: ignore[operator]


def test_incomplete_rows_are_dropped(shrout_fleiss: np.ndarray) -> None:
    with_gap = np.vstack([shrout_fleiss, [3.0, np.nan, 4.0, 5.0]])
    assert icc(with_gap) == icc(shrout_fleiss)


def test_icc3k_equals_cronbach_alpha(rng: np.random.Generator) -> None:
    # ICC(3,k) is Cronbach's alpha of the judges (an independent formula).
    scores = rng.normal(size=(40, 1)) + rng.normal(scale=0.7, size=(40, 3)) + [0.0, 0.5, 1.0]
    k = scores.shape[1]
    alpha = k / (k - 1) * (1 - scores.var(axis=0, ddof=1).sum() / scores.sum(axis=1).var(ddof=1))
    result = icc(scores)
    assert result is not None
    assert result["ICC(3,k)"].value == pytest.approx(alpha)
    # Rater mean shifts lower absolute agreement below consistency.
    assert result["ICC(2,1)"].value < result["ICC(3,1)"].value  # type: ignore[operator]


def test_icc1_matches_one_way_anova(rng: np.random.Generator) -> None:
    from scipy.stats import f_oneway

    scores = rng.normal(size=(25, 1)) + rng.normal(size=(25, 4))
    n, k = scores.shape
    f_stat = f_oneway(*scores).statistic  # targets as groups: F = MSR / MSW
    result = icc(scores)
    assert result is not None
    assert result["ICC(1,1)"].value == pytest.approx((f_stat - 1) / (f_stat + k - 1))
    assert result["ICC(1,k)"].value == pytest.approx(1 - 1 / f_stat)
    assert n == 25


def test_degenerate_inputs() -> None:
    assert icc(np.array([[1.0, 2.0], [np.nan, 3.0]])) is None  # one complete row
    assert icc(np.array([[1.0], [2.0], [3.0]])) is None  # one judge
    constant = icc(np.full((5, 3), 4.0))
    assert constant is not None
    assert all(r.value is None and r.ci95 is None for r in constant.values())
