"""Per-benchmark and per-rubric SME results with seeded bootstrap CIs over items.

Each benchmark's applicable items are resampled with :func:`bootstrap_draws` (the
agreement engine's single source of draws) under a seed derived from the benchmark code,
so a benchmark's CI does not depend on which other benchmarks are in the project. A parent
rubric's weighted score in resample r is the weighted sum of its benchmarks' resample-r
means: the rubric CI uses the very draws the benchmark CIs use.
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from annotator.agreement.bootstrap import bootstrap_draws
from annotator.sme.formula import FormulaError, normaliser
from annotator.sme.reliability import Reliability
from annotator.sme.spec import Benchmark

N_RESAMPLES = 1000
MIN_ITEMS = 3  # fewer applicable items: no interval (a percentile CI of 2 items says nothing)


@dataclass(frozen=True)
class ItemOutcome:
    """The reference verdict of one item on one benchmark (see sme.verdict.reference)."""

    item_id: str
    applicable: bool
    passed: bool | None = None
    score: float | None = None  # raw, on the benchmark's scale


@dataclass(frozen=True)
class BenchmarkResult:
    code: str
    label: str
    parent_rubric: str
    evaluator_type: str
    weight: float
    items: int  # items with a reference verdict
    unresolved: int  # items with an undecided conflict or no submitted verdict
    applicable: int
    pass_rate: float | None
    pass_rate_ci: tuple[float, float] | None
    score: float | None  # mean normalised score
    score_ci: tuple[float, float] | None
    threshold: float | None  # normalised
    threshold_met: bool | None


@dataclass(frozen=True)
class RubricResult:
    code: str
    benchmarks: list[str]
    weight_scored: float  # sum of the weights of benchmarks with a score
    score: float | None  # sum of weight x benchmark score, None unless every benchmark scored
    score_ci: tuple[float, float] | None


@dataclass(frozen=True)
class SmeResults:
    """Everything ``sme-results`` writes and the page's results tab shows."""

    benchmarks: list[BenchmarkResult]
    rubrics: list[RubricResult]
    reliability: list[Reliability]
    basis: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {
            "basis": self.basis,
            "benchmarks": [asdict(b) for b in self.benchmarks],
            "rubrics": [asdict(r) for r in self.rubrics],
            "reliability": [asdict(r) for r in self.reliability],
        }


def benchmark_seed(code: str, seed: int) -> int:
    return seed * 1_000_003 + zlib.crc32(code.encode("utf-8"))


def resampled_means(
    values: Sequence[float], seed: int, n_resamples: int = N_RESAMPLES
) -> np.ndarray | None:
    """The mean of ``values`` in each bootstrap resample; None below MIN_ITEMS values."""
    data = np.asarray(values, dtype=np.float64)
    if len(data) < MIN_ITEMS:
        return None
    means: np.ndarray = data[bootstrap_draws(len(data), n_resamples, seed)].mean(axis=1)
    return means


def percentile_ci(means: np.ndarray | None) -> tuple[float, float] | None:
    if means is None:
        return None
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


def normalised_scores(benchmark: Benchmark, outcomes: Sequence[ItemOutcome]) -> list[float]:
    scale = benchmark.scale
    norm = normaliser(scale.normalization_formula, scale.min_value, scale.max_value)
    out = []
    for o in outcomes:
        if o.applicable and o.score is not None:
            try:
                out.append(norm(o.score))
            except FormulaError:
                continue
    return out


def benchmark_result(
    benchmark: Benchmark,
    outcomes: Sequence[ItemOutcome],
    unresolved: int = 0,
    seed: int = 0,
    n_resamples: int = N_RESAMPLES,
) -> tuple[BenchmarkResult, np.ndarray | None]:
    """The benchmark's figures and its resampled score means (for the rubric CI)."""
    applicable = [o for o in outcomes if o.applicable]
    passes = [1.0 if o.passed else 0.0 for o in applicable if o.passed is not None]
    scores = normalised_scores(benchmark, outcomes)
    bseed = benchmark_seed(benchmark.code, seed)
    score_means = resampled_means(scores, bseed, n_resamples)
    mean = float(np.mean(scores)) if scores else None
    threshold = None
    if benchmark.threshold is not None:
        scale = benchmark.scale
        norm = normaliser(scale.normalization_formula, scale.min_value, scale.max_value)
        try:
            threshold = norm(benchmark.threshold)
        except FormulaError:
            threshold = None
    result = BenchmarkResult(
        code=benchmark.code,
        label=benchmark.label,
        parent_rubric=benchmark.parent_rubric,
        evaluator_type=benchmark.evaluator_type,
        weight=benchmark.weight,
        items=len(outcomes),
        unresolved=unresolved,
        applicable=len(applicable),
        pass_rate=float(np.mean(passes)) if passes else None,
        pass_rate_ci=percentile_ci(resampled_means(passes, bseed + 1, n_resamples)),
        score=mean,
        score_ci=percentile_ci(score_means),
        threshold=threshold,
        threshold_met=None if mean is None or threshold is None else bool(mean >= threshold),
    )
    return result, score_means


def rubric_results(
    results: Sequence[tuple[BenchmarkResult, np.ndarray | None]],
    all_benchmarks: Sequence[Benchmark],
) -> list[RubricResult]:
    """Weighted parent-rubric scores: sum of weight x mean normalised benchmark score.

    The score needs every benchmark of the rubric (as specified in the project) to have a
    score; otherwise it is None and ``weight_scored`` says how much of the rubric was scored.
    """
    by_code = {r.code: (r, means) for r, means in results}
    rubrics: dict[str, list[Benchmark]] = {}
    for b in all_benchmarks:
        rubrics.setdefault(b.parent_rubric, []).append(b)
    out = []
    for rubric, members in sorted(rubrics.items()):
        scored = [
            by_code[b.code]
            for b in members
            if b.code in by_code and by_code[b.code][0].score is not None
        ]
        weight_scored = sum(r.weight for r, _m in scored)
        complete = len(scored) == len(members)
        score = sum(r.weight * (r.score or 0.0) for r, _m in scored) if complete else None
        ci = None
        if complete and all(m is not None for _r, m in scored):
            total = sum(r.weight * m for r, m in scored if m is not None)
            ci = percentile_ci(np.asarray(total))
        out.append(
            RubricResult(
                code=rubric,
                benchmarks=sorted(b.code for b in members),
                weight_scored=weight_scored,
                score=score,
                score_ci=ci,
            )
        )
    return out
