"""Cohen's kappa, weighted and unweighted, over the full label set, and its pairwise mean.

Kappa is computed from a confusion table, so per-case confusion counts are its additive
sufficient statistic: sum them over resampled cases and call
:func:`kappa_from_confusion` (see :func:`pair_confusions` and the bootstrap module).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np
import numpy.typing as npt

from annotator.agreement._matrix import FloatArray, as_codes, as_ratings

Weights = Literal["linear", "quadratic"] | None


def _disagreement_weights(k: int, weights: Weights, values: Sequence[float] | None) -> FloatArray:
    if weights is None:
        return 1.0 - np.eye(k)
    positions = np.arange(k, dtype=np.float64) if values is None else np.asarray(values, float)
    if positions.shape != (k,):
        raise ValueError(f"values must list one number per category ({k})")
    distance = np.abs(positions[:, None] - positions[None, :])
    if weights == "linear":
        return distance
    if weights == "quadratic":
        return distance**2
    raise ValueError(f"unknown weights {weights!r}; use None, 'linear' or 'quadratic'")


def kappa_from_confusion(
    table: npt.ArrayLike, weights: Weights = None, values: Sequence[float] | None = None
) -> float | None:
    """Cohen's kappa of a k x k confusion table (rows rater A, columns rater B).

    ``weights="linear"`` (or ``"quadratic"``) uses disagreement weights ``|v_i - v_j|``
    with ``v`` the category ``values`` (default: positions 0..k-1). None when undefined
    (empty table, or chance disagreement zero, e.g. both raters always use one category).
    """
    counts = np.asarray(table, dtype=np.float64)
    if counts.ndim != 2 or counts.shape[0] != counts.shape[1]:
        raise ValueError("a confusion table must be square")
    total = counts.sum()
    if total <= 0 or counts.shape[0] < 2:
        return None
    d = _disagreement_weights(counts.shape[0], weights, values)
    p = counts / total
    expected = float((d * np.outer(p.sum(axis=1), p.sum(axis=0))).sum())
    if expected <= 1e-12:
        return None
    return float(1 - (d * p).sum() / expected)


def confusion_matrix(a: npt.ArrayLike, b: npt.ArrayLike, n_categories: int) -> FloatArray:
    """Confusion counts of two raters' codes over the units both rated."""
    codes_a, codes_b = as_codes(a, n_categories), as_codes(b, n_categories)
    if codes_a.shape != codes_b.shape or codes_a.ndim != 1:
        raise ValueError("the two raters' ratings must be 1-D arrays of equal length")
    both = ~np.isnan(codes_a) & ~np.isnan(codes_b)
    flat = codes_a[both].astype(np.int64) * n_categories + codes_b[both].astype(np.int64)
    counts = np.bincount(flat, minlength=n_categories * n_categories)
    return counts.reshape(n_categories, n_categories).astype(np.float64)


def cohen_kappa(
    a: npt.ArrayLike,
    b: npt.ArrayLike,
    n_categories: int,
    weights: Weights = None,
    values: Sequence[float] | None = None,
) -> float | None:
    """Cohen's kappa of two raters' codes over the full label set ``0..n_categories-1``.

    Missing ratings (nan) drop the unit. Weighted kappa uses linear (or quadratic)
    distances between category positions, or between ``values`` when given.
    """
    return kappa_from_confusion(confusion_matrix(a, b, n_categories), weights, values)


@dataclass(frozen=True)
class PairKappa:
    """Cohen's kappa of raters ``first`` and ``second`` (column indices) on ``n_shared`` units."""

    first: int
    second: int
    n_shared: int
    kappa: float | None


def pair_confusions(matrix: npt.ArrayLike, n_categories: int) -> FloatArray:
    """Per unit confusion tensors, units x rater pairs x k x k (pairs in combinations order)."""
    ratings = as_ratings(matrix)
    as_codes(ratings, n_categories)
    n_units, n_raters = ratings.shape
    pairs = list(combinations(range(n_raters), 2))
    out = np.zeros((n_units, len(pairs), n_categories, n_categories))
    for index, (i, j) in enumerate(pairs):
        both = ~np.isnan(ratings[:, i]) & ~np.isnan(ratings[:, j])
        rows = np.nonzero(both)[0]
        out[rows, index, ratings[rows, i].astype(int), ratings[rows, j].astype(int)] = 1.0
    return out


def pairwise_cohen_kappas(
    matrix: npt.ArrayLike,
    n_categories: int,
    weights: Weights = None,
    values: Sequence[float] | None = None,
    min_shared: int = 1,
) -> list[PairKappa]:
    """Cohen's kappa for every pair of rater columns; kappa None below ``min_shared`` units."""
    ratings = as_ratings(matrix)
    result = []
    for i, j in combinations(range(ratings.shape[1]), 2):
        table = confusion_matrix(ratings[:, i], ratings[:, j], n_categories)
        shared = int(table.sum())
        kappa = kappa_from_confusion(table, weights, values) if shared >= min_shared else None
        result.append(PairKappa(i, j, shared, kappa))
    return result


def mean_kappa_from_confusions(
    tables: FloatArray, weights: Weights = None, values: Sequence[float] | None = None
) -> float | None:
    """Mean of the defined kappas of a pairs x k x k stack of confusion tables."""
    kappas = [kappa_from_confusion(table, weights, values) for table in tables]
    defined = [k for k in kappas if k is not None]
    return float(np.mean(defined)) if defined else None


def mean_kappa_batch(
    tables: FloatArray, weights: Weights = None, values: Sequence[float] | None = None
) -> FloatArray:
    """:func:`mean_kappa_from_confusions` for a stack of resamples at once.

    ``tables`` is resamples x pairs x k x k; returns one mean kappa per resample (nan where
    no pair's kappa is defined). Same definition as the scalar path, vectorised because a
    bootstrap calls it a thousand times.
    """
    k = tables.shape[-1]
    if k < 2:
        return np.full(tables.shape[0], np.nan)
    d = _disagreement_weights(k, weights, values)
    total = tables.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = tables / total[..., None, None]
        expected = np.einsum("ij,...i,...j->...", d, p.sum(axis=-1), p.sum(axis=-2))
        observed = np.einsum("ij,...ij->...", d, p)
        kappa = 1 - observed / expected
    kappa[(total <= 0) | ~(expected > 1e-12)] = np.nan
    defined = ~np.isnan(kappa)
    count = defined.sum(axis=-1)
    sums = np.where(defined, kappa, 0.0).sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        result: FloatArray = np.where(count > 0, sums / np.maximum(count, 1), np.nan)
    return result


def mean_pairwise_cohen_kappa(
    matrix: npt.ArrayLike,
    n_categories: int,
    weights: Weights = None,
    values: Sequence[float] | None = None,
    min_shared: int = 1,
) -> float | None:
    """Unweighted mean of the defined pairwise Cohen's kappas (Light's kappa when complete)."""
    pairs = pairwise_cohen_kappas(matrix, n_categories, weights, values, min_shared)
    defined = [p.kappa for p in pairs if p.kappa is not None]
    return float(np.mean(defined)) if defined else None
