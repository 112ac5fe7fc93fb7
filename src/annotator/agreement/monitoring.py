"""Monitoring: each annotator's progress and label distribution, and the figures per week.

A shift in one annotator's label distribution (say, fewer "essential" from one week on)
shows long before it moves a kappa, so the distribution is reported per annotator and per
ISO week of submission. A case belongs to the week it entered review: the week of its last
submitted annotation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import numpy as np

from annotator.agreement.families import FamilyRatings
from annotator.agreement.project_data import ProjectBasis


def iso_week(moment: datetime | None) -> str:
    """``2025-W07`` for a time, ``""`` when unknown."""
    if moment is None:
        return ""
    year, week, _ = moment.isocalendar()
    return f"{year}-W{week:02d}"


def case_weeks(basis: ProjectBasis) -> dict[str, str]:
    """Case id -> ISO week in which the case entered review."""
    return {case.case_id: iso_week(case.entered_review) for case in basis.cases}


def _submission_weeks(basis: ProjectBasis) -> dict[tuple[str, str], str]:
    return {
        (case.case_id, key): iso_week(moment)
        for case in basis.cases
        for key, moment in case.submitted_at.items()
    }


def _weekly_counts(
    ratings: FamilyRatings, column: int, weeks: Mapping[tuple[str, str], str]
) -> dict[str, dict[str, int]]:
    key = ratings.annotators[column]
    out: dict[str, dict[str, int]] = {}
    for case_id, code in zip(ratings.case_ids, ratings.matrix[:, column], strict=True):
        if np.isnan(code):
            continue
        week = weeks.get((case_id, key), "")
        counts = out.setdefault(week, dict.fromkeys(ratings.family.labels, 0))
        counts[ratings.family.labels[int(code)]] += 1
    return out


def annotator_sections(
    basis: ProjectBasis, names: Sequence[str], ratings: Sequence[FamilyRatings]
) -> list[dict[str, Any]]:
    """Per annotator (in column order): progress, label distribution overall and per week."""
    keys = basis.annotator_keys
    progress = {a.key: a for a in basis.annotators}
    weeks = _submission_weeks(basis)
    out = []
    for column, key in enumerate(keys):
        info = progress.get(key)
        in_basis = [c for c in basis.cases if key in c.labels]
        by_week: dict[str, dict[str, Any]] = {}
        for case in in_basis:
            week = weeks.get((case.case_id, key), "")
            by_week.setdefault(week, {"week": week, "submitted": 0, "labels": {}})
            by_week[week]["submitted"] += 1
        distribution: dict[str, dict[str, float | None]] = {}
        for r in ratings:
            codes = r.matrix[:, column]
            codes = codes[~np.isnan(codes)]
            labels = r.family.labels
            distribution[r.family.id] = {
                lab: (float((codes == i).sum() / codes.size) if codes.size else None)
                for i, lab in enumerate(labels)
            }
            for week, counts in _weekly_counts(r, column, weeks).items():
                entry = by_week.setdefault(week, {"week": week, "submitted": 0, "labels": {}})
                entry["labels"][r.family.id] = counts
        assigned = info.assigned if info else len(in_basis)
        submitted = info.submitted if info else len(in_basis)
        out.append({
            "label": names[column],
            "name": info.name if info else "",
            "assigned": assigned,
            "submitted": submitted,
            "open": max(assigned - submitted, 0),
            "in_basis": len(in_basis),
            "label_distribution": distribution,
            "by_week": [by_week[w] for w in sorted(by_week)],
        })
    return out


def timeline(families: Sequence[Mapping[str, Any]], weeks: Mapping[str, str]) -> list[
    dict[str, Any]
]:
    """Per ISO week: cases that entered review and each family's exact agreement."""
    cases_per_week: dict[str, int] = {}
    for week in weeks.values():
        if week:
            cases_per_week[week] = cases_per_week.get(week, 0) + 1
    rows = []
    for week in sorted(cases_per_week):
        agreement = {}
        for fam in families:
            point = next((p for p in fam["over_time"] if p["week"] == week), None)
            agreement[fam["id"]] = None if point is None else point["percent_agreement"]
        rows.append({"week": week, "n_cases": cases_per_week[week],
                     "percent_agreement": agreement})
    return rows
