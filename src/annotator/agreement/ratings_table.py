"""Read a ratings table (CSV) and report its agreement statistics (``annotator stats``).

The table's first column is the unit id, each further column one rater; an empty cell is a
missing rating. Labels may be strings. For nominal and ordinal levels the labels become
codes ``0..k-1`` over the label set: ``order`` when given (it is also the full label set),
else the labels seen, numerically sorted when all are numbers; string labels are sorted
only at nominal level (ordinal string labels need ``order``: an alphabetical order would be
invented).
Interval and ratio levels need numbers and use them as they are.
"""

from __future__ import annotations

import csv
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from annotator.agreement._matrix import FloatArray
from annotator.agreement.bootstrap import MIN_CASES, STATED_MIN_CASES
from annotator.agreement.coefficients import unanimity
from annotator.agreement.icc import icc
from annotator.agreement.kappa import Weights, mean_pairwise_cohen_kappa
from annotator.agreement.kappa_choice import KappaChoice
from annotator.agreement.measure import Measure, Ratings
from annotator.agreement.sufficient import LEVELS, Level
from annotator.errors import AnnotatorError


class RatingsTableError(AnnotatorError):
    """The ratings table cannot be read or does not fit the requested level."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


@dataclass(frozen=True)
class RatingsTable:
    """A parsed table: ``values`` is units x raters (codes, or numbers at interval/ratio)."""

    path: Path
    level: Level
    unit_ids: list[str]
    raters: list[str]
    labels: list[str]
    values: FloatArray
    category_values: list[float]


def _read_rows(path: Path) -> tuple[list[str], list[list[str]]]:
    try:
        with path.open(newline="", encoding="utf-8-sig") as handle:
            rows = [row for row in csv.reader(handle) if any(cell.strip() for cell in row)]
    except FileNotFoundError:
        raise RatingsTableError(path, "file not found") from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise RatingsTableError(path, f"cannot read the file as UTF-8 CSV ({exc})") from None
    if not rows:
        raise RatingsTableError(path, "the file is empty")
    header = [cell.strip() for cell in rows[0]]
    if len(header) < 2:
        raise RatingsTableError(path, "no rater columns: expected a unit id column then raters")
    if "" in header[1:]:
        raise RatingsTableError(path, f"rater column {header[1:].index('') + 2} has no name")
    if len(set(header[1:])) != len(header) - 1:
        raise RatingsTableError(path, "two rater columns have the same name")
    body = []
    seen: set[str] = set()
    for line, row in enumerate(rows[1:], start=2):
        cells = [cell.strip() for cell in row]
        if len(cells) != len(header):
            raise RatingsTableError(
                path, f"row {line} has {len(cells)} cells, the header has {len(header)}"
            )
        if not cells[0]:
            raise RatingsTableError(path, f"row {line} has no unit id")
        if cells[0] in seen:
            raise RatingsTableError(path, f"unit id {cells[0]!r} appears twice (row {line})")
        seen.add(cells[0])
        body.append(cells)
    return header, body


def _number(label: str) -> float | None:
    try:
        value = float(label)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def _label_set(
    path: Path, labels: set[str], order: list[str] | None, level: Level
) -> list[str]:
    if order is not None:
        if len(set(order)) != len(order) or "" in order:
            raise RatingsTableError(path, "--order lists a label twice or an empty label")
        unknown = sorted(labels - set(order))
        if unknown:
            raise RatingsTableError(path, f"label {unknown[0]!r} is not in --order")
        return list(order)
    numbers = {label: _number(label) for label in labels}
    if all(value is not None for value in numbers.values()):
        return sorted(labels, key=lambda label: (numbers[label], label))
    if level == "ordinal":
        # Sorting words alphabetically would invent an order (and change alpha silently).
        raise RatingsTableError(
            path, "ordinal labels that are not numbers need --order (e.g. --order low,mid,high)"
        )
    return sorted(labels)


def read_ratings_table(path: Path, level: str, order: list[str] | None = None) -> RatingsTable:
    """Parse ``path`` for ``level``; RatingsTableError on any problem with file or labels."""
    if level not in LEVELS:
        raise RatingsTableError(path, f"unknown level {level!r}; use {', '.join(LEVELS)}")
    checked: Level = level
    header, body = _read_rows(path)
    cells = [row[1:] for row in body]
    labels_seen = {cell for row in cells for cell in row if cell}
    values = np.full((len(body), len(header) - 1), np.nan)
    if checked in ("interval", "ratio"):
        if order is not None:
            raise RatingsTableError(path, "--order applies to nominal and ordinal levels only")
        for label in sorted(labels_seen):
            number = _number(label)
            if number is None:
                raise RatingsTableError(path, f"label {label!r} is not a number ({level} level)")
            if checked == "ratio" and number < 0:
                raise RatingsTableError(path, f"negative value {label} at ratio level")
        for i, row in enumerate(cells):
            for j, label in enumerate(row):
                if label:
                    values[i, j] = float(label)
        domain = sorted(set(values[~np.isnan(values)].tolist()))
        labels = [f"{value:g}" for value in domain]
        return RatingsTable(path, checked, [r[0] for r in body], header[1:], labels, values, domain)
    labels = _label_set(path, labels_seen, order, checked)
    code = {label: index for index, label in enumerate(labels)}
    for i, row in enumerate(cells):
        for j, label in enumerate(row):
            if label:
                values[i, j] = code[label]
    positions = [float(index) for index in range(len(labels))]
    return RatingsTable(path, checked, [r[0] for r in body], header[1:], labels, values, positions)


def _codes(table: RatingsTable) -> FloatArray:
    """Category codes 0..k-1 (interval/ratio: the position of each value among those seen)."""
    if table.level in ("nominal", "ordinal"):
        return table.values
    present = ~np.isnan(table.values)
    codes = np.full_like(table.values, np.nan)
    codes[present] = np.searchsorted(np.asarray(table.category_values), table.values[present])
    return codes


def _measures(table: RatingsTable, choice: KappaChoice) -> dict[str, Measure]:
    """Every coefficient ``stats`` prints, with its CI, defined once (see :mod:`.measure`)."""
    k = len(table.labels)
    categorical = table.level in ("nominal", "ordinal")
    positions = None if categorical else table.category_values
    measures = {
        "percent_agreement": Measure("percent_agreement"),
        # Interval and ratio alphas read the values themselves: their distances are the point.
        "krippendorff_alpha": Measure("krippendorff_alpha", "codes" if categorical else "values",
                                      n_categories=k if categorical else None,
                                      level=table.level),
        "fleiss_kappa": Measure("fleiss_kappa", n_categories=k),
        "gwet_ac1": Measure("gwet_ac1", n_categories=k),
        "pabak": Measure("pabak", n_categories=k),
        "kappa": choice.measure(k, positions),
    }
    if table.level != "nominal":
        measures["quadratic_weighted_kappa"] = KappaChoice("quadratic", "pairs").measure(
            k, positions)
        measures["gwet_ac2"] = Measure("gwet_ac2", n_categories=k,
                                       weights=choice.weights or "quadratic")
    return measures


def _ratings(table: RatingsTable) -> Ratings:
    """Codes and values of the table, each unit its own case."""
    values = None if table.level in ("nominal", "ordinal") else table.values
    return Ratings(_codes(table), list(range(len(table.unit_ids))), values)


def _kappa_figures(
    table: RatingsTable, measures: dict[str, Measure], choice: KappaChoice, notes: list[str]
) -> dict[str, Any]:
    """The headline kappa (as chosen), quadratic-weighted kappa and Gwet's AC2."""
    k = len(table.labels)
    ratings = _ratings(table)
    ordered = table.level != "nominal"

    def value(name: str) -> float | None:
        return measures[name].estimate(ratings) if k and name in measures else None

    if not ordered:
        notes.append("quadratic_weighted_kappa and gwet_ac2 are null: nominal labels have no "
                     "distances")
    elif table.level not in ("nominal", "ordinal"):
        notes.append("gwet_ac2 weights the distances between category positions (ranks of the "
                     "distinct values), not the values")
    return {
        "kappa": {"value": value("kappa"),
                  "definition": choice.definition(), "weights": choice.weights_word,
                  "pooling": choice.pooling},
        "quadratic_weighted_kappa": value("quadratic_weighted_kappa"),
        "gwet_ac2": value("gwet_ac2"),
        "gwet_ac2_weights": (choice.weights or "quadratic") if ordered else None,
    }


def _stats_cis(
    table: RatingsTable, measures: dict[str, Measure]
) -> tuple[dict[str, list[float] | None], dict[str, Any]]:
    """Bootstrap CIs over units (each unit its own case), each of its own point estimate."""
    k = len(table.labels)
    ratings = _ratings(table)
    cis: dict[str, list[float] | None] = {}
    dropped: dict[str, int] = {}
    for name, measure in measures.items():
        ci = measure.interval(ratings) if k else None
        cis[name] = None if ci is None else list(ci.interval)
        dropped[name] = 0 if ci is None else ci.dropped
    info = {"method": "BCa bootstrap over units", "n_resamples": 1000, "seed": 0,
            "min_units": MIN_CASES, "min_units_by_coefficient": dict(STATED_MIN_CASES),
            "dropped_resamples": dropped}
    return cis, info


def stats_report(
    csv_path: Path, level: str, order: list[str] | None = None,
    kappa: KappaChoice | None = None,
) -> dict[str, Any]:
    """The JSON-ready report of ``annotator stats`` (no NaN: undefined figures are None).

    Keys: file, level, units, raters, rater_names, labels, ratings, pairable_units,
    rater_pairs, percent_agreement, unanimity, krippendorff_alpha, fleiss_kappa,
    mean_pairwise_cohen_kappa, cohen_kappa_weights, gwet_ac1, pabak, kappa (the chosen
    definition: value, definition, weights, pooling), quadratic_weighted_kappa, gwet_ac2,
    gwet_ac2_weights, ci95 (per coefficient), bootstrap, notes, and for interval/ratio icc
    (six forms, each ``{"value", "ci95"}``) and icc_units.
    """
    table = read_ratings_table(Path(csv_path), level, order)
    codes, k = _codes(table), len(table.labels)
    per_unit = (~np.isnan(table.values)).sum(axis=1)
    categorical = table.level in ("nominal", "ordinal")
    weights: Weights = None if table.level == "nominal" else "linear"
    choice = (kappa or KappaChoice(weights)).for_level(table.level)  # nominal: unweighted
    notes = [
        "percent_agreement and pabak pool rating pairs over units (a unit with three ratings "
        "weighs three pairs); gwet_ac1, gwet_ac2 and fleiss_kappa average the agreement per "
        "unit over units with at least two ratings"
    ]
    if len(set(per_unit[per_unit > 0].tolist())) > 1:
        notes.append("fleiss_kappa is Gwet's generalisation: the number of raters per unit "
                     "varies")
    measures = _measures(table, choice)
    ratings = _ratings(table)
    alpha = measures["krippendorff_alpha"].estimate(ratings)
    if alpha is None:
        notes.append(
            "krippendorff_alpha is null: fewer than two distinct values among units "
            "with two or more ratings"
        )
    if table.level == "ordinal":
        notes.append("mean_pairwise_cohen_kappa uses linear weights over the label order")
    if not categorical:
        notes.append(
            "mean_pairwise_cohen_kappa uses linear weights on the distances between the "
            "values; fleiss_kappa, gwet_ac1, pabak and percent_agreement treat each "
            "distinct value as a category"
        )
    elif table.level == "ordinal":
        notes.append("fleiss_kappa, gwet_ac1 and pabak treat the labels as unordered")
    report: dict[str, Any] = {
        "file": str(table.path),
        "level": table.level,
        "units": len(table.unit_ids),
        "raters": len(table.raters),
        "rater_names": table.raters,
        "labels": table.labels,
        "ratings": int(per_unit.sum()),
        "pairable_units": int((per_unit >= 2).sum()),
        "rater_pairs": int((per_unit * (per_unit - 1) // 2).sum()),
        "percent_agreement": measures["percent_agreement"].estimate(ratings),
        "unanimity": unanimity(codes),
        "krippendorff_alpha": alpha,
        "fleiss_kappa": measures["fleiss_kappa"].estimate(ratings) if k else None,
        "mean_pairwise_cohen_kappa": mean_pairwise_cohen_kappa(
            codes, k, weights, values=None if categorical else table.category_values
        )
        if k
        else None,
        "cohen_kappa_weights": "none" if weights is None else weights,
        "gwet_ac1": measures["gwet_ac1"].estimate(ratings) if k else None,
        "pabak": measures["pabak"].estimate(ratings) if k else None,
        **_kappa_figures(table, measures, choice, notes),
    }
    report["ci95"], report["bootstrap"] = _stats_cis(table, measures)
    if not categorical:
        report.update(_icc_figures(table.values, notes))
    report["notes"] = notes
    return report


def _icc_figures(values: FloatArray, notes: list[str]) -> dict[str, Any]:
    complete = int((~np.isnan(values).any(axis=1)).sum())
    forms = icc(values)
    notes.append(
        f"icc uses the {complete} units rated by every rater; ICC(1,.) is the valid form "
        "when each unit's raters come from a larger pool"
    )
    if forms is None:
        notes.append("icc is null: fewer than two complete units or fewer than two raters")
        return {"icc": None, "icc_units": complete}
    return {
        "icc": {
            name: {"value": r.value, "ci95": None if r.ci95 is None else list(r.ci95)}
            for name, r in forms.items()
        },
        "icc_units": complete,
    }
