"""Ratings matrices: validation and per-unit category counts (private helpers).

A ratings matrix is units x raters, float, ``np.nan`` for a missing rating. Categorical
coefficients work on counts of each category per unit; the categories are either the
integer codes ``0..n_categories-1`` (the full label set, used or not) or, when
``n_categories`` is None, the distinct values observed.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


def as_ratings(matrix: npt.ArrayLike) -> FloatArray:
    """Return ``matrix`` as a 2-D float array (units x raters); ValueError otherwise."""
    try:
        array = np.asarray(matrix, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        # Strings or None: the caller must map labels to codes first.
        raise ValueError(f"ratings must be numeric codes with np.nan for missing: {exc}") from exc
    if array.ndim != 2:
        raise ValueError(f"ratings must be a 2-D units x raters matrix, got {array.ndim}-D")
    if np.isinf(array).any():
        raise ValueError("ratings contain an infinite value")
    return array


def as_codes(values: npt.ArrayLike, n_categories: int) -> FloatArray:
    """Check that the non-missing ``values`` are integer codes in ``0..n_categories-1``."""
    array = np.asarray(values, dtype=np.float64)
    present = array[~np.isnan(array)]
    if n_categories < 1:
        raise ValueError(f"n_categories must be at least 1, got {n_categories}")
    bad = present[(present != np.round(present)) | (present < 0) | (present >= n_categories)]
    if bad.size:
        raise ValueError(
            f"rating {bad[0]:g} is not a category code 0..{n_categories - 1}; "
            "map labels to codes over the full label set first"
        )
    return array


def category_counts(
    matrix: npt.ArrayLike, n_categories: int | None = None
) -> tuple[FloatArray, IntArray]:
    """Return ``(domain, counts)``: the category values and a units x categories count table.

    With ``n_categories`` the domain is ``0..n_categories-1`` (unused categories keep a zero
    column, which matters for Gwet's q and for the label set a kappa is defined over).
    """
    ratings = as_ratings(matrix)
    n_units = ratings.shape[0]
    present = ~np.isnan(ratings)
    if n_categories is None:
        domain = np.unique(ratings[present])
        codes = np.searchsorted(domain, ratings[present])
    else:
        as_codes(ratings, n_categories)
        domain = np.arange(n_categories, dtype=np.float64)
        codes = ratings[present].astype(np.int64)
    n_values = len(domain)
    rows = np.nonzero(present)[0]
    flat = np.bincount(rows * n_values + codes, minlength=n_units * n_values)
    return domain, flat.reshape(n_units, n_values).astype(np.int64)


def ratings_per_unit(matrix: npt.ArrayLike) -> IntArray:
    """Number of non-missing ratings in each unit (row)."""
    ratings = as_ratings(matrix)
    counts: IntArray = (~np.isnan(ratings)).sum(axis=1).astype(np.int64)
    return counts
