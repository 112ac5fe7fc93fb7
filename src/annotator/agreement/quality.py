"""A rater's quality, measured on their own ratings (issue 26): pure figures, no storage.

Every figure reads :class:`Rating` rows (one rater's submitted values on one item of one kind)
and is per rater and *family* (the key before ``:`` of a label map, ``importance:Figure 2`` ->
``importance``; a whole key for SME fields and judge sheet keys):

- **intra-rater reliability**: the rater's first rating against their hidden repeat of the same
  item, with the coefficients of inter-rater agreement (:class:`~annotator.agreement.measure.
  Measure`: percent agreement and Krippendorff's alpha, nominal for categories and interval for
  scores) and their case-bootstrap intervals; pairwise order agreement for rankings;
- **agreement with a reference** (calibration and gold items): exact agreement with a Wilson
  interval and Cohen's kappa against the reference for categories, mean absolute difference
  with a BCa interval for scores, pairwise order agreement (ties a relation of their own) for
  rankings;
- **time on task**: the median active seconds per rater and kind, and the items done in less
  than :data:`FAST_FRACTION` of the rater's own median (shown to curators only);
- **drift**: how far the rater's label distribution in the later half of their ratings moved
  from the earlier half (total variation distance, with a chi-square test).
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from statistics import median
from typing import Any

import numpy as np
from scipy.stats import chi2_contingency

from annotator.agreement.bootstrap import MIN_CASES
from annotator.agreement.intervals import Interval, bca_interval, wilson_interval
from annotator.agreement.measure import Measure, Ratings
from annotator.agreement.order import relation_agreement

# Families whose keys rank the items of one rated thing (a case's exam order: ``stage:<fig>``).
RANKING_FAMILIES = frozenset({"stage"})
# Keys and families that are not ratings: measurements about the work and free text.
NOT_RATED = frozenset({
    "active_seconds", "comment", "exam_comment", "red_flag", "discard",  # a case's labels
    "rationale", "failure_reason",  # an SME's free text
})
FAST_FRACTION = 0.25  # an item faster than a quarter of the rater's own median is flagged
MIN_TIMED = 5  # timed items a rater needs before anything is flagged
MIN_DRIFT = 10  # ratings of a family a rater needs before drift is measured
# Items before the chance-corrected coefficient gets an interval (docs/statistics.md,
# coverage, "quality" rows; one rated key per item). Cohen's kappa against a reference
# covered 0.81 at 20 items and 0.91 at 30 at high agreement (true kappa 0.9), 0.944 at 100.
MIN_REFERENCE_KAPPA = 100
# Interval alpha of scores (first vs repeat, or against a reference) covered 0.922 at 100
# items and 0.914 at 200 at high agreement (true alpha 0.9): None, no interval at any n.
MIN_SCORE_ALPHA: int | None = None


@dataclass(frozen=True)
class Rating:
    """One rater's submitted values on one item of one kind."""

    kind: str
    item: str
    rater: str
    values: dict[str, Any]
    at: datetime | None = None
    seconds: float | None = None


@dataclass(frozen=True)
class Figure:
    """One figure with its interval (None below the figure's minimum n) and n."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int = 0

    def as_json(self) -> dict[str, Any]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}


def _figure(value: float | None, ci: Interval | tuple[float, float] | None, n: int) -> Figure:
    if ci is None:
        return Figure(value, None, None, n)
    low, high = ci.bounds if isinstance(ci, Interval) else ci
    return Figure(value, float(low), float(high), n)


def family_of(key: str) -> str:
    """A label map's family (``importance:Figure 2`` -> ``importance``); a judge sheet's
    per-diagnosis keys by what they score (``trajectory/<dx>/label`` -> ``trajectory/label``);
    any other key is its own family."""
    if ":" in key:
        return key.split(":", 1)[0]
    parts = key.split("/")
    return f"{parts[0]}/{parts[-1]}" if len(parts) > 2 else key


def plain(value: Any) -> Any:
    """A stored value without how it was set (``{"value": v, "how": ...}`` -> ``v``)."""
    if isinstance(value, dict) and "value" in value:
        return value["value"]
    return value


def is_score(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def by_family(values: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The rated keys of one rating grouped by family: family -> key -> plain value."""
    out: dict[str, dict[str, Any]] = defaultdict(dict)
    for key, value in values.items():
        if key in NOT_RATED or family_of(key) in NOT_RATED:
            continue
        v = plain(value)
        if v is None or isinstance(v, dict | list):
            continue
        out[family_of(key)][key] = v
    return dict(out)


# --- paired comparison: (first, repeat) or (rater, reference) ------------------------------


@dataclass(frozen=True)
class Pair:
    """Two ratings of one item to compare (first and repeat, or rater and reference)."""

    item: str
    left: dict[str, Any]
    right: dict[str, Any]


@dataclass(frozen=True)
class Comparison:
    """How one rater's pairs agree in one family."""

    family: str
    scale: str  # "categories" | "scores" | "ranking"
    items: int
    agreement: Figure  # exact agreement / pairwise order agreement / mean absolute difference
    coefficient: str | None = None  # "krippendorff_alpha" | "cohen_kappa"
    chance_corrected: Figure | None = None

    def as_json(self) -> dict[str, Any]:
        return {
            "family": self.family, "scale": self.scale, "items": self.items,
            "agreement": self.agreement.as_json(), "coefficient": self.coefficient,
            "chance_corrected": None if self.chance_corrected is None
            else self.chance_corrected.as_json(),
        }


def _units(pairs: Sequence[Pair], family: str) -> list[tuple[str, Any, Any]]:
    """(item, left value, right value) of every key of ``family`` both sides rated."""
    units = []
    for pair in pairs:
        left = by_family(pair.left).get(family, {})
        right = by_family(pair.right).get(family, {})
        for key in sorted(left.keys() & right.keys()):
            units.append((pair.item, left[key], right[key]))
    return units


def _scale(units: list[tuple[str, Any, Any]], family: str) -> str:
    if family in RANKING_FAMILIES:
        return "ranking"
    if units and all(is_score(a) and is_score(b) for _i, a, b in units):
        return "scores"
    return "categories"


def ratings_of(units: list[tuple[str, Any, Any]]) -> tuple[Ratings, int]:
    """The units x 2 table of the pairs as category codes (and raw values for scores)."""
    categories = sorted({str(v) for _i, a, b in units for v in (a, b)})
    code = {c: n for n, c in enumerate(categories)}
    codes = np.array([[code[str(a)], code[str(b)]] for _i, a, b in units], dtype=float)
    values = None
    if all(is_score(a) and is_score(b) for _i, a, b in units):
        values = np.array([[float(a), float(b)] for _i, a, b in units])
    return Ratings(codes, [u[0] for u in units], values), len(categories)


def intra_measure(scale: str, n_categories: int) -> Measure:
    """The chance-corrected coefficient inter-rater agreement uses for the scale."""
    if scale == "scores":
        return Measure("krippendorff_alpha", reads="values", level="interval")
    return Measure("krippendorff_alpha", n_categories=n_categories, level="nominal")


def _ranking(pairs: Sequence[Pair], family: str) -> Comparison | None:
    per_item: list[float] = []
    for pair in pairs:
        left = by_family(pair.left).get(family, {})
        right = by_family(pair.right).get(family, {})
        keys = sorted(k for k in left.keys() & right.keys()
                      if is_score(left[k]) and is_score(right[k]))
        share = relation_agreement([float(left[k]) for k in keys],
                                   [float(right[k]) for k in keys])
        if share is not None:
            per_item.append(share)
    if not per_item:
        return None
    ci = bca_interval([per_item])
    return Comparison(family, "ranking", len(per_item),
                      _figure(float(np.mean(per_item)), ci, len(per_item)))


def compare(pairs: Sequence[Pair], family: str, *, against_reference: bool) -> Comparison | None:
    """Agreement of the pairs in one family (None when they share no rated key).

    ``against_reference``: the right side is a reference answer (kappa of the rater against
    it); else both sides are the rater (alpha, as between raters).
    """
    if family in RANKING_FAMILIES:
        return _ranking(pairs, family)
    units = _units(pairs, family)
    if not units:
        return None
    scale = _scale(units, family)
    items = len({u[0] for u in units})
    ratings, k = ratings_of(units)
    if scale == "scores":
        assert ratings.values is not None
        diffs = np.abs(ratings.values[:, 0] - ratings.values[:, 1])
        agreement = _figure(float(diffs.mean()), bca_interval([diffs]), len(diffs))
    else:
        same = int((ratings.codes[:, 0] == ratings.codes[:, 1]).sum())
        agreement = _figure(same / len(units), wilson_interval(same, len(units)), len(units))
    if against_reference and scale == "categories":
        measure = Measure("cohen_kappa", n_categories=max(k, 2))
        name = "cohen_kappa"
    else:
        measure = intra_measure(scale, max(k, 2))
        name = "krippendorff_alpha"
    estimate = measure.estimate(ratings)
    least = MIN_REFERENCE_KAPPA if name == "cohen_kappa" else (
        MIN_SCORE_ALPHA if scale == "scores" else MIN_CASES)  # nominal alpha: its own 100
    ci = None if least is None else measure.interval(ratings, min_cases=least)
    chance = _figure(estimate, None if ci is None else (ci.low, ci.high), len(units))
    return Comparison(family, scale, items, agreement, name, chance)


def compare_all(pairs: Sequence[Pair], *, against_reference: bool) -> list[Comparison]:
    """:func:`compare` for every family the pairs rate, by family name."""
    names = sorted({f for p in pairs for f in by_family(p.left)}
                   & {f for p in pairs for f in by_family(p.right)})
    found = (compare(pairs, name, against_reference=against_reference) for name in names)
    return [c for c in found if c is not None]


def headline(comparisons: Iterable[Comparison]) -> float | None:
    """One number per rater for ranking them: the mean exact (or order) agreement over the
    families on categories and rankings (scores' differences are not a share)."""
    shares = [c.agreement.value for c in comparisons
              if c.scale != "scores" and c.agreement.value is not None]
    return float(np.mean(shares)) if shares else None


# --- time on task -----------------------------------------------------------------------


@dataclass(frozen=True)
class TimeOnTask:
    rater: str
    kind: str
    timed: int
    median_seconds: float | None
    fast: list[str] = field(default_factory=list)  # items done much faster than the median

    def as_json(self) -> dict[str, Any]:
        return {"rater": self.rater, "kind": self.kind, "timed": self.timed,
                "median_seconds": self.median_seconds, "fast": list(self.fast)}


def time_on_task(ratings: Iterable[Rating]) -> list[TimeOnTask]:
    """Median active time per rater and kind; items under :data:`FAST_FRACTION` of it."""
    groups: dict[tuple[str, str], list[Rating]] = defaultdict(list)
    for r in ratings:
        if r.seconds is not None and r.seconds > 0:
            groups[(r.rater, r.kind)].append(r)
    out = []
    for (rater, kind), rows in sorted(groups.items()):
        mid = float(median(r.seconds for r in rows if r.seconds is not None))
        fast = [] if len(rows) < MIN_TIMED else sorted(
            r.item for r in rows if r.seconds is not None and r.seconds < FAST_FRACTION * mid)
        out.append(TimeOnTask(rater, kind, len(rows), mid, fast))
    return out


# --- drift --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Drift:
    rater: str
    family: str
    n: int
    distance: float  # total variation distance, earlier half vs later half (0..1)
    p_value: float | None

    def as_json(self) -> dict[str, Any]:
        return {"rater": self.rater, "family": self.family, "n": self.n,
                "distance": self.distance, "p_value": self.p_value}


def drift(ratings: Iterable[Rating]) -> list[Drift]:
    """Per rater and category family: the earlier half of their labels (by submission time)
    against the later half."""
    seq: dict[tuple[str, str], list[tuple[datetime, str]]] = defaultdict(list)
    for r in ratings:
        if r.at is None:
            continue
        for family, keys in by_family(r.values).items():
            if family in RANKING_FAMILIES:
                continue
            for value in keys.values():
                if not is_score(value):
                    seq[(r.rater, family)].append((r.at, str(value)))
    out = []
    for (rater, family), rows in sorted(seq.items()):
        if len(rows) < MIN_DRIFT:
            continue
        rows.sort()
        half = len(rows) // 2
        early, late = Counter(v for _t, v in rows[:half]), Counter(v for _t, v in rows[half:])
        labels = sorted(early.keys() | late.keys())
        n_early, n_late = sum(early.values()), sum(late.values())
        distance = 0.5 * sum(abs(early[v] / n_early - late[v] / n_late) for v in labels)
        p: float | None = None
        if len(labels) > 1:
            table = np.array([[early[v] for v in labels], [late[v] for v in labels]])
            p = float(chi2_contingency(table).pvalue)
        out.append(Drift(rater, family, len(rows), round(distance, 4),
                         None if p is None or math.isnan(p) else p))
    return out


def category_codes(
    ratings: Sequence[Rating], family: str
) -> tuple[list[tuple[str, str]], list[str], list[str], np.ndarray]:
    """Units x raters codes of a category family (nan where unrated) for latent-class
    estimates: the units (item, key), the raters, the categories and the matrix."""
    cells: dict[tuple[str, str], dict[str, str]] = defaultdict(dict)
    for r in ratings:
        for key, value in by_family(r.values).get(family, {}).items():
            if not is_score(value):
                cells[(r.item, key)][r.rater] = str(value)
    units = sorted(cells)
    raters = sorted({rater for cell in cells.values() for rater in cell})
    categories = sorted({v for cell in cells.values() for v in cell.values()})
    code = {c: n for n, c in enumerate(categories)}
    matrix = np.full((len(units), len(raters)), np.nan)
    for u, unit in enumerate(units):
        for j, rater in enumerate(raters):
            if rater in cells[unit]:
                matrix[u, j] = code[cells[unit][rater]]
    return units, raters, categories, matrix


__all__ = [
    "Comparison", "Drift", "Figure", "Pair", "Rating", "TimeOnTask",
    "compare", "compare_all", "drift", "headline", "time_on_task",
]
