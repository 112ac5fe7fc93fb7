"""Reliability of SME verdicts (seed 002, sections 6-7 and 11), on the agreement engine.

Three families per benchmark: ``applicability`` (applicable/excluded, nominal),
``outcome`` (pass/flag, nominal, among items found applicable) and ``score`` (interval).
Units are tasks, columns are reviewers; nan marks a reviewer who did not rate the task.
A benchmark is flagged when its score ICC(1,1) is below 0.75 or, where cases hold several
scored items, Cronbach's alpha over those items is below 0.7 (seed 002, section 7).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from annotator.agreement.coefficients import percent_agreement
from annotator.agreement.icc import icc
from annotator.agreement.kappa import cohen_kappa
from annotator.agreement.measure import Measure, Ratings
from annotator.sme.spec import Benchmark
from annotator.sme.verdict import Verdict, level_index, levels

ICC_MIN = 0.75
CRONBACH_MIN = 0.7
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
    cronbach: float | None
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


def cronbach_alpha(matrix: np.ndarray) -> float | None:
    """Cronbach's alpha of a subjects x items matrix (complete rows only)."""
    x = np.asarray(matrix, dtype=np.float64)
    if x.ndim != 2:
        return None
    x = x[~np.isnan(x).any(axis=1)]
    n, k = x.shape
    if n < 2 or k < 2:
        return None
    total = x.sum(axis=1).var(ddof=1)
    if total == 0:
        return None
    return float(k / (k - 1) * (1 - x.var(axis=0, ddof=1).sum() / total))


def by_case(scores: Mapping[str, float], case_of: Mapping[str, str | None]) -> np.ndarray:
    """Cases x items-within-case reference scores, for the cases holding the modal count >= 2."""
    groups: dict[str, list[float]] = {}
    for item, score in sorted(scores.items()):
        case = case_of.get(item)
        if case is not None:
            groups.setdefault(case, []).append(score)
    sizes = [len(g) for g in groups.values() if len(g) >= 2]
    if not sizes:
        return np.empty((0, 0))
    k = max(set(sizes), key=sizes.count)
    return np.array([g for g in groups.values() if len(g) == k])


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
    cases: np.ndarray | None = None,
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
    forms = icc(_packed(scores))
    icc11 = forms["ICC(1,1)"].value if forms else None
    ci["score"] = {
        "alpha": score_alpha_ci,
        "icc": forms["ICC(1,1)"].ci95 if forms else None,
    }
    cronbach = cronbach_alpha(cases) if cases is not None and cases.size else None
    flags = []
    if icc11 is not None and icc11 < ICC_MIN:
        flags.append(f"ICC(1,1) {icc11:.2f} < {ICC_MIN}")
    if cronbach is not None and cronbach < CRONBACH_MIN:
        flags.append(f"Cronbach's alpha {cronbach:.2f} < {CRONBACH_MIN}")
    auto = (
        automated_agreement(benchmark, automated) if benchmark.evaluator_type == "hybrid" else None
    )
    return Reliability(
        benchmark.code, units, kappa, alpha, agreement, icc11, cronbach, auto, flags, ci
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
