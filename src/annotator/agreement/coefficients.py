"""Multi-rater agreement coefficients over a units x raters ratings matrix.

Ratings are floats with ``np.nan`` for missing; categorical labels are mapped to integer
codes ``0..k-1`` over the full label set first and ``n_categories=k`` is passed, so that
unused categories still count. Every function returns None ("n/a") instead of raising
when the coefficient is undefined on the data (no pairable unit, a single value, ...).
"""

from __future__ import annotations

import warnings

import numpy as np
import numpy.typing as npt

from annotator.agreement._matrix import as_ratings, category_counts, ratings_per_unit
from annotator.agreement.kappa import Weights
from annotator.agreement.sufficient import (
    LEVELS,
    Level,
    alpha_from_coincidences,
    coincidence_matrix,
    decompose,
)

_PACKAGE_BUDGET = 20_000_000  # units x values^2 elements the krippendorff package may allocate


def percent_agreement(matrix: npt.ArrayLike) -> float | None:
    """Mean pairwise exact agreement, a fraction 0-1, over units with at least two ratings.

    Every pair of ratings of the same unit counts once (pairs are pooled over units), the
    way the paper counts "step pairs": a unit rated by three annotators weighs three pairs,
    a unit rated by two weighs one. With two raters per unit this is plain percent
    agreement. Equal float values agree; any other difference is a disagreement.
    """
    return decompose(matrix, "percent_agreement").value()


def unanimity(matrix: npt.ArrayLike) -> float | None:
    """Share of units with at least two ratings on which every rating is the same."""
    return decompose(matrix, "unanimity").value()


def pabak(matrix: npt.ArrayLike, n_categories: int) -> float | None:
    """Prevalence- and bias-adjusted kappa, ``(k * p_o - 1) / (k - 1)``.

    ``p_o`` is :func:`percent_agreement` and ``k = n_categories`` (the full label set). For
    two categories this is Byrt's PABAK; for k categories it is the Brennan-Prediger
    (free-marginal, Randolph) kappa.
    """
    return decompose(matrix, "pabak", n_categories=n_categories).value()


def fleiss_kappa(
    matrix: npt.ArrayLike, n_categories: int | None = None, weights: Weights = None
) -> float | None:
    """Fleiss' kappa, generalised by Gwet (2014) to a varying number of raters per unit.

    ``pa`` is the mean, over units with two or more ratings, of the share of agreeing rater
    pairs; ``pe = sum_k pi_k^2`` with ``pi_k`` the share of category k averaged over units
    with a rating (``sum_kl w_kl pi_k pi_l`` with ``weights``). With the same number of
    raters on every unit this is Fleiss' (1971) kappa; units without a rating are ignored.
    """
    return decompose(matrix, "fleiss_kappa", n_categories=n_categories, weights=weights).value()


def gwet_ac1(matrix: npt.ArrayLike, n_categories: int | None = None) -> float | None:
    """Gwet's AC1 for any number of raters with missing ratings (Gwet 2014, ch. 4).

    ``pa`` averages, over units with two or more ratings, the share of agreeing rater
    pairs (per unit, unlike :func:`percent_agreement`, which pools the pairs); ``pe =
    sum_k pi_k (1 - pi_k) / (q - 1)`` with ``pi_k`` the mean share of category k over units
    with at least one rating and q the number of categories (``n_categories`` when given,
    else the distinct values observed).
    """
    return decompose(matrix, "gwet_ac1", n_categories=n_categories).value()


def gwet_ac2(
    matrix: npt.ArrayLike, n_categories: int | None = None, weights: Weights = "quadratic"
) -> float | None:
    """Gwet's AC2: AC1 with agreement weights (linear or quadratic; None gives AC1).

    ``pa`` counts a pair of ratings k, l as ``w_kl`` agreeing; ``pe = T_w / (q (q - 1))
    sum_k pi_k (1 - pi_k)`` with ``T_w`` the sum of the weights (Gwet 2014, ch. 3-4).
    """
    return decompose(matrix, "gwet_ac2", n_categories=n_categories, weights=weights).value()


def krippendorff_alpha(
    matrix: npt.ArrayLike,
    level: Level,
    value_domain: npt.ArrayLike | None = None,
) -> float | None:
    """Krippendorff's alpha at an explicit ``level`` (nominal, ordinal, interval, ratio).

    Computed by the ``krippendorff`` package; ``value_domain`` lists the possible values
    in order (pass ``range(k)`` for a label set of k codes). Returns None when alpha is
    undefined: fewer than two distinct values or no unit with two ratings. Fine-grained
    scores (units x values^2 beyond ~2e7) use this package's own coincidence-matrix
    implementation, which gives the same value without the package's memory cost.
    """
    if level not in LEVELS:
        raise ValueError(f"unknown level {level!r}; use one of {', '.join(LEVELS)}")
    import krippendorff

    ratings = as_ratings(matrix)
    observed = ratings[~np.isnan(ratings)]
    domain = None if value_domain is None else np.asarray(value_domain, dtype=np.float64)
    if domain is not None and not np.isin(observed, domain).all():
        outside = observed[~np.isin(observed, domain)][0]
        raise ValueError(f"rating {outside:g} is not in value_domain")
    pairable = ratings[ratings_per_unit(ratings) >= 2]
    if len(np.unique(pairable[~np.isnan(pairable)])) < 2:
        return None
    n_values = len(np.unique(observed)) if domain is None else len(domain)
    if ratings.shape[0] * n_values**2 > _PACKAGE_BUDGET:
        # The package builds a units x values^2 array; fine scores would exhaust memory.
        values, counts = category_counts(ratings)
        if domain is not None:
            values = domain
            order = np.argsort(domain)
            present = ~np.isnan(ratings)
            codes = np.full_like(ratings, np.nan)
            codes[present] = order[np.searchsorted(domain[order], ratings[present])]
            counts = category_counts(codes, len(domain))[1]
        return alpha_from_coincidences(coincidence_matrix(counts), values, level)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        value = krippendorff.alpha(
            reliability_data=ratings.T, level_of_measurement=level, value_domain=domain
        )
    return float(value) if np.isfinite(value) else None
