"""Additive sufficient statistics: every coefficient is ``from_sums(unit_stats.sum(axis=0))``.

Each coefficient of this package is written as per-unit statistics whose column sums
determine it. Summing the unit rows of one case gives per-case statistics, and a bootstrap
over cases then only re-weights those rows (see :mod:`annotator.agreement.bootstrap`)
instead of recomputing the coefficient from raw ratings a thousand times. The public
coefficient functions use the same decompositions, so point estimate and bootstrap can
never disagree about a definition.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from annotator.agreement._matrix import FloatArray, as_ratings, category_counts

Level = Literal["nominal", "ordinal", "interval", "ratio"]
LEVELS: tuple[Level, ...] = ("nominal", "ordinal", "interval", "ratio")


def _ratio(numerator: float, denominator: float) -> float | None:
    return None if denominator <= 0 else float(numerator / denominator)


def _chance_corrected(observed: float, expected: float) -> float | None:
    # Expected agreement of 1 leaves nothing to correct for: the coefficient is undefined.
    if not np.isfinite(observed) or not np.isfinite(expected) or expected >= 1 - 1e-12:
        return None
    return float((observed - expected) / (1 - expected))


def pair_stats(counts: npt.NDArray[np.int64]) -> FloatArray:
    """Per unit ``[agreeing pairs, rater pairs]`` from a units x categories count table."""
    c = counts.astype(np.float64)
    m = c.sum(axis=1)
    return np.column_stack([(c * (c - 1)).sum(axis=1) / 2, m * (m - 1) / 2])


def unanimity_stats(counts: npt.NDArray[np.int64]) -> FloatArray:
    """Per unit ``[unanimous, pairable]``: pairable means at least two ratings."""
    m = counts.sum(axis=1)
    pairable = m >= 2
    unanimous = pairable & (counts.max(axis=1, initial=0) == m)
    return np.column_stack([unanimous, pairable]).astype(np.float64)


def fleiss_stats(counts: npt.NDArray[np.int64]) -> FloatArray:
    """Per unit ``[agreeing pairs, rater pairs, count per category...]``."""
    return np.column_stack([pair_stats(counts), counts.astype(np.float64)])


def fleiss_from_sums(sums: FloatArray) -> float | None:
    """Fleiss' kappa; valid when every unit has the same number of raters.

    With a constant number of raters, Fleiss' mean per-unit agreement equals pooled
    agreeing pairs / pooled pairs, which is what makes it additive.
    """
    observed = _ratio(sums[0], sums[1])
    total = float(sums[2:].sum())
    if observed is None or total <= 0:
        return None
    shares = sums[2:] / total
    return _chance_corrected(observed, float((shares**2).sum()))


def gwet_stats(counts: npt.NDArray[np.int64]) -> FloatArray:
    """Per unit ``[pairable, agreement share, rated, share of each category...]`` (Gwet 2014)."""
    c = counts.astype(np.float64)
    m = c.sum(axis=1)
    pairable = m >= 2
    share_agree = np.zeros_like(m)
    share_agree[pairable] = (c[pairable] * (c[pairable] - 1)).sum(axis=1) / (
        m[pairable] * (m[pairable] - 1)
    )
    rated = m >= 1
    shares = np.zeros_like(c)
    shares[rated] = c[rated] / m[rated, None]
    return np.column_stack([pairable, share_agree, rated, shares]).astype(np.float64)


def gwet_from_sums(sums: FloatArray) -> float | None:
    """Gwet's AC1: ``pa`` over units with 2+ ratings, ``pe`` from category shares, q columns."""
    q = sums.shape[0] - 3
    observed = _ratio(sums[1], sums[0])
    if observed is None or sums[2] <= 0 or q < 2:
        return None
    pi = sums[3:] / sums[2]
    return _chance_corrected(observed, float((pi * (1 - pi)).sum() / (q - 1)))


def coincidence_stats(counts: npt.NDArray[np.int64]) -> FloatArray:
    """Per unit Krippendorff coincidence matrices, units x values x values."""
    c = counts.astype(np.float64)
    m = c.sum(axis=1)
    outer = c[:, :, None] * c[:, None, :]
    outer -= c[:, :, None] * np.eye(c.shape[1])[None, :, :]
    # Units with a single rating are not pairable and contribute nothing.
    scale = np.where(m >= 2, 1 / np.maximum(m - 1, 1), 0.0)
    result: FloatArray = outer * scale[:, None, None]
    return result


def coincidence_matrix(counts: npt.NDArray[np.int64]) -> FloatArray:
    """Summed coincidence matrix (values x values) without a units x values^2 intermediate."""
    c = counts.astype(np.float64)
    m = c.sum(axis=1)
    scale = np.where(m >= 2, 1 / np.maximum(m - 1, 1), 0.0)
    scaled = c * scale[:, None]
    result: FloatArray = scaled.T @ c - np.diag(scaled.sum(axis=0))
    return result


def alpha_from_coincidences(o: FloatArray, values: FloatArray, level: Level) -> float | None:
    """Krippendorff's alpha from a summed coincidence matrix over ordered ``values``."""
    n_v = o.sum(axis=0)
    n = float(n_v.sum())
    if n <= 1 or np.count_nonzero(n_v) < 2:
        return None
    i = np.arange(len(values))
    if level == "nominal":
        d = (i[:, None] != i[None, :]).astype(np.float64)
    elif level == "ordinal":
        cum = np.concatenate([[0.0], np.cumsum(n_v)])
        lo, hi = np.minimum(i[:, None], i[None, :]), np.maximum(i[:, None], i[None, :])
        d = (cum[hi + 1] - cum[lo] - (n_v[lo] + n_v[hi]) / 2) ** 2
    elif level == "interval":
        d = (values[:, None] - values[None, :]) ** 2
    elif level == "ratio":
        total = values[:, None] + values[None, :]
        diff = values[:, None] - values[None, :]
        d = np.divide(diff, total, out=np.zeros_like(diff), where=total != 0) ** 2
    else:
        raise ValueError(f"unknown level {level!r}; use one of {', '.join(LEVELS)}")
    expected = float((np.outer(n_v, n_v) * d).sum())
    if expected <= 0:
        return None
    return float(1 - (n - 1) * float((o * d).sum()) / expected)


@dataclass(frozen=True)
class Decomposition:
    """A coefficient as per-unit statistics plus the function of their column sums."""

    unit_stats: FloatArray
    from_sums: Callable[[FloatArray], float | None]

    def value(self) -> float | None:
        """The coefficient over all units."""
        return self.from_sums(self.unit_stats.sum(axis=0))


def decompose(
    matrix: npt.ArrayLike,
    coefficient: str,
    *,
    n_categories: int | None = None,
    level: Level | None = None,
) -> Decomposition:
    """Decompose a categorical coefficient of a units x raters matrix.

    ``coefficient`` is one of ``percent_agreement``, ``unanimity``, ``pabak``,
    ``fleiss_kappa``, ``gwet_ac1`` or ``krippendorff_alpha`` (which needs ``level``).
    Cohen's kappas decompose into confusion tensors, see :mod:`annotator.agreement.kappa`.
    """
    domain, counts = category_counts(as_ratings(matrix), n_categories)
    if coefficient == "percent_agreement":
        return Decomposition(pair_stats(counts), lambda s: _ratio(s[0], s[1]))
    if coefficient == "unanimity":
        return Decomposition(unanimity_stats(counts), lambda s: _ratio(s[0], s[1]))
    if coefficient == "pabak":
        k = len(domain)

        def pabak(s: FloatArray) -> float | None:
            observed = _ratio(s[0], s[1])
            return None if observed is None or k < 2 else (k * observed - 1) / (k - 1)

        return Decomposition(pair_stats(counts), pabak)
    if coefficient == "fleiss_kappa":
        return Decomposition(fleiss_stats(counts), fleiss_from_sums)
    if coefficient == "gwet_ac1":
        return Decomposition(gwet_stats(counts), gwet_from_sums)
    if coefficient == "krippendorff_alpha":
        if level not in LEVELS:
            raise ValueError(f"krippendorff_alpha needs level, one of {', '.join(LEVELS)}")
        chosen: Level = level
        return Decomposition(
            coincidence_stats(counts), lambda s: alpha_from_coincidences(s, domain, chosen)
        )
    raise ValueError(f"unknown coefficient {coefficient!r}")
