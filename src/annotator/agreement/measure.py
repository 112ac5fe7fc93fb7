"""One coefficient, fully specified: the one place a point estimate and its CI are defined.

A :class:`Measure` names the coefficient, the matrix it reads (the category ``codes`` or
the raw ``values``), the level, the weights and the category set. Both
:meth:`Measure.estimate` and :meth:`Measure.interval` are computed from it, so a printed
interval can no longer belong to another coefficient (an interval-level alpha bootstrapped
at the nominal level on the codes was exactly that defect). ``annotator stats``, the project
agreement report and SME reliability build their figures from measures.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import Literal

import numpy as np

from annotator.agreement._matrix import FloatArray
from annotator.agreement.bootstrap import (
    MIN_CASES,
    BootstrapCI,
    Coefficient,
    bootstrap_interval,
    case_bootstrap_interval,
    min_cases_of,
    per_case_sums,
)
from annotator.agreement.coefficients import (
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    krippendorff_alpha,
    pabak,
    percent_agreement,
    unanimity,
)
from annotator.agreement.kappa import (
    Weights,
    cohen_kappa,
    mean_kappa_batch,
    mean_kappa_from_confusions,
    mean_pairwise_cohen_kappa,
    pair_confusions,
)
from annotator.agreement.sufficient import Level

Reads = Literal["codes", "values"]


@dataclass(frozen=True)
class Ratings:
    """A units x raters table as category ``codes`` (0..k-1) and as raw ``values``.

    ``values`` is None when the codes are the values (labels without numbers);
    ``case_ids[u]`` names the case of unit u (units of a case are resampled together).
    """

    codes: FloatArray
    case_ids: Sequence[Hashable]
    values: FloatArray | None = None


@dataclass(frozen=True)
class Measure:
    """A coefficient with everything that defines it.

    ``n_categories``: the full label set of the codes (None: the values observed).
    ``level``: Krippendorff's alpha only. ``weights``: kappa (disagreement weights over
    ``positions``, default the codes) and Gwet's AC2 / weighted Fleiss (agreement weights
    over the codes). ``min_shared``: mean pairwise kappa, pairs sharing fewer units are left
    out of the mean.
    """

    coefficient: Coefficient
    reads: Reads = "codes"
    n_categories: int | None = None
    level: Level | None = None
    weights: Weights = None
    positions: tuple[float, ...] | None = None
    min_shared: int = 1

    def matrix(self, ratings: Ratings) -> FloatArray:
        """The matrix this measure reads."""
        if self.reads == "values" and ratings.values is not None:
            return ratings.values
        return ratings.codes

    def estimate(self, ratings: Ratings) -> float | None:
        """The point estimate over all units (None where undefined)."""
        m, k = self.matrix(ratings), self.n_categories
        name = self.coefficient
        if name == "percent_agreement":
            return percent_agreement(m)
        if name == "unanimity":
            return unanimity(m)
        if name == "krippendorff_alpha":
            if self.level is None:
                raise ValueError("krippendorff_alpha needs a level")
            return krippendorff_alpha(m, self.level, None if k is None else range(k))
        if name == "fleiss_kappa":
            return fleiss_kappa(m, k, self.weights)
        if name == "gwet_ac1":
            return gwet_ac1(m, k)
        if name == "gwet_ac2":
            return gwet_ac2(m, k, self.weights)
        if k is None:
            raise ValueError(f"{name} needs n_categories (the full label set)")
        if name == "pabak":
            return pabak(m, k)
        if name == "cohen_kappa":
            return cohen_kappa(m[:, 0], m[:, 1], k, self.weights, self.positions)
        return mean_pairwise_cohen_kappa(m, k, self.weights, self.positions, self.min_shared)

    def interval(
        self, ratings: Ratings, n_resamples: int = 1000, seed: int = 0,
        min_cases: int = MIN_CASES,
    ) -> BootstrapCI | None:
        """Seeded BCa bootstrap over cases of :meth:`estimate`, the same definition.

        None below ``min_cases`` cases or below the coefficient's stated minimum
        (:func:`~annotator.agreement.bootstrap.min_cases_of`), whichever is larger.
        """
        m = self.matrix(ratings)
        min_cases = max(min_cases, min_cases_of(self.coefficient))
        if self.coefficient == "mean_pairwise_cohen_kappa":
            return self._pairwise_interval(m, ratings.case_ids, n_resamples, seed, min_cases)
        return case_bootstrap_interval(
            m, ratings.case_ids, self.coefficient, n_categories=self.n_categories,
            level=self.level, weights=self.weights, values=self.positions,
            n_resamples=n_resamples, seed=seed, min_cases=min_cases)

    def _pairwise_interval(
        self, m: FloatArray, case_ids: Sequence[Hashable], n_resamples: int, seed: int,
        min_cases: int,
    ) -> BootstrapCI | None:
        """Mean Cohen's kappa over the pairs sharing ``min_shared`` units, resampled by case."""
        if self.n_categories is None:
            raise ValueError("mean_pairwise_cohen_kappa needs n_categories")
        per_pair = []
        for i, j in combinations(range(m.shape[1]), 2):
            tables = pair_confusions(m[:, [i, j]], self.n_categories)[:, 0]
            if tables.sum() >= max(self.min_shared, 1):
                per_pair.append(per_case_sums(tables, case_ids)[1])
        if not per_pair:
            return None
        stacked = np.stack(per_pair, axis=1)  # cases x pairs x k x k
        weights, positions = self.weights, self.positions
        return bootstrap_interval(
            stacked, lambda s: mean_kappa_from_confusions(s, weights, positions), n_resamples,
            seed, min_cases=min_cases,
            batch=lambda b: mean_kappa_batch(b, weights, positions))
