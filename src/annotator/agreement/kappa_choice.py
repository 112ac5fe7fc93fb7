"""Which kappa a report headlines: the weights and how raters are pooled, stated in words.

A "kappa" without its definition is ambiguous: Cohen's kappa averaged over annotator pairs
(Light's kappa when every pair rates every unit) and Fleiss' kappa pooled over all raters
differ, and so do unweighted, linear- and quadratic-weighted versions. The report, the
Table 7 row and ``annotator stats`` compute the one chosen here and print
:meth:`KappaChoice.definition` next to the number.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Literal

import numpy as np

from annotator.agreement._matrix import FloatArray
from annotator.agreement.bootstrap import (
    MIN_CASES,
    BootstrapCI,
    bootstrap_interval,
    case_bootstrap_interval,
    per_case_sums,
)
from annotator.agreement.coefficients import fleiss_kappa
from annotator.agreement.kappa import (
    Weights,
    mean_kappa_batch,
    mean_kappa_from_confusions,
    mean_pairwise_cohen_kappa,
    pair_confusions,
)

Pooling = Literal["pairs", "fleiss"]
WEIGHT_WORDS: dict[str, Weights] = {"unweighted": None, "linear": "linear",
                                    "quadratic": "quadratic"}
POOLINGS: tuple[Pooling, ...] = ("pairs", "fleiss")


@dataclass(frozen=True)
class KappaChoice:
    """``weights`` None (unweighted), linear or quadratic; ``pooling`` pairs or fleiss.

    ``pairs``: the unweighted mean of Cohen's kappas of the annotator pairs sharing at least
    ``min_shared`` units. ``fleiss``: Fleiss' kappa over all ratings, in Gwet's
    generalisation for a varying number of raters per unit (weighted with Gwet's agreement
    weights when ``weights`` is set).
    """

    weights: Weights = "linear"
    pooling: Pooling = "pairs"
    min_shared: int = 1

    @classmethod
    def parse(cls, weights: str, pooling: str, min_shared: int = 1) -> KappaChoice:
        """From the command-line words; ValueError naming the choices otherwise."""
        if weights not in WEIGHT_WORDS:
            raise ValueError(f"--kappa {weights!r}: use one of {', '.join(WEIGHT_WORDS)}")
        if pooling not in POOLINGS:
            raise ValueError(f"--kappa-pooling {pooling!r}: use one of {', '.join(POOLINGS)}")
        chosen: Pooling = "pairs" if pooling == "pairs" else "fleiss"
        return cls(WEIGHT_WORDS[weights], chosen, min_shared)

    def for_level(self, level: str) -> KappaChoice:
        """The choice for one label family: nominal labels are never weighted."""
        return replace(self, weights=None) if level == "nominal" else self

    @property
    def weights_word(self) -> str:
        return "unweighted" if self.weights is None else self.weights

    def definition(self) -> str:
        """E.g. "linear-weighted Cohen's kappa, mean over annotator pairs"."""
        weighted = "unweighted" if self.weights is None else f"{self.weights}-weighted"
        if self.pooling == "fleiss":
            return f"{weighted} Fleiss' kappa (Gwet's generalisation, all raters pooled)"
        return f"{weighted} Cohen's kappa, mean over annotator pairs"

    def compute(
        self, codes: FloatArray, n_categories: int, values: Sequence[float] | None = None
    ) -> float | None:
        """The chosen kappa of a units x raters code matrix over ``n_categories`` labels."""
        if self.pooling == "fleiss":
            return fleiss_kappa(codes, n_categories, self.weights)
        return mean_pairwise_cohen_kappa(codes, n_categories, self.weights, values,
                                         min_shared=self.min_shared)

    def bootstrap(
        self, codes: FloatArray, case_ids: Sequence[Hashable], n_categories: int,
        n_resamples: int = 1000, seed: int = 0, min_cases: int = MIN_CASES,
        values: Sequence[float] | None = None,
    ) -> BootstrapCI | None:
        """Bootstrap CI over cases of :meth:`compute` (pairs: those sharing enough units;
        ``values``: category positions for weighted Cohen's kappa, as in :meth:`compute`)."""
        if self.pooling == "fleiss":
            return case_bootstrap_interval(codes, case_ids, "fleiss_kappa",
                                           n_categories=n_categories, weights=self.weights,
                                           n_resamples=n_resamples, seed=seed,
                                           min_cases=min_cases)
        per_pair = []
        for i, j in combinations(range(codes.shape[1]), 2):
            tables = pair_confusions(codes[:, [i, j]], n_categories)[:, 0]
            if tables.sum() >= max(self.min_shared, 1):
                per_pair.append(per_case_sums(tables, case_ids)[1])
        if not per_pair:
            return None
        stacked = np.stack(per_pair, axis=1)  # cases x pairs x k x k
        weights = self.weights
        return bootstrap_interval(
            stacked, lambda s: mean_kappa_from_confusions(s, weights, values), n_resamples,
            seed, min_cases=min_cases, batch=lambda b: mean_kappa_batch(b, weights, values))
