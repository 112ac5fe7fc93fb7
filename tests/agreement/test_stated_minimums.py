"""Each coefficient's stated minimum (docs/statistics.md, coverage table) is where its
interval starts: no interval from one case fewer, an interval from exactly that many."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.agreement.bootstrap import MIN_CASES, STATED_MIN_CASES, min_cases_of
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
]


def _ratings(n_cases: int) -> Ratings:
    """Three raters who mostly agree, two units per case (units resampled together)."""
    rng = np.random.default_rng(7)
    truth = rng.integers(0, 5, size=2 * n_cases)
    noise = rng.integers(0, 5, size=(2 * n_cases, 3))
    codes = np.where(rng.random((2 * n_cases, 3)) < 0.6, truth[:, None], noise).astype(float)
    return Ratings(codes, [u // 2 for u in range(2 * n_cases)], VALUES[codes.astype(int)])


def test_every_stated_minimum_is_measured_and_above_the_general_one() -> None:
    assert set(STATED_MIN_CASES) == {"krippendorff_alpha", "fleiss_kappa", "gwet_ac1",
                                     "gwet_ac2"}
    assert all(MIN_CASES < n <= 100 for n in STATED_MIN_CASES.values())
    assert min_cases_of("percent_agreement") == MIN_CASES


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
