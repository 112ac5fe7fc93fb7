"""Weighted coefficients (Gwet's AC2, weighted Fleiss, quadratic kappa), the kappa choice and
bootstraps that drop undefined resamples, against hand-computed values and sklearn."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from annotator.agreement import bootstrap_draws, gwet_ac1
from annotator.agreement.bootstrap import case_bootstrap_interval
from annotator.agreement.coefficients import fleiss_kappa, gwet_ac2
from annotator.agreement.kappa import mean_pairwise_cohen_kappa
from annotator.agreement.kappa_choice import KappaChoice
from annotator.agreement.ratings_table import RatingsTableError, stats_report

NAN = np.nan
# Four units, three ordered categories; the third unit has three raters.
SMALL = np.array([[0, 0, NAN], [0, 1, NAN], [1, 2, 2], [2, 2, NAN]])
# Quadratic agreement weights over 3 categories: 1 - (k - l)^2 / 4.
W = [[Fraction(1), Fraction(3, 4), Fraction(0)], [Fraction(3, 4), Fraction(1), Fraction(3, 4)],
     [Fraction(0), Fraction(3, 4), Fraction(1)]]
# By hand: weighted agreement per unit sum_k r_k (r*_k - 1) / (r (r - 1)) with r* = W r:
# u1 1, u2 (0.75 + 0.75) / 2, u3 (1.5 + 2 * 1.75) / 6 = 5/6, u4 1  ->  pa = 43/48.
PA = Fraction(43, 48)
# Category shares averaged per unit: (1 + 1/2) / 4, (1/2 + 1/3) / 4, (2/3 + 1) / 4.
PI = [Fraction(3, 8), Fraction(5, 24), Fraction(5, 12)]


def test_gwet_ac2_quadratic_by_hand() -> None:
    # pe = T_w / (q (q - 1)) * sum pi (1 - pi), T_w = 3 + 4 * 3/4 = 6: pe = 370/576.
    pe = Fraction(6, 6) * sum(p * (1 - p) for p in PI)
    assert pe == Fraction(370, 576)
    assert float((PA - pe) / (1 - pe)) == pytest.approx(73 / 103)
    assert gwet_ac2(SMALL, 3, "quadratic") == pytest.approx(73 / 103, abs=1e-12)
    # Unweighted AC2 is AC1.
    assert gwet_ac2(SMALL, 3, None) == pytest.approx(gwet_ac1(SMALL, 3), abs=1e-15)


def test_weighted_fleiss_by_hand() -> None:
    pe = sum(W[k][m] * PI[k] * PI[m] for k in range(3) for m in range(3))
    expected = float((PA - pe) / (1 - pe))
    assert fleiss_kappa(SMALL, 3, "quadratic") == pytest.approx(expected, abs=1e-12)


def test_linear_weights_follow_irrcac() -> None:
    # Linear weights over 3 categories are 1, 1/2, 0 (irrCAC linear.weights(1:3)): two raters
    # one category apart agree half. One unit [0, 1] plus [2, 2]: pa = (1/2 + 1) / 2.
    codes = np.array([[0, 1], [2, 2]], float)
    pi = [Fraction(1, 4), Fraction(1, 4), Fraction(1, 2)]
    pe = Fraction(3 + 4 * Fraction(1, 2), 6) * sum(p * (1 - p) for p in pi)
    expected = float((Fraction(3, 4) - pe) / (1 - pe))
    assert gwet_ac2(codes, 3, "linear") == pytest.approx(expected, abs=1e-12)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_quadratic_kappa_matches_sklearn(seed: int) -> None:
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 4, 60)
    b = np.clip(a + rng.integers(-1, 2, 60), 0, 3)
    codes = np.column_stack([a, b]).astype(float)
    expected = cohen_kappa_score(a, b, weights="quadratic", labels=[0, 1, 2, 3])
    assert mean_pairwise_cohen_kappa(codes, 4, "quadratic") == pytest.approx(expected, abs=1e-12)
    choice = KappaChoice("quadratic", "pairs")
    assert choice.compute(codes, 4) == pytest.approx(expected, abs=1e-12)
    assert choice.definition() == "quadratic-weighted Cohen's kappa, mean over annotator pairs"


def test_stats_reports_quadratic_kappa_ac2_and_cis(tmp_path: Path) -> None:
    rng = np.random.default_rng(7)
    a = rng.integers(0, 3, 40)
    b = np.clip(a + rng.integers(-1, 2, 40), 0, 2)
    words = ["low", "mid", "high"]
    path = tmp_path / "r.csv"
    path.write_text("unit,x,y\n" + "".join(f"u{i},{words[p]},{words[q]}\n"
                                          for i, (p, q) in enumerate(zip(a, b, strict=True))))
    report = stats_report(path, "ordinal", words)
    assert report["quadratic_weighted_kappa"] == pytest.approx(
        cohen_kappa_score(a, b, weights="quadratic", labels=[0, 1, 2]), abs=1e-12)
    codes = np.column_stack([a, b]).astype(float)
    assert report["gwet_ac2"] == pytest.approx(gwet_ac2(codes, 3, "linear"), abs=1e-12)
    definition = "linear-weighted Cohen's kappa, mean over annotator pairs"
    assert report["kappa"]["definition"] == definition
    for name in ("kappa", "quadratic_weighted_kappa"):
        low, high = report["ci95"][name]
        assert low <= high
    # 40 units: AC1, AC2, exact agreement and PABAK print no interval under 50, Fleiss' and
    # Cohen's kappa from 30 (docs/statistics.md, the coverage measured at 20 to 100).
    assert all(report["ci95"][name] is None
               for name in ("gwet_ac1", "gwet_ac2", "percent_agreement", "pabak"))
    assert report["ci95"]["fleiss_kappa"] is not None
    assert report["bootstrap"]["min_units_by_coefficient"]["gwet_ac2"] == 50
    # No coefficient prints an interval from fewer than 30 units: no coverage flag.
    assert "coverage_below_nominal" not in report["bootstrap"]
    assert not any("nominal" in note for note in report["notes"])
    fleiss = stats_report(path, "ordinal", words, KappaChoice("quadratic", "fleiss"))
    assert fleiss["kappa"]["value"] == pytest.approx(fleiss_kappa(codes, 3, "quadratic"))
    assert "Fleiss" in fleiss["kappa"]["definition"]


def test_ordinal_string_labels_need_order(tmp_path: Path) -> None:
    # Alphabetical would make high < low < mid, an invented order.
    path = tmp_path / "r.csv"
    path.write_text("unit,x,y\nu1,low,mid\nu2,high,high\nu3,mid,low\n")
    with pytest.raises(RatingsTableError, match="need --order"):
        stats_report(path, "ordinal")
    assert stats_report(path, "nominal")["labels"] == ["high", "low", "mid"]
    numbers = tmp_path / "n.csv"
    numbers.write_text("unit,x,y\nu1,1,2\nu2,10,10\nu3,2,1\n")
    assert stats_report(numbers, "ordinal")["labels"] == ["1", "2", "10"]


def test_undefined_resamples_are_dropped_and_counted() -> None:
    # Everyone says category 0 except in case 0: resamples that miss case 0 have no kappa.
    # Resamples that draw it give kappa 0 exactly (rater A never varies: observed and
    # expected disagreement are both the share of [0, 1] units).
    codes = np.zeros((25, 2))
    codes[0] = [0, 1]
    ids = list(range(25))
    ci = case_bootstrap_interval(codes, ids, "cohen_kappa", n_categories=2)
    assert ci is not None and ci.interval == (0.0, 0.0)
    missing = int((~(bootstrap_draws(25, 1000, 0) == 0).any(axis=1)).sum())
    assert 300 < missing < 420  # about 1000 * (24/25)^25 = 360
    assert ci.dropped == missing and ci.n_resamples == 1000
    assert ci.below_nominal and ci.as_dict()["coverage_below_nominal"] is True
    # 100% agreement: every resample is undefined for kappa -> no interval at all.
    assert case_bootstrap_interval(np.zeros((25, 2)), ids, "cohen_kappa", n_categories=2) is None


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_batch_kappa_equals_the_scalar_definition(weights: str | None) -> None:
    from annotator.agreement.kappa import mean_kappa_batch, mean_kappa_from_confusions

    rng = np.random.default_rng(5)
    tables = rng.integers(0, 4, size=(40, 3, 3, 3)).astype(float)
    tables[0] = 0  # no shared unit at all: undefined
    tables[1] = 0
    tables[1, :, 0, 0] = 5  # both raters always say 0: no chance disagreement, undefined
    tables[2, 0] = 0  # one pair undefined, the others defined
    batch = mean_kappa_batch(tables, weights)  # type: ignore[arg-type]
    for row, value in zip(tables, batch, strict=True):
        scalar = mean_kappa_from_confusions(row, weights)  # type: ignore[arg-type]
        if scalar is None:
            assert np.isnan(value)
        else:
            assert value == pytest.approx(scalar, abs=1e-12)
    assert np.isnan(batch[0]) and np.isnan(batch[1]) and not np.isnan(batch[2])


def test_stats_command_takes_the_kappa_options(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import json

    from annotator.cli import main

    path = tmp_path / "r.csv"
    path.write_text("unit,x,y,z\nu1,low,mid,mid\nu2,high,high,\nu3,mid,low,low\nu4,low,low,mid\n")
    code = main(["stats", str(path), "--level", "ordinal", "--order", "low,mid,high",
                 "--kappa", "quadratic", "--kappa-pooling", "fleiss", "--json"])
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    codes = np.array([[0, 1, 1], [2, 2, NAN], [1, 0, 0], [0, 0, 1]])
    assert report["kappa"]["value"] == pytest.approx(fleiss_kappa(codes, 3, "quadratic"))
    assert report["kappa"]["definition"].startswith("quadratic-weighted Fleiss' kappa")
    assert main(["stats", str(path), "--level", "ordinal"]) == 2  # words need --order
    assert "need --order" in capsys.readouterr().err
