"""Label families: which units each family rates and how a label map gives a unit's label.

A family turns a contributing case into items (an exam, an exam pair, the case, a rubric
part), each with one label per annotator (None = not rated). :func:`family_ratings` maps the
labels to codes over the family's FULL label set and builds the units x annotators matrix
the statistics of :mod:`annotator.agreement` take; only units rated by at least two
annotators count. Families are pluggable: :func:`register_family` adds one (SME verdicts
later) and the report computes every registered family.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from itertools import combinations
from typing import Any

import numpy as np

from annotator.agreement._matrix import FloatArray
from annotator.agreement.kappa import Weights
from annotator.agreement.kappa_choice import KappaChoice
from annotator.agreement.options import ReportOptions
from annotator.agreement.order_stats import order_details, order_stages
from annotator.agreement.project_data import CaseBasis
from annotator.agreement.sufficient import Level
from annotator.domain.labels import DIFFICULTY, IMPORTANCE, RARITY, RUBRIC_PARTS
from annotator.domain.order import relation

# item -> {annotator key: label or None}
Extractor = Callable[[CaseBasis], list[tuple[str, dict[str, str | None]]]]


# Extra figures of one family (exam order adds strict pairs, tau-b, disagreement types).
Details = Callable[[tuple[CaseBasis, ...], list[str], ReportOptions], dict[str, Any]]


@dataclass(frozen=True)
class Family:
    """One label family; ``labels`` is the full label set, in order for ordinal levels."""

    id: str
    title: str
    level: Level
    labels: tuple[str, ...]
    unit: str  # what one unit is: "exam", "exam pair", "case", "rubric part"
    pair_word: str  # how Table 8 names the rating pairs: "step pairs", "exam pairs", ...
    extract: Extractor
    counts_for_cases: bool = True  # False for views derived from another family
    details: Details | None = None
    # Codes of the same unit read the other way round (exam pair b | a): coefficients count
    # both orientations, so they do not depend on which exam of a pair is listed first.
    mirror: tuple[int, ...] | None = None

    @property
    def kappa_weights(self) -> Weights:
        """Linear weights for ordinal families (the default choice), none otherwise."""
        return "linear" if self.level == "ordinal" else None

    def kappa(self, options: ReportOptions) -> KappaChoice:
        """The report's kappa choice for this family: weighted only for ordinal labels."""
        level = "ordinal" if self.level == "ordinal" else "nominal"
        return replace(options.kappa, min_shared=options.min_shared).for_level(level)


@dataclass(frozen=True)
class FamilyRatings:
    """A family's units x annotators codes (nan = not rated) and what each unit is."""

    family: Family
    matrix: FloatArray
    case_ids: list[str]
    items: list[str]
    annotators: list[str]

    @property
    def n_units(self) -> int:
        return int(self.matrix.shape[0])

    @property
    def orientations(self) -> int:
        """How many times :meth:`symmetric` counts each unit (2 for mirrored families)."""
        return 1 if self.family.mirror is None else 2

    def symmetric(self) -> tuple[FloatArray, list[str]]:
        """The matrix the coefficients use, with its case ids: each unit in both
        orientations for a mirrored family (a unit's two rows stay in its case)."""
        if self.family.mirror is None:
            return self.matrix, self.case_ids
        table = np.asarray(self.family.mirror, dtype=np.float64)
        flipped = np.full_like(self.matrix, np.nan)
        rated = ~np.isnan(self.matrix)
        flipped[rated] = table[self.matrix[rated].astype(np.int64)]
        return np.vstack([self.matrix, flipped]), self.case_ids + self.case_ids


def _value(entry: Any) -> Any:
    return entry.get("value") if isinstance(entry, Mapping) and "how" in entry else None


def _labels_of(case: CaseBasis, key: str, read: Callable[[Any], str | None]) -> dict[
    str, str | None
]:
    """Each annotator's label for one label key (None = not rated)."""
    return {annotator: read(labels.get(key)) for annotator, labels in case.labels.items()}


def _importance(case: CaseBasis) -> list[tuple[str, dict[str, str | None]]]:
    return [(fig, _labels_of(case, f"importance:{fig}", _value)) for fig in case.used_figures]


def _essential(case: CaseBasis) -> list[tuple[str, dict[str, str | None]]]:
    # The scoring core's view: only "essential" counts, every other label is optional.
    out = []
    for item, values in _importance(case):
        mapped = {
            k: None if v is None else ("essential" if v == "essential" else "not essential")
            for k, v in values.items()
        }
        out.append((item, mapped))
    return out


def _order(case: CaseBasis) -> list[tuple[str, dict[str, str | None]]]:
    stages = order_stages(case)
    out = []
    for a, b in combinations(case.used_figures, 2):
        values: dict[str, str | None] = {}
        for key, board in stages.items():
            sa, sb = board[a], board[b]
            values[key] = None if sa is None or sb is None else relation(sa, sb)
        out.append((f"{a} | {b}", values))
    return out


def _case_label(family: str) -> Extractor:
    def extract(case: CaseBasis) -> list[tuple[str, dict[str, str | None]]]:
        return [("", _labels_of(case, family, _value))]

    return extract


def _discard(case: CaseBasis) -> list[tuple[str, dict[str, str | None]]]:
    return [("", {a: "discard" if "discard" in m else "keep" for a, m in case.labels.items()})]


def _flag(prefix: str, yes: str, no: str, items: Callable[[CaseBasis], list[str]]) -> Extractor:
    def read(entry: Any) -> str | None:
        return None if not isinstance(entry, bool) else (yes if entry else no)

    def extract(case: CaseBasis) -> list[tuple[str, dict[str, str | None]]]:
        return [(item, _labels_of(case, f"{prefix}:{item}", read)) for item in items(case)]

    return extract


BUILT_IN = (
    Family("importance", "Step importance", "ordinal", IMPORTANCE, "exam", "step pairs",
           _importance),
    Family("importance_essential", "Importance: essential vs not", "nominal",
           ("essential", "not essential"), "exam", "step pairs", _essential,
           counts_for_cases=False),
    Family("order", "Exam order", "nominal", ("<", "=", ">"), "exam pair", "exam pairs", _order,
           details=order_details, mirror=(2, 1, 0)),
    Family("difficulty", "Difficulty", "ordinal", DIFFICULTY, "case", "case pairs",
           _case_label("difficulty")),
    Family("rarity", "Rarity", "ordinal", RARITY, "case", "case pairs", _case_label("rarity")),
    Family("discard", "Discard", "nominal", ("keep", "discard"), "case", "case pairs", _discard),
    Family("meta_ok", "Metadata correct", "nominal", ("correct", "not correct"), "exam",
           "exam pairs", _flag("meta_ok", "correct", "not correct", lambda c: c.used_figures)),
    Family("rubric_ok", "Rubric OK", "nominal", ("OK", "not OK"), "rubric part", "part pairs",
           _flag("rubric_ok", "OK", "not OK", lambda c: list(RUBRIC_PARTS))),
)
_REGISTRY: dict[str, Family] = {f.id: f for f in BUILT_IN}


def register_family(family: Family) -> None:
    """Add (or replace) a family; reports computed afterwards include it."""
    _REGISTRY[family.id] = family


def families() -> list[Family]:
    """Every registered family, built-in ones first, in registration order."""
    return list(_REGISTRY.values())


def family_ratings(family: Family, cases: tuple[CaseBasis, ...], annotators: list[str]) -> (
    FamilyRatings
):
    """The family's ratings over ``cases``; columns follow ``annotators``.

    Units rated by fewer than two annotators are left out (nothing to agree on); a label
    outside the family's label set raises ValueError naming the case and item.
    """
    column = {key: i for i, key in enumerate(annotators)}
    code = {label: float(i) for i, label in enumerate(family.labels)}
    rows: list[list[float]] = []
    case_ids: list[str] = []
    items: list[str] = []
    for case in cases:
        for item, values in family.extract(case):
            row = [np.nan] * len(annotators)
            for key, label in values.items():
                if label is None:
                    continue
                if label not in code:
                    raise ValueError(
                        f"{family.id}: case {case.case_id} {item}: label {label!r} is not one "
                        f"of {', '.join(family.labels)}"
                    )
                row[column[key]] = code[label]
            if sum(v == v for v in row) >= 2:
                rows.append(row)
                case_ids.append(case.case_id)
                items.append(item)
    matrix = np.array(rows, dtype=np.float64).reshape(len(rows), len(annotators))
    return FamilyRatings(family, matrix, case_ids, items, list(annotators))
