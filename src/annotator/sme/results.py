"""Per-benchmark and per-rubric SME results with 95% intervals made for small samples.

Pass rates get Wilson's score interval, mean normalised scores a seeded BCa bootstrap
(:mod:`annotator.agreement.intervals`), each with the n it rests on; below the stated
minimum (10 items for a pass rate, 30 for a mean score) there is no interval and the
reports say "too few to estimate". A benchmark's threshold is met, not met or undetermined
by its score interval (:mod:`annotator.agreement.decision`). A parent rubric's score is
the weighted mean of its benchmarks that have a score, the weights renormalised over them
(``weight_covered`` says how much of the rubric that is); its interval is the
Welch-Satterthwaite t interval of that weighted mean of independent benchmark means, from
10 items in every scored benchmark (a stratified BCa covered 0.938 on average, below the
target: ``docs/statistics.md``).
"""

from __future__ import annotations

import zlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from annotator.agreement.decision import Decision, threshold_decision
from annotator.agreement.intervals import (
    MIN_PROPORTION_N,
    Interval,
    bca_interval,
    welch_interval,
    wilson_interval,
)
from annotator.sme.consistency import Consistency, rubric_consistency
from annotator.sme.formula import FormulaError, normaliser
from annotator.sme.reliability import Reliability
from annotator.sme.spec import Benchmark


@dataclass(frozen=True)
class ItemOutcome:
    """The reference verdict of one item on one benchmark (see sme.verdict.reference)."""

    item_id: str
    applicable: bool
    passed: bool | None = None
    score: float | None = None  # raw, on the benchmark's scale
    case_id: str | None = None  # the test case (subject of the rubric's Cronbach's alpha)
    system: str = ""  # the system under review, e.g. "copilot@1.3"
    run: int | None = None  # the k-th run of this case's output


def _bounds(ci: Interval | None) -> tuple[float, float] | None:
    return None if ci is None else ci.bounds


@dataclass(frozen=True)
class BenchmarkResult:
    code: str
    label: str
    parent_rubric: str
    evaluator_type: str
    weight: float
    items: int  # items with a reference verdict
    undecided: int  # items whose SMEs conflict and no adjudicator has decided
    unsubmitted: int  # items with no submitted verdict yet
    applicable: int
    pass_rate: float | None
    pass_rate_ci: tuple[float, float] | None  # Wilson; None below MIN_PROPORTION_N items
    pass_rate_n: int  # applicable items with a pass/flag outcome
    score: float | None  # mean normalised score
    score_ci: tuple[float, float] | None  # BCa; None below MIN_MEAN_N items or no spread
    score_n: int  # applicable items with a normalised score
    threshold: float | None  # normalised
    threshold_decision: Decision | None  # by score_ci, see agreement.decision.RULE

    @property
    def unresolved(self) -> int:
        """Items without a reference verdict, for either reason."""
        return self.undecided + self.unsubmitted


@dataclass(frozen=True)
class RubricResult:
    code: str
    benchmarks: list[str]
    scored: list[str]  # the benchmarks with a score, over which the weights are renormalised
    weight_scored: float  # sum of the weights of the scored benchmarks
    weight_covered: float  # weight_scored / the rubric's total weight
    score: float | None  # sum of weight x score over the scored benchmarks / weight_scored
    score_ci: tuple[float, float] | None  # Welch-Satterthwaite; None if one has < 10 items
    score_n: int  # items behind the score
    cronbach: Consistency  # its benchmarks as items, test cases as subjects


@dataclass(frozen=True)
class BenchmarkScores:
    """A benchmark's normalised scores, and their mean per test case."""

    values: np.ndarray
    by_case: dict[str, float]


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


def normalised_scores(benchmark: Benchmark, outcomes: Sequence[ItemOutcome]) -> list[float]:
    return [score for _case, score in _normalised(benchmark, outcomes)]


def normalised(benchmark: Benchmark, outcome: ItemOutcome) -> float | None:
    """The outcome's score on the 0..1 scale (None: not applicable, unscored, bad formula)."""
    if not outcome.applicable or outcome.score is None:
        return None
    return _on_scale(benchmark, outcome.score)


def _on_scale(benchmark: Benchmark, value: float) -> float | None:
    """``value`` through the benchmark scale's normalisation formula (None: bad formula)."""
    scale = benchmark.scale
    norm = normaliser(scale.normalization_formula, scale.min_value, scale.max_value)
    try:
        return norm(value)
    except FormulaError:
        return None


def _normalised(
    benchmark: Benchmark, outcomes: Sequence[ItemOutcome]
) -> list[tuple[str | None, float]]:
    pairs = ((o.case_id, normalised(benchmark, o)) for o in outcomes)
    return [(case, score) for case, score in pairs if score is not None]


def _case_means(scored: list[tuple[str | None, float]]) -> dict[str, float]:
    groups: dict[str, list[float]] = {}
    for case, score in scored:
        if case is not None:
            groups.setdefault(case, []).append(score)
    return {case: float(np.mean(values)) for case, values in groups.items()}


def _threshold(benchmark: Benchmark) -> float | None:
    if benchmark.threshold is None:
        return None
    return _on_scale(benchmark, benchmark.threshold)


def benchmark_result(
    benchmark: Benchmark,
    outcomes: Sequence[ItemOutcome],
    undecided: int = 0,
    unsubmitted: int = 0,
    seed: int = 0,
) -> tuple[BenchmarkResult, BenchmarkScores]:
    """The benchmark's figures and its normalised scores (for the rubric's figures)."""
    applicable = [o for o in outcomes if o.applicable]
    passes = [bool(o.passed) for o in applicable if o.passed is not None]
    scored = _normalised(benchmark, outcomes)
    scores = np.asarray([score for _case, score in scored], dtype=np.float64)
    score_ci = bca_interval([scores], seed=benchmark_seed(benchmark.code, seed))
    threshold = _threshold(benchmark)
    result = BenchmarkResult(
        code=benchmark.code,
        label=benchmark.label,
        parent_rubric=benchmark.parent_rubric,
        evaluator_type=benchmark.evaluator_type,
        weight=benchmark.weight,
        items=len(outcomes),
        undecided=undecided,
        unsubmitted=unsubmitted,
        applicable=len(applicable),
        pass_rate=float(np.mean(passes)) if passes else None,
        pass_rate_ci=_bounds(wilson_interval(sum(passes), len(passes), MIN_PROPORTION_N)),
        pass_rate_n=len(passes),
        score=float(scores.mean()) if scores.size else None,
        score_ci=_bounds(score_ci),
        score_n=int(scores.size),
        threshold=threshold,
        threshold_decision=threshold_decision(score_ci, threshold),
    )
    return result, BenchmarkScores(scores, _case_means(scored))


def rubric_results(
    results: Sequence[tuple[BenchmarkResult, BenchmarkScores]],
    all_benchmarks: Sequence[Benchmark],
    seed: int = 0,
) -> list[RubricResult]:
    """Parent-rubric scores: weighted mean over the benchmarks with a score.

    Exclusion criteria exist to exclude, so a benchmark of the rubric may have no scored
    item; its weight is then left out and the others renormalised (``weight_covered`` < 1
    says so). No benchmark scored: no score.
    """
    by_code = {r.code: (r, scores) for r, scores in results}
    rubrics: dict[str, list[Benchmark]] = {}
    for b in all_benchmarks:
        rubrics.setdefault(b.parent_rubric, []).append(b)
    out = []
    for rubric, members in sorted(rubrics.items()):
        scored = [by_code[b.code] for b in members
                  if b.code in by_code and by_code[b.code][0].score is not None]
        total = sum(b.weight for b in members)
        weight_scored = sum(r.weight for r, _s in scored)
        score, ci = None, None
        if scored and weight_scored > 0:
            weights = [r.weight / weight_scored for r, _s in scored]
            score = float(sum(w * (r.score or 0.0) for w, (r, _s) in zip(weights, scored,
                                                                          strict=True)))
            ci = welch_interval([s.values for _r, s in scored], weights)
            if ci is not None:  # a weighted mean of 0..1 scores stays in 0..1
                ci = Interval(max(ci.low, 0.0), min(ci.high, 1.0), ci.n)
        out.append(
            RubricResult(
                code=rubric,
                benchmarks=sorted(b.code for b in members),
                scored=sorted(r.code for r, _s in scored),
                weight_scored=weight_scored,
                weight_covered=weight_scored / total if total > 0 else 0.0,
                score=score,
                score_ci=_bounds(ci),
                score_n=sum(len(s.values) for _r, s in scored),
                cronbach=rubric_consistency({r.code: s.by_case for r, s in scored}),
            )
        )
    return out
