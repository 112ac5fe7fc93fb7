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


def agreement_weights(n_categories: int, weights: str | None) -> FloatArray:
    """Gwet's agreement weights over codes ``0..k-1``: identity, linear or quadratic.

    ``linear``: ``1 - |k - l| / (q - 1)``; ``quadratic``: ``1 - (k - l)^2 / (q - 1)^2``
    (Gwet 2014, ch. 3; irrCAC's ``linear.weights`` and ``quadratic.weights``).
    """
    k = max(n_categories, 1)
    if weights is None or k == 1:
        return np.eye(k)
    codes = np.arange(k, dtype=np.float64)
    distance = np.abs(codes[:, None] - codes[None, :]) / (k - 1)
    if weights == "linear":
        result: FloatArray = 1 - distance
        return result
    if weights == "quadratic":
        squared: FloatArray = 1 - distance**2
        return squared
    raise ValueError(f"unknown weights {weights!r}; use None, 'linear' or 'quadratic'")


def gwet_stats(counts: npt.NDArray[np.int64], weights: FloatArray | None = None) -> FloatArray:
    """Per unit ``[pairable, agreement share, rated, share of each category...]`` (Gwet 2014).

    The agreement share of a unit with ``r_i >= 2`` ratings is
    ``sum_k r_ik (r*_ik - 1) / (r_i (r_i - 1))`` with ``r*_ik = sum_l w_kl r_il`` (the
    weighted count; with identity weights, the share of agreeing rater pairs).
    """
    c = counts.astype(np.float64)
    w = np.eye(c.shape[1]) if weights is None else weights
    m = c.sum(axis=1)
    pairable = m >= 2
    share_agree = np.zeros_like(m)
    weighted = c @ w.T
    share_agree[pairable] = (c[pairable] * (weighted[pairable] - 1)).sum(axis=1) / (
        m[pairable] * (m[pairable] - 1)
    )
    rated = m >= 1
    shares = np.zeros_like(c)
    shares[rated] = c[rated] / m[rated, None]
    return np.column_stack([pairable, share_agree, rated, shares]).astype(np.float64)


def _gwet_parts(sums: FloatArray) -> tuple[float, FloatArray] | None:
    """``(pa, pi)``: mean agreement over units with 2+ ratings, mean category shares."""
    observed = _ratio(sums[1], sums[0])
    if observed is None or sums[2] <= 0 or sums.shape[0] - 3 < 2:
        return None
    return observed, sums[3:] / sums[2]


def gwet_from_sums(sums: FloatArray, weights: FloatArray | None = None) -> float | None:
    """Gwet's AC1 (AC2 with weights): ``pe = T_w / (q (q - 1)) * sum_k pi_k (1 - pi_k)``."""
    parts = _gwet_parts(sums)
    if parts is None:
        return None
    observed, pi = parts
    q = len(pi)
    total = float(q if weights is None else weights.sum())
    return _chance_corrected(observed, total * float((pi * (1 - pi)).sum()) / (q * (q - 1)))


def fleiss_from_sums(sums: FloatArray, weights: FloatArray | None = None) -> float | None:
    """Fleiss' kappa as generalised by Gwet (2014, ch. 2) to any number of raters per unit.

    ``pa`` as for AC1 (units with 2+ ratings), ``pe = sum_kl w_kl pi_k pi_l`` with ``pi``
    the category shares averaged over units with a rating. With the same number of raters
    on every unit (and identity weights) this is Fleiss' (1971) kappa.
    """
    parts = _gwet_parts(sums)
    if parts is None:
        return None
    observed, pi = parts
    w = np.eye(len(pi)) if weights is None else weights
    return _chance_corrected(observed, float(pi @ w @ pi))


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
    weights: str | None = None,
) -> Decomposition:
    """Decompose a categorical coefficient of a units x raters matrix.

    ``coefficient`` is one of ``percent_agreement``, ``unanimity``, ``pabak``,
    ``fleiss_kappa``, ``gwet_ac1``, ``gwet_ac2`` or ``krippendorff_alpha`` (which needs
    ``level``). ``weights`` (None, ``linear``, ``quadratic``) applies to ``fleiss_kappa`` and
    ``gwet_ac2`` (Gwet's agreement weights over the codes).
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
    if coefficient in ("fleiss_kappa", "gwet_ac1", "gwet_ac2"):
        w = agreement_weights(len(domain), None if coefficient == "gwet_ac1" else weights)
        combine = fleiss_from_sums if coefficient == "fleiss_kappa" else gwet_from_sums
        return Decomposition(gwet_stats(counts, w), lambda s: combine(s, w))
    if coefficient == "krippendorff_alpha":
        if level not in LEVELS:
            raise ValueError(f"krippendorff_alpha needs level, one of {', '.join(LEVELS)}")
        chosen: Level = level
        return Decomposition(
            coincidence_stats(counts), lambda s: alpha_from_coincidences(s, domain, chosen)
        )
    raise ValueError(f"unknown coefficient {coefficient!r}")
