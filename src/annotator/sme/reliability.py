"""Reliability of SME verdicts (seed 002, sections 6-7 and 11), on the agreement engine.

Three families per benchmark: ``applicability`` (applicable/excluded, nominal),
``outcome`` (pass/flag, nominal, among items found applicable) and ``score`` (interval).
Units are tasks, columns are reviewers; nan marks a reviewer who did not rate the task.
A benchmark's score ICC(1,1) is flagged by its F-based interval (seed 002, section 7):
"below 0.75" when the upper bound is under 0.75, "possibly below" when it straddles, and
not at all from fewer than :data:`ICC_MIN_UNITS` tasks. Cronbach's alpha is a rubric's
figure (its benchmarks as items), see :mod:`annotator.sme.consistency`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotator.agreement.coefficients import percent_agreement
from annotator.agreement.decision import below_flag
from annotator.agreement.icc import icc
from annotator.agreement.kappa import cohen_kappa
from annotator.agreement.measure import Measure, Ratings
from annotator.sme.spec import Benchmark
from annotator.sme.verdict import Verdict, level_index, levels

ICC_MIN = 0.75
ICC_MIN_UNITS = 10  # fewer tasks: an ICC from 2-4 units flags by chance, no flag
FAMILIES = {
    "applicability": ("applicable", "excluded"),
    "outcome": ("pass", "flag"),
}


@dataclass(frozen=True)
class Reliability:
    """One benchmark's reliability figures (None where undefined or too few units)."""

    code: str
    units: dict[str, int]  # family -> tasks with at least two ratings
    kappa: dict[str, float | None]  # Fleiss' kappa per nominal family
    alpha: dict[str, float | None]  # Krippendorff's alpha (nominal; interval for score)
    agreement: dict[str, float | None]  # percent agreement
    icc: float | None  # ICC(1,1) on scores: each task's SMEs come from a larger pool
    icc_units: int  # tasks behind the ICC (those with the modal number of scores)
    automated: dict[str, Any] | None  # hybrid: SME reference vs automated verdict
    flags: list[str] = field(default_factory=list)
    # 95% CIs: family -> coefficient -> (low, high) or None. Kappa and alpha by the agreement
    # engine's case bootstrap (1,000 resamples, seeded; none under its 20-unit minimum, as
    # in the agreement report); ICC(1,1) by its F distribution.
    ci: dict[str, dict[str, tuple[float, float] | None]] = field(default_factory=dict)


def _matrix(rows: Sequence[Mapping[str, Any]], key: str, code: Mapping[Any, float]) -> np.ndarray:
    raters = sorted({r for row in rows for r in row})
    out = np.full((len(rows), max(len(raters), 1)), np.nan)
    for i, row in enumerate(rows):
        for j, rater in enumerate(raters):
            value = row.get(rater, {}).get(key)
            if value is not None and value in code:
                out[i, j] = code[value]
    return out


def _packed(matrix: np.ndarray) -> np.ndarray:
    """Rows with the most common number of ratings, packed into rating slots (for ICC)."""
    counts = (~np.isnan(matrix)).sum(axis=1)
    if counts.size == 0 or counts.max() < 2:
        return np.empty((0, 0))
    m = int(np.bincount(counts[counts >= 2]).argmax())
    rows = matrix[counts == m]
    return np.array([r[~np.isnan(r)] for r in rows]).reshape(len(rows), m)


def _modal_rows(matrix: np.ndarray) -> np.ndarray:
    """Units with the most common number (>= 2) of ratings: Fleiss' kappa needs equal counts."""
    counts = (~np.isnan(matrix)).sum(axis=1)
    multi = counts[counts >= 2]
    if multi.size == 0:
        return matrix[:0]
    rows: np.ndarray = matrix[counts == int(np.bincount(multi).argmax())]
    return rows


def _multi(matrix: np.ndarray) -> int:
    return int(((~np.isnan(matrix)).sum(axis=1) >= 2).sum())


def automated_agreement(
    benchmark: Benchmark, pairs: Sequence[tuple[Verdict, Mapping[str, Any]]]
) -> dict[str, Any]:
    """SME reference vs automated verdict: kappa on pass/flag, quadratic kappa on levels."""
    outcome = [
        (1.0 if s["outcome"] == "flag" else 0.0, 1.0 if _auto_flag(a) else 0.0)
        for s, a in pairs
        if s.get("outcome") and _auto_flag(a) is not None
    ]
    n_levels = len(levels(benchmark))
    scored = [
        (
            float(level_index(benchmark, float(s["score"]))),
            float(level_index(benchmark, float(a["score"]))),
        )
        for s, a in pairs
        if s.get("score") is not None and isinstance(a.get("score"), int | float)
    ]
    out: dict[str, Any] = {"outcome_units": len(outcome), "score_units": len(scored)}
    out["outcome_kappa"] = (
        cohen_kappa([a for a, _ in outcome], [b for _, b in outcome], 2) if outcome else None
    )
    out["score_weighted_kappa"] = (
        cohen_kappa([a for a, _ in scored], [b for _, b in scored], n_levels, "quadratic")
        if scored
        else None
    )
    return out


def _auto_flag(automated: Mapping[str, Any]) -> bool | None:
    """True when the automated verdict flags the item (``outcome`` or ``passed``)."""
    if automated.get("outcome") in ("pass", "flag"):
        return bool(automated["outcome"] == "flag")
    if isinstance(automated.get("passed"), bool):
        return not automated["passed"]
    return None


def reliability(
    benchmark: Benchmark,
    verdicts: Sequence[Mapping[str, Verdict]],
    *,
    automated: Sequence[tuple[Verdict, Mapping[str, Any]]] = (),
    seed: int = 0,
) -> Reliability:
    """Figures of one benchmark from its tasks' submitted verdicts (reviewer -> fields)."""
    units: dict[str, int] = {}
    ci: dict[str, dict[str, tuple[float, float] | None]] = {}
    kappa: dict[str, float | None] = {}
    alpha: dict[str, float | None] = {}
    agreement: dict[str, float | None] = {}
    for family, labels in FAMILIES.items():
        codes = {label: float(i) for i, label in enumerate(labels)}
        rows = verdicts
        if family == "outcome":
            rows = [
                {r: v for r, v in row.items() if v.get("applicability") == "applicable"}
                for row in verdicts
            ]
        m = _matrix(rows, family, codes)
        units[family] = _multi(m)
        k = len(labels)
        # Fleiss' kappa needs equal rating counts: it reads the modal rows, its CI too.
        kappa[family], kappa_ci = _figure(Measure("fleiss_kappa", n_categories=k),
                                          _modal_rows(m), seed)
        alpha[family], alpha_ci = _figure(
            Measure("krippendorff_alpha", n_categories=k, level="nominal"), m, seed)
        agreement[family] = percent_agreement(m) if units[family] else None
        ci[family] = {"kappa": kappa_ci, "alpha": alpha_ci}
    scores = _score_matrix(verdicts)
    units["score"] = _multi(scores)
    alpha["score"], score_alpha_ci = _figure(Measure("krippendorff_alpha", level="interval"),
                                             scores, seed)
    agreement["score"] = None
    packed = _packed(scores)
    forms = icc(packed)
    icc11 = forms["ICC(1,1)"].value if forms else None
    ci["score"] = {
        "alpha": score_alpha_ci,
        "icc": forms["ICC(1,1)"].ci95 if forms else None,
    }
    flag = below_flag("ICC(1,1)", icc11, ci["score"]["icc"], len(packed), ICC_MIN_UNITS,
                      ICC_MIN)
    flags = [] if flag is None else [flag]
    auto = (
        automated_agreement(benchmark, automated) if benchmark.evaluator_type == "hybrid" else None
    )
    return Reliability(
        benchmark.code, units, kappa, alpha, agreement, icc11, len(packed), auto, flags, ci
    )


def _figure(
    measure: Measure, matrix: np.ndarray, seed: int
) -> tuple[float | None, tuple[float, float] | None]:
    """A coefficient and its case-bootstrap CI from one measure; None without pairable units."""
    if _multi(matrix) == 0:
        return None, None
    ratings = Ratings(matrix, list(range(len(matrix))))
    try:
        value = measure.estimate(ratings)
        ci = measure.interval(ratings, seed=seed) if value is not None else None
    except ValueError:
        return None, None
    return value, None if ci is None else ci.interval


def _score_matrix(verdicts: Sequence[Mapping[str, Verdict]]) -> np.ndarray:
    raters = sorted({r for row in verdicts for r in row})
    out = np.full((len(verdicts), max(len(raters), 1)), np.nan)
    for i, row in enumerate(verdicts):
        for j, rater in enumerate(raters):
            score = row.get(rater, {}).get("score")
            if score is not None:
                out[i, j] = float(score)
    return out
