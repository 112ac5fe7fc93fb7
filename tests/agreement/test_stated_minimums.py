"""Each coefficient's stated minimum (docs/statistics.md, coverage table) is where its
interval starts: no interval from one case fewer, an interval from exactly that many."""

from __future__ import annotations

from typing import get_args

import numpy as np
import pytest

from annotator.agreement.bootstrap import (
    MIN_CASES,
    NOMINAL_CASES,
    STATED_MIN_CASES,
    Coefficient,
    min_cases_of,
)
from annotator.agreement.measure import Measure, Ratings

VALUES = np.array([1.0, 2.0, 3.5, 5.0, 11.0])
MEASURES = [
    Measure("fleiss_kappa", n_categories=5),
    Measure("krippendorff_alpha", n_categories=5, level="nominal"),
    Measure("krippendorff_alpha", n_categories=5, level="ordinal"),
    Measure("krippendorff_alpha", "values", level="interval"),
    Measure("krippendorff_alpha", "values", level="ratio"),
    Measure("gwet_ac1", n_categories=5),
    Measure("gwet_ac2", n_categories=5, weights="quadratic"),
    Measure("percent_agreement"),
    Measure("unanimity"),
    Measure("pabak", n_categories=5),
    Measure("mean_pairwise_cohen_kappa", n_categories=5),
]
# Where the coverage grid put them (docs/statistics.md): percent agreement, unanimity and
# PABAK covered 0.895-0.925 at 30 cases, Cohen's kappa 0.914 at 25.
MEASURED = {"percent_agreement": 50, "unanimity": 50, "pabak": 50, "cohen_kappa": 30,
            "mean_pairwise_cohen_kappa": 30}


def _ratings(n_cases: int, raters: int = 3) -> Ratings:
    """Raters who mostly agree, two units per case (units resampled together)."""
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 5, size=2 * n_cases)
    noise = rng.integers(0, 5, size=(2 * n_cases, raters))
    codes = np.where(rng.random((2 * n_cases, raters)) < 0.6, truth[:, None], noise)
    codes = codes.astype(float)
    return Ratings(codes, [u // 2 for u in range(2 * n_cases)], VALUES[codes.astype(int)])


def test_every_coefficient_has_a_measured_minimum_of_at_least_30() -> None:
    # Every coefficient was measured on the grid, and none prints an interval from fewer
    # than NOMINAL_CASES cases (so no "coverage below nominal" flag is needed for them).
    assert set(STATED_MIN_CASES) == set(get_args(Coefficient))
    assert all(MIN_CASES < NOMINAL_CASES <= n <= 100 for n in STATED_MIN_CASES.values())
    assert {c: min_cases_of(c) for c in MEASURED} == MEASURED


@pytest.mark.parametrize("coefficient", sorted(MEASURED))
def test_no_interval_below_the_measured_minimum(coefficient: str) -> None:
    least, raters = MEASURED[coefficient], 2 if coefficient == "cohen_kappa" else 3
    measure = Measure(coefficient, n_categories=5)  # type: ignore[arg-type]
    assert measure.interval(_ratings(least - 1, raters)) is None
    ci = measure.interval(_ratings(least, raters))
    assert ci is not None and ci.n_cases == least


@pytest.mark.parametrize("measure", MEASURES, ids=lambda m: f"{m.coefficient}-{m.level}")
def test_the_interval_starts_at_the_stated_minimum(measure: Measure) -> None:
    least = min_cases_of(measure.coefficient)
    below = _ratings(least - 1)
    assert measure.estimate(below) is not None  # the figure itself is printed
    assert measure.interval(below) is None  # "too few to estimate"
    # A caller's smaller minimum does not lower it.
    assert measure.interval(below, min_cases=2) is None
    ci = measure.interval(_ratings(least))
    assert ci is not None and ci.n_cases == least and ci.low < ci.high
