"""The quality figures' stated minimums (docs/statistics.md, coverage, "quality" rows): the
chance-corrected coefficient gets its interval from exactly that many items, none from one
fewer, while the figure itself is always printed."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.agreement import quality as Q
from annotator.agreement.bootstrap import min_cases_of


def _pairs(n: int, scale: str) -> list[Q.Pair]:
    """A rater who mostly copies the reference (or their first rating), one key per item."""
    rng = np.random.default_rng(11)
    first = rng.integers(0, 5, size=n)
    second = np.where(rng.random(n) < 0.7, first, rng.integers(0, 5, size=n))
    if scale == "scores":
        return [Q.Pair(f"i{i}", {"score": int(a)}, {"score": int(b)})
                for i, (a, b) in enumerate(zip(first, second, strict=True))]
    return [Q.Pair(f"i{i}", {"grade": f"c{a}"}, {"grade": f"c{b}"})
            for i, (a, b) in enumerate(zip(first, second, strict=True))]


@pytest.mark.parametrize(("scale", "reference", "least"), [
    ("categories", True, Q.MIN_REFERENCE_KAPPA),  # Cohen's kappa against the reference
    ("categories", False, min_cases_of("krippendorff_alpha")),  # nominal alpha: its own 100
])
def test_the_coefficients_interval_starts_at_its_minimum(
    scale: str, reference: bool, least: int
) -> None:
    assert Q.MIN_REFERENCE_KAPPA == 100
    family = "score" if scale == "scores" else "grade"
    below = Q.compare(_pairs(least - 1, scale), family, against_reference=reference)
    assert below is not None and below.chance_corrected is not None
    assert below.chance_corrected.value is not None  # the figure itself is printed
    assert below.chance_corrected.low is None and below.chance_corrected.high is None
    at = Q.compare(_pairs(least, scale), family, against_reference=reference)
    assert at is not None and at.chance_corrected is not None
    low, high = at.chance_corrected.low, at.chance_corrected.high
    assert low is not None and high is not None and low < high


@pytest.mark.parametrize("reference", [True, False])
def test_interval_alpha_of_scores_is_printed_without_an_interval(reference: bool) -> None:
    """It covered 0.922 at 100 items and 0.914 at 200 at high agreement: no n is enough."""
    assert Q.MIN_SCORE_ALPHA is None
    found = Q.compare(_pairs(300, "scores"), "score", against_reference=reference)
    assert found is not None and found.coefficient == "krippendorff_alpha"
    assert found.chance_corrected is not None and found.chance_corrected.value is not None
    assert found.chance_corrected.low is None and found.chance_corrected.high is None
    assert found.agreement.low is not None  # the mean absolute difference keeps its BCa
