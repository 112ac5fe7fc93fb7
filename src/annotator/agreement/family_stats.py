"""Every figure of one label family: coefficients with CIs, pairs, confusion, anatomy, time.

Built only from the coefficient functions of this package over the family's ratings matrix
(:class:`~annotator.agreement.families.FamilyRatings`); labels are codes over the full
label set, and Krippendorff's alpha always gets the family's level explicitly.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from itertools import combinations
from typing import Any

import numpy as np

from annotator.agreement.bootstrap import per_case_sums
from annotator.agreement.coefficients import percent_agreement
from annotator.agreement.families import FamilyRatings
from annotator.agreement.icc import icc
from annotator.agreement.kappa import confusion_matrix, pairwise_cohen_kappas
from annotator.agreement.measure import Measure, Ratings
from annotator.agreement.options import ReportOptions
from annotator.agreement.project_data import CaseBasis
from annotator.agreement.sufficient import decompose

COEFFICIENTS: tuple[str, ...] = (
    "percent_agreement",
    "unanimity",
    "krippendorff_alpha",
    "fleiss_kappa",
    "mean_pairwise_cohen_kappa",
    "quadratic_weighted_kappa",
    "gwet_ac1",
    "gwet_ac2",
    "pabak",
    "kappa",
)


def _measures(r: FamilyRatings, options: ReportOptions) -> dict[str, Measure | None]:
    """Every coefficient of the family, point estimate and CI defined once (None: n/a)."""
    f, k = r.family, len(r.family.labels)
    # Mirrored units appear twice in m: the shared-unit minimum of a pair doubles with them.
    choice = replace(f.kappa(options), min_shared=options.min_shared * r.orientations)
    pairs = replace(choice, pooling="pairs")
    ordinal = f.level == "ordinal"
    return {
        "percent_agreement": Measure("percent_agreement"),
        "unanimity": Measure("unanimity"),
        "krippendorff_alpha": Measure("krippendorff_alpha", n_categories=k, level=f.level),
        "fleiss_kappa": Measure("fleiss_kappa", n_categories=k),
        "mean_pairwise_cohen_kappa": pairs.measure(k),
        "quadratic_weighted_kappa": replace(pairs, weights="quadratic").measure(k)
        if ordinal else None,
        "gwet_ac1": Measure("gwet_ac1", n_categories=k),
        "gwet_ac2": Measure("gwet_ac2", n_categories=k, weights=choice.weights or "quadratic")
        if ordinal else None,
        "pabak": Measure("pabak", n_categories=k),
        "kappa": choice.measure(k),
    }


def _coefficients(r: FamilyRatings, options: ReportOptions) -> dict[str, dict[str, Any]]:
    m, case_ids = r.symmetric()
    ratings = Ratings(m, case_ids)
    measures = _measures(r, options)
    n, seed, least = options.n_resamples, options.seed, options.min_cases
    out: dict[str, dict[str, Any]] = {}
    for name in COEFFICIENTS:
        measure = measures[name]
        value = None if measure is None else measure.estimate(ratings)
        ci = None
        if measure is None or value is None:
            pass
        elif name == "kappa" and measure == measures["mean_pairwise_cohen_kappa"]:
            out[name] = dict(out["mean_pairwise_cohen_kappa"])  # the same definition
            continue
        else:
            ci = measure.interval(ratings, n, seed, least)
        out[name] = {"value": value, "ci95": None if ci is None else list(ci.interval),
                     "dropped_resamples": 0 if ci is None else ci.dropped}
    return out


def _pairs(r: FamilyRatings, names: list[str], options: ReportOptions) -> tuple[
    list[dict[str, Any]], np.ndarray
]:
    """Per annotator pair sharing units: n, agreement, Cohen's kappa; and pooled confusion."""
    k, twice = len(r.family.labels), r.orientations
    # Kappas on both orientations of mirrored units; counts of the units as they are.
    kappas = pairwise_cohen_kappas(r.symmetric()[0], k, r.family.kappa(options).weights,
                                   min_shared=options.min_shared * twice)
    pooled = np.zeros((k, k))
    pairs = []
    for pk in kappas:
        table = confusion_matrix(r.matrix[:, pk.first], r.matrix[:, pk.second], k)
        pooled += table
        shared = pk.n_shared // twice
        if shared == 0:
            continue
        note = "" if shared >= options.min_shared else (
            f"n/a: {shared} shared units < {options.min_shared}")
        if pk.kappa is None and not note:
            note = "n/a: undefined (no variation)"
        pairs.append({
            "first": names[pk.first],
            "second": names[pk.second],
            "n_shared": shared,
            "agreement": float(np.trace(table) / shared),
            "cohen_kappa": pk.kappa,
            "kappa_note": note,
        })
    return pairs, pooled


def _disagreements(labels: tuple[str, ...], pooled: np.ndarray) -> list[dict[str, Any]]:
    out = []
    for i, j in combinations(range(len(labels)), 2):
        n = int(pooled[i, j] + pooled[j, i])
        if n:
            out.append({"labels": [labels[i], labels[j]], "pairs": n})
    return sorted(out, key=lambda d: -d["pairs"])


def _cases(r: FamilyRatings, states: Mapping[str, str], options: ReportOptions) -> dict[str, Any]:
    """Cases with a disagreement, how many were green-lit, and the top contributors."""
    stats = decompose(r.matrix, "percent_agreement").unit_stats  # [agreeing, pairs] per unit
    disagreeing = stats[:, 1] - stats[:, 0]
    cases, sums = per_case_sums(np.column_stack([disagreeing, stats[:, 1]]), r.case_ids)
    conflict = [str(c) for c, s in zip(cases, sums, strict=True) if s[0] > 0]
    items: dict[str, list[str]] = {}
    for case_id, item, d in zip(r.case_ids, r.items, disagreeing, strict=True):
        if d > 0:
            items.setdefault(case_id, []).append(item)
    ranked = sorted(zip(cases, sums, strict=True), key=lambda cs: (-cs[1][0], str(cs[0])))
    top = [
        {"case_id": str(c), "disagreeing_pairs": int(s[0]), "rating_pairs": int(s[1]),
         "items": [i for i in items.get(str(c), []) if i]}
        for c, s in ranked[: options.top_n] if s[0] > 0
    ]
    return {
        "n_cases": len(cases),
        "conflict_cases": len(conflict),
        "green_lit_conflict_cases": sum(states.get(c) == "green_lit" for c in conflict),
        "top_cases": top,
        "disagreeing_pairs_by_case": {str(c): int(s[0]) for c, s in zip(cases, sums, strict=True)},
    }


def _over_time(r: FamilyRatings, weeks: Mapping[str, str]) -> list[dict[str, Any]]:
    unit_weeks = np.array([weeks.get(c, "") for c in r.case_ids], dtype=object)
    out = []
    for week in sorted({w for w in unit_weeks if w}):
        rows = unit_weeks == week
        out.append({
            "week": week,
            "n_cases": len({c for c, keep in zip(r.case_ids, rows, strict=True) if keep}),
            "n_units": int(rows.sum()),
            "percent_agreement": percent_agreement(r.matrix[rows]),
        })
    return out


def _icc(r: FamilyRatings) -> dict[str, Any] | None:
    """Shrout & Fleiss ICCs for interval/ratio families, on label positions.

    Each unit's ratings are packed into rating slots (first, second, ...) over the units
    with the most common number of ratings: columns are slots, not people, so only the
    one-way ICC(1,.) is valid (a unit's raters come from a larger pool); the two-way forms
    are reported for completeness.
    """
    per_unit = (~np.isnan(r.matrix)).sum(axis=1)
    if per_unit.size == 0:
        return None
    m = int(np.bincount(per_unit).argmax())
    rows = r.matrix[per_unit == m]
    packed = np.array([row[~np.isnan(row)] for row in rows]).reshape(len(rows), m)
    forms = icc(packed)
    if forms is None:
        return None
    return {
        "forms": {name: {"value": res.value, "ci95": None if res.ci95 is None else list(res.ci95)}
                  for name, res in forms.items()},
        "units": len(rows),
        "ratings_per_unit": m,
        "valid_form": "ICC(1,1) and ICC(1,k): each unit's raters come from a larger pool",
    }


def family_stats(
    r: FamilyRatings,
    cases: tuple[CaseBasis, ...],
    names: list[str],
    states: Mapping[str, str],
    weeks: Mapping[str, str],
    options: ReportOptions,
) -> dict[str, Any]:
    """The report section of one family (JSON-able; None stands for n/a).

    ``cases`` are the contributing cases (for family details such as exam order),
    ``names`` the report labels of the matrix columns ("Annotator 1", ...), ``states``
    maps case id to case state, ``weeks`` case id to the ISO week it entered review.
    """
    f, m = r.family, r.matrix
    rated = ~np.isnan(m)
    per_unit = rated.sum(axis=1)
    counts = [int((m == code).sum()) for code in range(len(f.labels))]
    total = sum(counts)
    pairs, pooled = _pairs(r, names, options)
    disagreements = _disagreements(f.labels, pooled)
    section: dict[str, Any] = {
        "id": f.id,
        "title": f.title,
        "level": f.level,
        "labels": list(f.labels),
        "unit": f.unit,
        "pair_word": f.pair_word,
        "kappa_weights": f.kappa(options).weights,
        "kappa_definition": f.kappa(options).definition(),
        "gwet_ac2_weights": (f.kappa(options).weights or "quadratic")
        if f.level == "ordinal" else None,
        "orientations": "each exam pair counted in both orientations (a | b and b | a)"
        if f.mirror is not None else None,
        "n_units": r.n_units,
        "n_rating_pairs": int((per_unit * (per_unit - 1) // 2).sum()),
        "mean_rating_pairs_per_unit": (
            float((per_unit * (per_unit - 1) / 2).mean()) if per_unit.size else None),
        "raters_per_unit": {str(n): int((per_unit == n).sum()) for n in np.unique(per_unit)},
        "prevalence": {lab: (c / total if total else None) for lab, c in zip(f.labels, counts,
                                                                              strict=True)},
        "label_counts": dict(zip(f.labels, counts, strict=True)),
        "coefficients": _coefficients(r, options),
        "pairs": pairs,
        "confusion": {"labels": list(f.labels), "matrix": pooled.astype(int).tolist()},
        "disagreements": disagreements,
        "most_common_disagreement": (
            " vs ".join(disagreements[0]["labels"]) if disagreements else None),
        "annotator_label_counts": {
            names[col]: {lab: int((m[:, col] == code).sum()) for code, lab in enumerate(f.labels)}
            for col in range(m.shape[1]) if rated[:, col].any()
        },
        "over_time": _over_time(r, weeks),
        **_cases(r, states, options),
    }
    n_cases = section["n_cases"]
    # No "coverage below nominal" flag: every coefficient's minimum is at least 30 cases, and
    # the exam-order intervals printed from 20 met the coverage target there (statistics.md).
    section["bootstrap"] = {"n_cases": n_cases}
    if f.level in ("interval", "ratio"):
        section["icc"] = _icc(r)
    if f.details is not None:
        details = f.details(cases, r.annotators, options)
        section["details"] = details
        # A family-specific classification (e.g. adjacent-rank swaps) is the headline.
        section["most_common_disagreement"] = details.get(
            "most_common_disagreement", section["most_common_disagreement"])
    return section
