"""Per-case sufficient statistics, their sums, and the point estimates read from the sums.

Every coefficient of the report's Table 8 is a function of column sums over units
(:mod:`annotator.agreement.sufficient`; Cohen's kappas of confusion tables per annotator
pair, :mod:`annotator.agreement.kappa`). :func:`case_stats` gives one contributing case's
sums per family as plain JSON (lists of floats, pair tables keyed by the two annotators'
keys), :func:`add_stats` adds or subtracts them, and :func:`estimates` computes every
coefficient's point estimate from the project's sums with the same ``*_from_sums``
functions the full report uses. So after one more submission the point estimates need the
stored sums and one recomputed case, not every rating of the project (issue 27); the
intervals (a bootstrap over cases) are left to the full report.

The statistics do not depend on the report options: the Gwet sums are kept for every
agreement weighting (none, linear, quadratic) and the pair tables unweighted, so one
stored row serves any kappa choice.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from itertools import chain, combinations
from typing import Any

import numpy as np

from annotator.agreement._matrix import category_counts
from annotator.agreement.families import Family, families, family_ratings
from annotator.agreement.family_stats import COEFFICIENTS
from annotator.agreement.kappa import Weights, confusion_matrix, mean_kappa_batch
from annotator.agreement.options import ReportOptions
from annotator.agreement.order_stats import order_relation_row
from annotator.agreement.project_data import CaseBasis
from annotator.agreement.sufficient import (
    _ratio,
    agreement_weights,
    alpha_from_coincidences,
    coincidence_matrix,
    fleiss_from_sums,
    gwet_from_sums,
    gwet_stats,
    pair_stats,
    unanimity_stats,
)

Stats = dict[str, Any]  # family id -> {"pa", "un", "g:<weights>", "co", "pairs", "units"}
WEIGHTINGS: tuple[Weights, ...] = (None, "linear", "quadratic")
PAIR_SEPARATOR = "\x1f"


def _weights_key(weights: Weights) -> str:
    return f"g:{weights or 'none'}"


def family_case_stats(family: Family, case: CaseBasis) -> dict[str, Any]:
    """One case's sums for one family (units of the symmetric matrix, as the report counts)."""
    keys = sorted(case.labels)
    r = family_ratings(family, (case,), keys)
    m, _ids = r.symmetric()
    k = len(family.labels)
    _domain, counts = category_counts(m, k)
    out: dict[str, Any] = {
        "units": int(m.shape[0]),
        "pa": pair_stats(counts).sum(axis=0).tolist(),
        "un": unanimity_stats(counts).sum(axis=0).tolist(),
        "co": coincidence_matrix(counts).ravel().tolist(),
    }
    for weights in WEIGHTINGS:
        w = agreement_weights(k, weights)
        out[_weights_key(weights)] = gwet_stats(counts, w).sum(axis=0).tolist()
    pairs: dict[str, list[float]] = {}
    for i, j in combinations(range(len(keys)), 2):
        table = confusion_matrix(m[:, i], m[:, j], k)
        if table.sum() > 0:
            pairs[keys[i] + PAIR_SEPARATOR + keys[j]] = table.ravel().tolist()
    out["pairs"] = pairs
    if family.id == "order":  # strict-pair agreement, the family's headline figure
        out["relations"] = [float(v) for v in order_relation_row(case)]
    return out


def case_stats(case: CaseBasis, family_list: Sequence[Family] | None = None) -> Stats:
    """Every family's sums of one contributing case."""
    chosen = list(family_list) if family_list is not None else families()
    return {f.id: family_case_stats(f, case) for f in chosen}


def _add_list(total: list[float] | None, part: Sequence[float], sign: int) -> list[float]:
    if total is None:
        return [sign * v for v in part]
    return [a + sign * b for a, b in zip(total, part, strict=True)]


def add_stats(total: Stats, part: Mapping[str, Any], sign: int = 1) -> Stats:
    """``total + sign * part`` family by family (a new dict; ``total`` is left as it was).

    Pair tables are counts (exact in floating point): a pair whose table sums to zero is
    dropped, so a subtracted case leaves no trace of its pairs.
    """
    out: Stats = {}
    for fid in set(total) | set(part):
        have, add = total.get(fid), part.get(fid)
        if add is None:
            out[fid] = have
            continue
        mine: dict[str, Any] = dict(have or {})
        for name, value in add.items():
            if name == "pairs":
                tables = dict(mine.get("pairs") or {})
                for pair, table in value.items():
                    summed = _add_list(tables.get(pair), table, sign)
                    if any(summed):
                        tables[pair] = summed
                    else:
                        tables.pop(pair, None)
                mine["pairs"] = tables
            elif name == "units":
                mine["units"] = int(mine.get("units", 0)) + sign * int(value)
            else:
                mine[name] = _add_list(mine.get(name), value, sign)
        out[fid] = mine
    return out


def _pair_tables(pairs: Mapping[str, Sequence[float]], k: int) -> np.ndarray:
    """The pairs' k x k tables, in the order of the report's columns (pairs of sorted
    annotator keys), as one array: built once per family, for every kappa of it."""
    # The separator sorts below every character of a key, so the joined keys sort as the
    # (first, second) tuples do; the tables are read straight into one flat array (300
    # pairs of 8 families at the bench's 100,000 cases: most of the estimates' time).
    ordered = sorted(pairs)
    flat = np.fromiter(chain.from_iterable(map(pairs.__getitem__, ordered)), dtype=np.float64,
                       count=len(ordered) * k * k)
    return flat.reshape(-1, k, k)


def _mean_pair_kappa(
    tables: np.ndarray, k: int, weights: Weights, min_shared: int
) -> float | None:
    """Mean of the defined Cohen's kappas of the pairs sharing ``min_shared`` units, in one
    vectorised pass (:func:`~annotator.agreement.kappa.mean_kappa_batch`), as a project
    has many pairs."""
    if not len(tables) or k < 2:
        return None
    tables = tables[tables.sum(axis=(1, 2)) >= max(min_shared, 1)]
    if not len(tables):
        return None
    mean = float(mean_kappa_batch(tables[None], weights)[0])
    return None if np.isnan(mean) else mean


def family_estimates(
    family: Family, sums: Mapping[str, Any] | None, options: ReportOptions
) -> dict[str, float | None]:
    """Every Table 8 coefficient's point estimate from a family's summed statistics.

    The definitions of :func:`annotator.agreement.family_stats._measures`: the same
    coefficients, weights and shared-unit minimum (doubled for mirrored families).
    """
    k = len(family.labels)
    if not sums or not sums.get("units"):
        return {name: None for name in COEFFICIENTS}
    twice = 1 if family.mirror is None else 2
    choice = replace(family.kappa(options), min_shared=options.min_shared * twice)
    ordinal = family.level == "ordinal"

    def gwet(weights: Weights) -> np.ndarray:
        return np.asarray(sums[_weights_key(weights)], dtype=np.float64)

    pa = np.asarray(sums["pa"], dtype=np.float64)
    observed = _ratio(pa[0], pa[1])
    pairs = _pair_tables(sums.get("pairs") or {}, k)
    eye = agreement_weights(k, None)
    ac2 = choice.weights or "quadratic"
    out: dict[str, float | None] = {
        "percent_agreement": observed,
        "unanimity": _ratio(*np.asarray(sums["un"], dtype=np.float64)[:2]),
        "krippendorff_alpha": alpha_from_coincidences(
            np.asarray(sums["co"], dtype=np.float64).reshape(k, k),
            np.arange(k, dtype=np.float64), family.level),
        "fleiss_kappa": fleiss_from_sums(gwet(None), eye),
        "mean_pairwise_cohen_kappa": _mean_pair_kappa(pairs, k, choice.weights,
                                                      choice.min_shared),
        "quadratic_weighted_kappa": _mean_pair_kappa(pairs, k, "quadratic", choice.min_shared)
        if ordinal else None,
        "gwet_ac1": gwet_from_sums(gwet(None), eye),
        "gwet_ac2": gwet_from_sums(gwet(ac2), agreement_weights(k, ac2)) if ordinal else None,
        "pabak": None if observed is None or k < 2 else (k * observed - 1) / (k - 1),
    }
    if choice.pooling == "fleiss":
        out["kappa"] = fleiss_from_sums(gwet(choice.weights), agreement_weights(k, choice.weights))
    else:
        out["kappa"] = out["mean_pairwise_cohen_kappa"]
    return out


def _details(family: Family, sums: Mapping[str, Any] | None) -> dict[str, Any]:
    """Exam order's strict-pair agreement, as the full report's ``details`` give it (no
    interval: that is the bootstrap's)."""
    if family.id != "order":
        return {}
    row = np.asarray((sums or {}).get("relations") or [0.0] * 7, dtype=np.float64)
    value = float(row[3] / row[2]) if row[2] > 0 else None
    return {"details": {"strict_agreement": {"value": value, "ci95": None,
                                             "pairs": int(row[2])}}}


def estimates(
    totals: Stats, options: ReportOptions | None = None,
    family_list: Sequence[Family] | None = None,
) -> list[dict[str, Any]]:
    """Per family ``{"id", "title", "level", "n_units", "coefficients": {name: value}}``;
    exam order adds ``details.strict_agreement`` (``value``, ``pairs``)."""
    options = options or ReportOptions()
    chosen = list(family_list) if family_list is not None else families()
    out = []
    for family in chosen:
        sums = totals.get(family.id)
        out.append({
            "id": family.id,
            "title": family.title,
            "level": family.level,
            "n_units": int((sums or {}).get("units", 0)) // (1 if family.mirror is None else 2),
            "coefficients": family_estimates(family, sums, options),
            **_details(family, sums),
        })
    return out
