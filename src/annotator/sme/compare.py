"""System B against system A on the SME reference verdicts (seed 002, sections 3, 11, 12).

Items may carry ``run`` (the k-th of K runs of one case's output): a case's score is then
the mean over its runs, and :func:`worst_of_k` gives the seed's reliability view, the mean
and the worst score per case and per benchmark.

Per benchmark scored for both systems: the difference B - A in mean normalised score and in
pass rate, with 95% intervals and a p-value.

- Paired, when at least :data:`MIN_PAIRS` test cases (``case_id``) were reviewed for both:
  per case the mean of B's scores minus the mean of A's, and the paired t interval and test
  of the mean difference (``scipy.stats.ttest_1samp`` on the case differences, the one-sample
  case of :func:`~annotator.agreement.intervals.welch_interval`); the pass rates the same way
  from :data:`MIN_PAIRED_PASS` shared cases (fewer: the difference alone, no interval). The
  BCa bootstrap it replaced covered 0.77-0.91 at 10 shared cases and 0.905-0.93 at 30 at a
  small true difference (``docs/statistics.md``, coverage).
- Else Welch's t-test on all items (``scipy.stats.ttest_ind(equal_var=False)``, its
  interval) with Cohen's d (pooled standard deviation); the pass-rate difference gets
  Newcombe's hybrid score interval (from the two Wilson intervals).

The score p-values are Holm-adjusted across the benchmarks compared (Bonferroni shown too);
the plain line per benchmark comes from Holm at 0.05. Per parent rubric, the weighted
difference over its compared benchmarks (weights renormalised) with a normal interval from
the benchmarks' standard errors (benchmarks independent), when each rests on at least
:data:`MIN_RUBRIC_PAIRED` shared cases (paired) or :data:`MIN_RUBRIC_WELCH` items a side
(Welch). Drift: Kolmogorov-Smirnov and
Mann-Whitney U on the two score distributions, and the seed's 5% rule: an alert when the
mean normalised score moves by more than 0.05 (5 points of the 0..1 scale) and one of the
two tests gives p < 0.05.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

from annotator.agreement.intervals import CONFIDENCE, welch_interval, wilson_interval

MIN_PAIRS = 10
MIN_PAIRED_PASS = MIN_PAIRS  # shared cases before the pass-rate difference gets an interval
# The rubric's normal interval covered 0.915 with 10 shared cases per paired benchmark and
# >= 0.93 from 30; with Welch benchmarks >= 0.93 from 10 items a side (docs/statistics.md,
# coverage). With fewer in any member the rubric's difference is printed alone.
MIN_RUBRIC_PAIRED = 30
MIN_RUBRIC_WELCH = 10
ALPHA = 0.05
DRIFT_CHANGE = 0.05


@dataclass(frozen=True)
class Scored:
    """One reviewed item of one system: its test case, normalised score and pass/flag."""

    case_id: str | None
    score: float | None
    passed: bool | None
    run: int | None = None  # the k-th run of this case's output (worst-of-K)


@dataclass(frozen=True)
class CaseRuns:
    case_id: str
    runs: int
    mean: float
    worst: float


@dataclass(frozen=True)
class WorstOfK:
    """The seed's reliability view: per test case run K times, its mean and worst score."""

    k: int  # the most runs of one case
    cases: int  # cases run at least twice
    mean: float  # mean over those cases of the per-case mean
    worst: float  # mean over those cases of the per-case worst score
    per_case: list[CaseRuns]


@dataclass(frozen=True)
class Drift:
    ks_statistic: float
    ks_p: float
    mann_whitney_u: float
    mann_whitney_p: float
    change: float  # mean normalised score, B - A
    alert: bool  # |change| > 0.05 and a test with p < 0.05


@dataclass(frozen=True)
class BenchmarkComparison:
    code: str
    parent_rubric: str
    weight: float
    n_a: int
    n_b: int
    mean_a: float | None
    mean_b: float | None
    method: str  # "paired t" | "Welch" | "too few"
    pairs: int  # test cases reviewed for both
    difference: float | None  # B - A: paired, mean of case differences; else of item means
    ci: tuple[float, float] | None
    standard_error: float | None
    p: float | None
    p_holm: float | None
    p_bonferroni: float | None
    cohen_d: float | None  # Welch only
    pass_rate_a: float | None
    pass_rate_b: float | None
    pass_rate_difference: float | None
    pass_rate_ci: tuple[float, float] | None
    conclusion: str  # "B better" | "B worse" | "no detectable difference" | "too few to compare"
    drift: Drift | None
    worst_of_k_a: WorstOfK | None
    worst_of_k_b: WorstOfK | None


@dataclass(frozen=True)
class RubricComparison:
    code: str
    benchmarks: list[str]
    difference: float | None
    ci: tuple[float, float] | None


@dataclass(frozen=True)
class Comparison:
    a: str
    b: str
    benchmarks: list[BenchmarkComparison]
    rubrics: list[RubricComparison]
    basis: dict[str, Any]

    def as_json(self) -> dict[str, Any]:
        return {"a": self.a, "b": self.b, "basis": self.basis,
                "benchmarks": [asdict(c) for c in self.benchmarks],
                "rubrics": [asdict(r) for r in self.rubrics]}


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input order."""
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (m - rank) * p_values[i]))
        adjusted[i] = running
    return adjusted


def bonferroni(p_values: Sequence[float]) -> list[float]:
    return [min(1.0, len(p_values) * p) for p in p_values]


def _mean(values: Sequence[float]) -> float | None:
    return float(np.mean(values)) if values else None


def _by_case(items: Sequence[Scored], field: str) -> dict[str, float]:
    groups: dict[str, list[float]] = {}
    for item in items:
        value = getattr(item, field)
        if item.case_id is not None and value is not None:
            groups.setdefault(item.case_id, []).append(float(value))
    return {case: float(np.mean(v)) for case, v in groups.items()}


def _paired_t(differences: np.ndarray, minimum: int) -> tuple[float, float, float, float] | None:
    """Paired t interval, standard error and two-sided p of the mean of case differences;
    None below ``minimum`` cases or without spread."""
    from scipy.stats import ttest_1samp

    ci = welch_interval([differences], [1.0], minimum=minimum)
    if ci is None:
        return None
    se = float(np.std(differences, ddof=1) / math.sqrt(differences.size))
    return ci.low, ci.high, se, float(ttest_1samp(differences, 0.0).pvalue)


def _newcombe(a: Sequence[bool], b: Sequence[bool]) -> tuple[float, float] | None:
    """Newcombe's hybrid score interval of p_b - p_a from the two Wilson intervals."""
    wa, wb = wilson_interval(sum(a), len(a), 1), wilson_interval(sum(b), len(b), 1)
    if wa is None or wb is None:
        return None
    pa, pb = sum(a) / len(a), sum(b) / len(b)
    d = pb - pa
    low = d - math.sqrt((pb - wb.low) ** 2 + (wa.high - pa) ** 2)
    high = d + math.sqrt((wb.high - pb) ** 2 + (pa - wa.low) ** 2)
    return low, high


def _cohen_d(a: np.ndarray, b: np.ndarray) -> float | None:
    pooled = ((a.size - 1) * a.var(ddof=1) + (b.size - 1) * b.var(ddof=1)) / (a.size + b.size - 2)
    return None if pooled <= 0 else float((b.mean() - a.mean()) / math.sqrt(pooled))


def worst_of_k(items: Sequence[Scored]) -> WorstOfK | None:
    """Mean and worst normalised score of each case with runs, None without repeated runs."""
    runs: dict[str, list[float]] = {}
    for item in items:
        if item.run is not None and item.case_id is not None and item.score is not None:
            runs.setdefault(item.case_id, []).append(item.score)
    repeated = {case: scores for case, scores in sorted(runs.items()) if len(scores) >= 2}
    if not repeated:
        return None
    per_case = [CaseRuns(case, len(s), float(np.mean(s)), float(min(s)))
                for case, s in repeated.items()]
    return WorstOfK(max(c.runs for c in per_case), len(per_case),
                    float(np.mean([c.mean for c in per_case])),
                    float(np.mean([c.worst for c in per_case])), per_case)


def _drift(a: np.ndarray, b: np.ndarray) -> Drift | None:
    from scipy.stats import ks_2samp, mannwhitneyu

    if a.size < 2 or b.size < 2:
        return None
    ks = ks_2samp(a, b)
    mw = mannwhitneyu(b, a, alternative="two-sided")
    change = float(b.mean() - a.mean())
    confirmed = min(float(ks.pvalue), float(mw.pvalue)) < ALPHA
    return Drift(float(ks.statistic), float(ks.pvalue), float(mw.statistic), float(mw.pvalue),
                 change, abs(change) > DRIFT_CHANGE and confirmed)


def compare_benchmark(
    code: str, parent_rubric: str, weight: float, a: Sequence[Scored], b: Sequence[Scored],
    seed: int = 0,
) -> BenchmarkComparison:
    """One benchmark's comparison before the multiplicity adjustment (p_holm None).

    ``seed`` draws nothing since the paired interval is a t interval (it was the bootstrap's);
    kept so callers and ``--seed`` stay as they are."""
    from scipy.stats import ttest_ind

    sa = np.array([i.score for i in a if i.score is not None], dtype=np.float64)
    sb = np.array([i.score for i in b if i.score is not None], dtype=np.float64)
    pa = [bool(i.passed) for i in a if i.passed is not None]
    pb = [bool(i.passed) for i in b if i.passed is not None]
    case_a, case_b = _by_case(a, "score"), _by_case(b, "score")
    shared = sorted(set(case_a) & set(case_b))
    method, ci, se, p, d = "too few", None, None, None, None
    mean_a, mean_b = _mean(list(sa)), _mean(list(sb))
    rate_a, rate_b = _mean([float(x) for x in pa]), _mean([float(x) for x in pb])
    difference = None if mean_a is None or mean_b is None else mean_b - mean_a
    pass_difference = None if rate_a is None or rate_b is None else rate_b - rate_a
    pass_ci: tuple[float, float] | None = None
    if len(shared) >= MIN_PAIRS:
        # Paired: the difference is the mean over shared cases of B's minus A's case mean.
        method = "paired t"
        diffs = np.array([case_b[c] - case_a[c] for c in shared])
        difference = float(diffs.mean())
        paired = _paired_t(diffs, MIN_PAIRS)
        if paired is not None:
            ci, se, p = (paired[0], paired[1]), paired[2], paired[3]
        pass_a, pass_b = _by_case(a, "passed"), _by_case(b, "passed")
        both = sorted(set(pass_a) & set(pass_b))
        pass_diffs = np.array([pass_b[c] - pass_a[c] for c in both])
        pass_difference = float(pass_diffs.mean()) if both else None
        pass_paired = _paired_t(pass_diffs, MIN_PAIRED_PASS)
        pass_ci = None if pass_paired is None else (pass_paired[0], pass_paired[1])
    elif sa.size >= 2 and sb.size >= 2 and (np.ptp(sa) > 0 or np.ptp(sb) > 0):
        method = "Welch"
        welch = ttest_ind(sb, sa, equal_var=False)
        interval = welch.confidence_interval(CONFIDENCE)
        ci, p = (float(interval.low), float(interval.high)), float(welch.pvalue)
        se = float(math.sqrt(sa.var(ddof=1) / sa.size + sb.var(ddof=1) / sb.size))
        d = _cohen_d(sa, sb)
        pass_ci = _newcombe(pa, pb) if pa and pb else None
    return BenchmarkComparison(
        code=code, parent_rubric=parent_rubric, weight=weight, n_a=int(sa.size),
        n_b=int(sb.size), mean_a=mean_a, mean_b=mean_b, method=method, pairs=len(shared),
        difference=difference,
        ci=ci, standard_error=se, p=p, p_holm=None, p_bonferroni=None, cohen_d=d,
        pass_rate_a=rate_a, pass_rate_b=rate_b,
        pass_rate_difference=pass_difference,
        pass_rate_ci=pass_ci, conclusion="too few to compare", drift=_drift(sa, sb),
        worst_of_k_a=worst_of_k(a), worst_of_k_b=worst_of_k(b),
    )


def _conclude(c: BenchmarkComparison, p_holm: float | None, p_bonf: float | None
              ) -> BenchmarkComparison:
    if p_holm is None or c.difference is None:
        return c
    word = "no detectable difference"
    if p_holm < ALPHA:
        word = "B better" if c.difference > 0 else "B worse"
    return replace(c, p_holm=p_holm, p_bonferroni=p_bonf, conclusion=word)


def _rubrics(compared: Sequence[BenchmarkComparison]) -> list[RubricComparison]:
    from scipy.stats import norm

    groups: dict[str, list[BenchmarkComparison]] = {}
    for c in compared:
        if c.difference is not None and c.standard_error is not None:
            groups.setdefault(c.parent_rubric, []).append(c)
    out = []
    z = float(norm.ppf(1 - (1 - CONFIDENCE) / 2))
    for rubric, members in sorted(groups.items()):
        total = sum(c.weight for c in members)
        if total <= 0:
            continue
        w = [c.weight / total for c in members]
        diff = sum(wi * (c.difference or 0.0) for wi, c in zip(w, members, strict=True))
        se = math.sqrt(sum((wi * (c.standard_error or 0.0)) ** 2
                           for wi, c in zip(w, members, strict=True)))
        enough = all(_enough_for_rubric(c) for c in members)
        out.append(RubricComparison(rubric, [c.code for c in members], diff,
                                    (diff - z * se, diff + z * se) if enough else None))
    return out


def _enough_for_rubric(c: BenchmarkComparison) -> bool:
    """Whether a member's standard error is good for the rubric's normal interval."""
    if c.method == "paired t":
        return c.pairs >= MIN_RUBRIC_PAIRED
    return min(c.n_a, c.n_b) >= MIN_RUBRIC_WELCH


def compare(
    a: str, b: str, benchmarks: Mapping[str, tuple[str, float, Sequence[Scored],
                                                   Sequence[Scored]]],
    seed: int = 0,
) -> Comparison:
    """Compare system ``b`` with ``a``: code -> (parent rubric, weight, A's items, B's)."""
    rows = [compare_benchmark(code, rubric, weight, items_a, items_b, seed)
            for code, (rubric, weight, items_a, items_b) in sorted(benchmarks.items())
            if items_a and items_b]
    tested = [i for i, c in enumerate(rows) if c.p is not None]
    p_values = [rows[i].p or 0.0 for i in tested]
    adjusted = dict(zip(tested, zip(holm(p_values), bonferroni(p_values), strict=True),
                        strict=True))
    rows = [_conclude(c, *adjusted.get(i, (None, None))) for i, c in enumerate(rows)]
    return Comparison(a, b, rows, _rubrics(rows), {
        "difference": "B - A, mean normalised score (0..1) and pass rate",
        "paired": f"paired t interval and test of the mean case difference over shared "
                  f"case_ids when >= {MIN_PAIRS} (pass rate: from {MIN_PAIRED_PASS})",
        "unpaired": "Welch's t-test on all items, Cohen's d with the pooled SD; pass rate: "
                    "Newcombe's hybrid score interval",
        "multiplicity": f"Holm across the {len(tested)} benchmarks tested (Bonferroni "
                        f"shown); conclusion at Holm p < {ALPHA}",
        "rubric": "weighted difference over the compared benchmarks (weights renormalised), "
                  "normal interval from their standard errors when each rests on >= "
                  f"{MIN_RUBRIC_PAIRED} shared cases (paired) or {MIN_RUBRIC_WELCH} items "
                  "a side (Welch)",
        "worst_of_k": "per test case run K >= 2 times (items with run): the mean and the worst "
                      "normalised score; per benchmark, their means over those cases; the "
                      "comparison itself uses each case's mean over its runs",
        "drift": f"Kolmogorov-Smirnov and Mann-Whitney U; alert when |change| > "
                 f"{DRIFT_CHANGE} and a test gives p < {ALPHA} (seed 002, section 12)",
    })
