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
from typing import Literal

from annotator.agreement._matrix import FloatArray
from annotator.agreement.bootstrap import MIN_CASES, BootstrapCI
from annotator.agreement.kappa import Weights
from annotator.agreement.measure import Measure, Ratings

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

    def measure(self, n_categories: int, values: Sequence[float] | None = None) -> Measure:
        """The chosen kappa as a :class:`Measure` (``values``: category positions for the
        weighted Cohen's kappa; Fleiss' kappa weights the codes)."""
        if self.pooling == "fleiss":
            return Measure("fleiss_kappa", n_categories=n_categories, weights=self.weights)
        return Measure("mean_pairwise_cohen_kappa", n_categories=n_categories,
                       weights=self.weights,
                       positions=None if values is None else tuple(values),
                       min_shared=self.min_shared)

    def compute(
        self, codes: FloatArray, n_categories: int, values: Sequence[float] | None = None
    ) -> float | None:
        """The chosen kappa of a units x raters code matrix over ``n_categories`` labels."""
        return self.measure(n_categories, values).estimate(Ratings(codes, ()))

    def bootstrap(
        self, codes: FloatArray, case_ids: Sequence[Hashable], n_categories: int,
        n_resamples: int = 1000, seed: int = 0, min_cases: int = MIN_CASES,
        values: Sequence[float] | None = None,
    ) -> BootstrapCI | None:
        """Bootstrap CI over cases of :meth:`compute` (pairs: those sharing enough units)."""
        return self.measure(n_categories, values).interval(
            Ratings(codes, case_ids), n_resamples, seed, min_cases)
