"""The project agreement report: one JSON-able dict behind the page, the CLI, CSV and HTML.

``build_report(basis)`` computes every registered label family on the basis (see
:mod:`annotator.agreement.project_data`), the summary of the paper's Table 7, the cases that
contribute most disagreement, per-annotator monitoring and the weekly timeline. Numbers
that are undefined are None ("n/a"); the dict passes ``json.dumps(..., allow_nan=False)``.
Annotators appear as "Annotator 1..n" in the order of their sorted keys, with their names
(only curators can open the report).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from annotator.agreement.bootstrap import NOMINAL_CASES, STATED_MIN_CASES, stated_minimums
from annotator.agreement.families import Family, families, family_ratings
from annotator.agreement.family_stats import family_stats
from annotator.agreement.latent_report import latent_class_section
from annotator.agreement.monitoring import annotator_sections, case_weeks, timeline
from annotator.agreement.options import ReportOptions
from annotator.agreement.project_data import ProjectBasis
from annotator.domain.labels import FIX_FAMILIES, split_key

SCHEMA = "annotator.agreement-report/1"
EXCLUSION_WORDS = {
    "case_excluded": "excluded cases",
    "still_annotating": "cases still being annotated",
    "incomplete": "incomplete cases (fewer than 2 submitted annotations)",
    "follow_up": "future follow-up exams (time_past < 0)",
    "non_imaging": "non-imaging exams",
}


def clean(value: Any) -> Any:
    """JSON-safe copy: numpy scalars to Python, tuples to lists, nan/inf to None."""
    if isinstance(value, dict):
        return {str(k): clean(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean(v) for v in value]
    if isinstance(value, np.ndarray):
        return clean(value.tolist())
    if isinstance(value, bool | np.bool_):
        return bool(value)
    if isinstance(value, int | np.integer):
        return int(value)
    if isinstance(value, float | np.floating):
        return float(value) if math.isfinite(value) else None
    return value


def annotator_names(basis: ProjectBasis) -> list[str]:
    """Anonymous stable labels, "Annotator 1..n", by sorted annotator key."""
    return [f"Annotator {i + 1}" for i in range(len(basis.annotator_keys))]


def basis_section(basis: ProjectBasis, options: ReportOptions) -> dict[str, Any]:
    """What the figures are computed from, and what is left out and why."""
    counts = Counter(e.reason for e in basis.exclusions)
    annotations = sum(len(c.labels) for c in basis.cases)
    left_out = "; ".join(f"{counts[r]} {w}" for r, w in EXCLUSION_WORDS.items() if counts[r])
    statement = (
        "Labels as each annotator submitted them when the case entered review, before "
        f"adjudication. {len(basis.cases)} of {basis.cases_total} cases contribute (in review "
        "or green-lit, with at least two submitted annotations); "
        f"{annotations} annotations. Left out: {left_out or 'nothing'}. Units are keyed by "
        "case and exam figure; exam-level units cover only the exams the scoring core uses, "
        "and a unit counts when at least two annotators rated it. Exact agreement and PABAK "
        "pool rating pairs over units (as the paper counts step pairs); Gwet's AC1/AC2 and "
        "Fleiss' kappa (Gwet's generalisation, defined when raters per unit vary) average "
        "agreement per unit. Exam order: the headline is strict pairwise agreement (pairs at "
        "least one annotator orders) and Kendall's tau-b per case; chance-corrected "
        "coefficients count each exam pair in both orientations. "
        f"Kappa: {options.kappa.for_level('ordinal').definition()} for ordinal families "
        "(unweighted for nominal ones), over the full label set; Cohen's kappa per annotator "
        f"pair only where the pair shares at least {options.min_shared} units. "
        f"95% CIs: BCa bootstrap over cases ({options.n_resamples} resamples, seed "
        f"{options.seed}; a case drawn twice counts twice); resamples where a coefficient is "
        f"undefined are dropped and counted; a coefficient's interval is n/a below its "
        f"minimum number of cases ({stated_minimums()}: the interval's coverage falls short "
        f"under that); the exam-order intervals are n/a below {options.min_cases} cases (they "
        f"meet the coverage target from 20). Krippendorff's alpha at the level "
        "stated per family."
    )
    return {
        "statement": statement,
        "labels": "as submitted, before adjudication",
        "cases_total": basis.cases_total,
        "cases_included": len(basis.cases),
        "annotations": annotations,
        "annotators": len(basis.annotator_keys),
        "exclusion_counts": {r: counts[r] for r in EXCLUSION_WORDS if counts[r]},
        "excluded_cases": [
            {"case_id": e.case_id, "reason": e.reason, "detail": e.detail}
            for e in basis.exclusions if not e.figure
        ],
        "excluded_exams": [
            {"case_id": e.case_id, "figure": e.figure, "reason": e.reason, "detail": e.detail}
            for e in basis.exclusions if e.figure
        ],
        "options": {
            "n_resamples": options.n_resamples,
            "seed": options.seed,
            "confidence": 0.95,
            "ci_method": "BCa bootstrap over cases",
            "min_cases": options.min_cases,
            "min_cases_by_coefficient": dict(STATED_MIN_CASES),
            "min_shared_units_for_pair_kappa": options.min_shared,
            "undefined_resamples": "dropped and counted per coefficient",
            "nominal_coverage_cases": NOMINAL_CASES,
            "kappa_weights": options.kappa.weights_word,
            "kappa_pooling": options.kappa.pooling,
            "kappa_definition": options.kappa.for_level("ordinal").definition(),
        },
    }


def _summary(basis: ProjectBasis, sections: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The quantities of the paper's Table 7."""
    counting = [s for s in sections if s["counts_for_cases"]]
    with_conflict = {c for s in counting for c, n in s["disagreeing_pairs_by_case"].items() if n}
    corrected = sum(
        any(split_key(k)[0] in FIX_FAMILIES for m in case.labels.values() for k in m)
        for case in basis.cases
    )
    # A "not correct" mark on draft metadata is a flag, not a fix: counted separately.
    marks = [sum(split_key(k)[0] == "meta_ok" and v is False for m in case.labels.values()
                 for k, v in m.items()) for case in basis.cases]
    annotations = sum(len(c.labels) for c in basis.cases)
    n = len(basis.cases)
    return {
        "annotations": annotations,
        "cases": n,
        "mean_annotations_per_case": annotations / n if n else None,
        "cases_with_disagreement": len(with_conflict),
        "cases_with_draft_corrections": corrected,
        "cases_with_metadata_marked_wrong": sum(1 for m in marks if m),
        "metadata_marked_wrong": sum(marks),
    }


def _top_cases(sections: Sequence[dict[str, Any]], top_n: int) -> list[dict[str, Any]]:
    totals: dict[str, dict[str, int]] = {}
    for s in sections:
        if not s["counts_for_cases"]:
            continue
        for case_id, n in s["disagreeing_pairs_by_case"].items():
            if n:
                totals.setdefault(case_id, {})[s["id"]] = n
    ranked = sorted(totals.items(), key=lambda kv: (-sum(kv[1].values()), kv[0]))
    return [
        {"case_id": c, "disagreeing_pairs": sum(by.values()), "by_family": by}
        for c, by in ranked[:top_n]
    ]


def build_report(
    basis: ProjectBasis,
    options: ReportOptions | None = None,
    family_list: Sequence[Family] | None = None,
) -> dict[str, Any]:
    """The whole agreement report of ``basis`` (every registered family by default)."""
    options = options or ReportOptions()
    chosen = list(family_list) if family_list is not None else families()
    keys = basis.annotator_keys
    names = annotator_names(basis)
    states = {c.case_id: c.state for c in basis.cases}
    weeks = case_weeks(basis)
    ratings = [family_ratings(f, basis.cases, keys) for f in chosen]
    sections = []
    for family, r in zip(chosen, ratings, strict=True):
        section = family_stats(r, basis.cases, names, states, weeks, options)
        section["counts_for_cases"] = family.counts_for_cases
        section["latent_class"] = latent_class_section(r, names)
        sections.append(section)
    report = {
        "schema": SCHEMA,
        "basis": basis_section(basis, options),
        "summary": _summary(basis, sections),
        "annotators": annotator_sections(basis, names, ratings),
        "families": sections,
        "top_cases": _top_cases(sections, options.top_n),
        "timeline": timeline(sections, weeks),
    }
    for section in sections:
        del section["disagreeing_pairs_by_case"]  # internal: summed into top_cases above
    result: dict[str, Any] = clean(report)
    return result


def family(report: dict[str, Any], family_id: str) -> dict[str, Any]:
    """The section of one family; KeyError naming the known ids otherwise."""
    for section in report["families"]:
        if section["id"] == family_id:
            found: dict[str, Any] = section
            return found
    known = ", ".join(s["id"] for s in report["families"])
    raise KeyError(f"no family {family_id!r} in the report (known: {known})")
