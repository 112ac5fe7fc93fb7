"""Each printed CI belongs to the coefficient, level and weights of its point estimate.

The reference: ``scipy.stats.bootstrap(method="BCa")`` over the units with the app's seed
(scipy draws exactly the app's :func:`~annotator.agreement.bootstrap.bootstrap_draws`),
each coefficient computed on every resample and jackknife sample by an independent
implementation (the ``krippendorff`` package, statsmodels, scikit-learn, or the textbook
formula). ``annotator stats`` must print exactly that interval (to 1e-9).
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy.stats import bootstrap
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from annotator.agreement import bootstrap_draws, stats_report

VALUES = (0.0, 1.0, 2.5, 4.0, 10.0)  # unevenly spaced: interval alpha != nominal alpha


def _table(n_units: int = 100, n_raters: int = 3, seed: int = 7) -> np.ndarray:
    """Complete units x raters values: each rater copies the unit's truth 55% of the time."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, len(VALUES), size=n_units)
    codes = np.where(rng.random((n_units, n_raters)) < 0.55, truth[:, None],
                     rng.integers(0, len(VALUES), size=(n_units, n_raters)))
    return np.asarray(VALUES)[codes]


def _write(tmp_path: Path, values: np.ndarray) -> Path:
    lines = ["unit," + ",".join(f"r{j}" for j in range(values.shape[1]))]
    lines += [f"u{i}," + ",".join(f"{v:g}" for v in row) for i, row in enumerate(values)]
    path = tmp_path / "ratings.csv"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _reference_ci(values: np.ndarray, statistic: Callable[[np.ndarray], float]) -> list[float]:
    """scipy's BCa interval of ``statistic`` over the units, with the app's seed."""
    assert (bootstrap_draws(values.shape[0], 3, 0)
            == np.random.default_rng(0).integers(0, values.shape[0], (3, values.shape[0]))
            ).all()  # the draws scipy makes from the same seed
    result = bootstrap((np.arange(values.shape[0]),), lambda rows: statistic(values[rows]),
                       n_resamples=1000, method="BCa", vectorized=False,
                       random_state=np.random.default_rng(0))
    return [float(result.confidence_interval.low), float(result.confidence_interval.high)]


def _codes(values: np.ndarray) -> np.ndarray:
    return np.searchsorted(np.asarray(VALUES), values)


def _weighted_kappa(a: np.ndarray, b: np.ndarray, positions: np.ndarray, power: int) -> float:
    """Cohen's weighted kappa with disagreement |v_i - v_j|^power between category values."""
    k = len(positions)
    observed = np.zeros((k, k))
    np.add.at(observed, (a, b), 1.0)
    observed /= observed.sum()
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    d = np.abs(positions[:, None] - positions[None, :]) ** power
    return float(1 - (d * observed).sum() / (d * expected).sum())


def _mean_pairwise(values: np.ndarray, level: str, power: int) -> float:
    codes = _codes(values)
    kappas = []
    for i, j in combinations(range(values.shape[1]), 2):
        if level in ("interval", "ratio"):
            kappa = _weighted_kappa(codes[:, i], codes[:, j], np.asarray(VALUES), power)
        else:
            weights = {0: None, 1: "linear", 2: "quadratic"}[power]
            with np.errstate(invalid="ignore", divide="ignore"):
                kappa = cohen_kappa_score(codes[:, i], codes[:, j],
                                          labels=list(range(len(VALUES))), weights=weights)
        if np.isfinite(kappa):
            kappas.append(kappa)
    return float(np.mean(kappas)) if kappas else np.nan


def _gwet(values: np.ndarray, power: int) -> float:
    """Gwet's AC1 (power 0), AC2 with linear (1) or quadratic (2) weights over the codes."""
    k = len(VALUES)
    codes = _codes(values)
    counts = np.stack([(codes == c).sum(axis=1) for c in range(k)], axis=1).astype(float)
    r = counts.sum(axis=1)
    w = np.eye(k)
    if power:
        i = np.arange(k)
        w = 1 - (np.abs(i[:, None] - i[None, :]) / (k - 1)) ** power
    pa = ((counts * (counts @ w.T - 1)).sum(axis=1) / (r * (r - 1))).mean()
    pi = (counts / r[:, None]).mean(axis=0)
    pe = w.sum() / (k * (k - 1)) * (pi * (1 - pi)).sum()
    return float((pa - pe) / (1 - pe)) if pe < 1 else np.nan


def _pooled_agreement(values: np.ndarray) -> float:
    pairs = list(combinations(range(values.shape[1]), 2))
    return float(np.mean([values[:, i] == values[:, j] for i, j in pairs]))


def _fleiss(values: np.ndarray) -> float:
    with np.errstate(invalid="ignore", divide="ignore"):
        return float(sm_fleiss_kappa(aggregate_raters(_codes(values))[0]))


def _alpha(level: str) -> Callable[[np.ndarray], float]:
    def alpha(values: np.ndarray) -> float:
        if len(np.unique(values)) < 2:
            return np.nan
        return float(krippendorff.alpha(reliability_data=values.T, level_of_measurement=level))

    return alpha


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_every_ci_is_a_bootstrap_of_its_own_point_estimate(tmp_path: Path, level: str) -> None:
    values = _table()
    report = stats_report(_write(tmp_path, values), level)
    k = len(VALUES)
    references: dict[str, Callable[[np.ndarray], float]] = {
        "krippendorff_alpha": _alpha(level),
        "fleiss_kappa": _fleiss,
        "percent_agreement": _pooled_agreement,
        "gwet_ac1": lambda v: _gwet(v, 0),
        "pabak": lambda v: (k * _pooled_agreement(v) - 1) / (k - 1),
        # The headline kappa: unweighted at nominal, linear-weighted otherwise.
        "kappa": lambda v: _mean_pairwise(v, level, 0 if level == "nominal" else 1),
    }
    if level != "nominal":
        references["quadratic_weighted_kappa"] = lambda v: _mean_pairwise(v, level, 2)
        # AC2 takes the headline kappa's weights (linear by default).
        references["gwet_ac2"] = lambda v: _gwet(v, 1)
    assert set(report["ci95"]) == set(references)
    for name, reference in references.items():
        expected_point = reference(values)
        point = report[name]["value"] if name == "kappa" else report[name]
        assert point == pytest.approx(expected_point, abs=1e-9), name
        assert report["ci95"][name] == pytest.approx(_reference_ci(values, reference),
                                                     abs=1e-9), name


def test_interval_alpha_ci_brackets_the_interval_alpha_not_the_nominal(tmp_path: Path) -> None:
    values = _table()
    report = stats_report(_write(tmp_path, values), "interval")
    nominal = stats_report(_write(tmp_path, values), "nominal")
    low, high = report["ci95"]["krippendorff_alpha"]
    assert low <= report["krippendorff_alpha"] <= high
    assert report["ci95"]["krippendorff_alpha"] != nominal["ci95"]["krippendorff_alpha"]
