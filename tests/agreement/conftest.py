"""Published reliability data sets shared by the agreement tests."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

NAN = np.nan

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability": 4 coders x 12 units,
# values 1..5, nan = missing. Rows here are units, columns coders A, B, C, D.
KRIPPENDORFF_2011 = np.array(
    [
        [1, 2, 3, 3, 2, 1, 4, 1, 2, NAN, NAN, NAN],
        [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, NAN, 3],
        [NAN, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, NAN],
        [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, NAN],
    ]
).T

# Shrout & Fleiss (1979) Table 2: 6 targets x 4 judges.
SHROUT_FLEISS = np.array(
    [[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9], [6, 2, 4, 7]],
    dtype=float,
)


@pytest.fixture
def krippendorff_2011() -> np.ndarray:
    return KRIPPENDORFF_2011.copy()


@pytest.fixture
def shrout_fleiss() -> np.ndarray:
    return SHROUT_FLEISS.copy()


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(20240611)


def correlated_codes(
    rng: np.random.Generator, n_units: int, n_raters: int, k: int, missing: float = 0.0
) -> np.ndarray:
    """Codes 0..k-1 that agree more than chance: each rater copies a unit's truth 60% of
    the time, else draws from a skewed distribution; ``missing`` of the cells become nan."""
    truth = rng.integers(0, k, size=n_units)
    skew = np.arange(k, 0, -1, dtype=float)
    noise = rng.choice(k, size=(n_units, n_raters), p=skew / skew.sum())
    codes = np.where(rng.random((n_units, n_raters)) < 0.6, truth[:, None], noise).astype(float)
    codes[rng.random((n_units, n_raters)) < missing] = np.nan
    return codes


@pytest.fixture
def make_codes(rng: np.random.Generator) -> Callable[..., np.ndarray]:
    def make(n_units: int, n_raters: int, k: int, missing: float = 0.0) -> np.ndarray:
        return correlated_codes(rng, n_units, n_raters, k, missing)

    return make
