"""``stats_report`` on small ratings tables written to disk."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from annotator.agreement import (
    RatingsTableError,
    cohen_kappa,
    gwet_ac1,
    krippendorff_alpha,
    stats_report,
)
from annotator.errors import AnnotatorError

NAN = np.nan


def write(tmp_path: Path, text: str, name: str = "ratings.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def as_json(report: dict[str, Any]) -> dict[str, Any]:
    """Round-trip through strict JSON: fails on NaN or numpy types json cannot write."""
    loaded: dict[str, Any] = json.loads(json.dumps(report, allow_nan=False))
    return loaded


def test_string_labels_with_order_and_missing_cells(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "unit,ann1,ann2,ann3\n"
        "s1,essential,essential,optional\n"
        "s2,optional,optional,\n"
        "s3,unnecessary,optional,optional\n"
        "s4,essential,,essential\n"
        "s5,,optional,\n",
    )
    order = ["essential", "optional", "unnecessary", "harmful"]  # 'harmful' unused
    report = as_json(stats_report(path, "ordinal", order))
    codes = np.array([[0, 0, 1], [1, 1, NAN], [2, 1, 1], [0, NAN, 0], [NAN, 1, NAN]])
    assert report["units"] == 5 and report["raters"] == 3
    assert report["rater_names"] == ["ann1", "ann2", "ann3"]
    assert report["labels"] == order
    assert (report["ratings"], report["pairable_units"], report["rater_pairs"]) == (11, 4, 8)
    # Agreeing pairs: s1 1 of 3, s2 1 of 1, s3 1 of 3, s4 1 of 1.
    assert report["percent_agreement"] == pytest.approx(4 / 8)
    assert report["unanimity"] == pytest.approx(2 / 4)
    # Raters per unit vary: Fleiss' kappa in Gwet's generalisation, by hand. Category shares
    # per unit (essential, optional, unnecessary): s1 (2/3, 1/3, 0), s2 (0, 1, 0),
    # s3 (0, 2/3, 1/3), s4 (1, 0, 0), s5 (0, 1, 0); pi = (1/3, 3/5, 1/15), pe = 107/225.
    # pa over the 4 pairable units = (1/3 + 1 + 1/3 + 1) / 4 = 2/3. kappa = 43/118.
    assert report["fleiss_kappa"] == pytest.approx(43 / 118, abs=1e-12)
    assert report["krippendorff_alpha"] == pytest.approx(
        krippendorff_alpha(codes, "ordinal", value_domain=range(4))
    )
    assert report["gwet_ac1"] == pytest.approx(gwet_ac1(codes, 4))
    pair_kappas = [
        cohen_kappa(codes[:, i], codes[:, j], 4, weights="linear")
        for i, j in [(0, 1), (0, 2), (1, 2)]
    ]
    expected = np.mean([k for k in pair_kappas if k is not None])
    assert report["mean_pairwise_cohen_kappa"] == pytest.approx(expected)
    assert report["cohen_kappa_weights"] == "linear"
    assert "icc" not in report
    assert any("raters per unit varies" in note for note in report["notes"])


def test_nominal_numeric_labels_sort_numerically_and_fleiss_when_balanced(
    tmp_path: Path,
) -> None:
    path = write(tmp_path, "id,a,b\nu1,9,9\nu2,10,9\nu3,10,10\nu4,2,2\nu5,9,10\n")
    report = as_json(stats_report(path, "nominal"))
    assert report["labels"] == ["2", "9", "10"]
    assert report["fleiss_kappa"] is not None
    assert report["cohen_kappa_weights"] == "none"
    a, b = np.array([1, 2, 2, 0, 1.0]), np.array([1, 1, 2, 0, 2.0])
    assert report["mean_pairwise_cohen_kappa"] == pytest.approx(cohen_kappa(a, b, 3))


def test_krippendorff_table_as_csv(tmp_path: Path, krippendorff_2011: np.ndarray) -> None:
    lines = ["unit,A,B,C,D"]
    for u, row in enumerate(krippendorff_2011, start=1):
        lines.append(",".join([f"u{u}"] + ["" if np.isnan(v) else f"{v:g}" for v in row]))
    path = write(tmp_path, "\n".join(lines) + "\n")
    levels = {"nominal": 0.743421, "ordinal": 0.815388, "interval": 0.849107, "ratio": 0.797403}
    for level, expected in levels.items():
        report = as_json(stats_report(path, level))
        assert round(report["krippendorff_alpha"], 6) == expected
        assert report["units"] == 12 and report["raters"] == 4


def test_interval_level_reports_six_iccs(tmp_path: Path, shrout_fleiss: np.ndarray) -> None:
    rows = "\n".join(
        f"t{i},{','.join(f'{v:g}' for v in row)}" for i, row in enumerate(shrout_fleiss)
    )
    path = write(tmp_path, f"target,j1,j2,j3,j4\n{rows}\nt9,4,,5,6\n")
    report = as_json(stats_report(path, "interval"))
    icc = report["icc"]
    assert isinstance(icc, dict)
    assert list(icc) == ["ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)"]
    assert round(icc["ICC(2,1)"]["value"], 4) == 0.2898
    assert round(icc["ICC(3,k)"]["value"], 4) == 0.9093
    low, high = icc["ICC(1,1)"]["ci95"]
    assert (round(low, 2), round(high, 2)) == (-0.13, 0.72)
    assert report["icc_units"] == 6  # t9 is incomplete
    assert report["cohen_kappa_weights"] == "linear"
    assert any("linear weights on the distances" in n for n in report["notes"])
    assert any("ICC(1,.) is the valid form" in n for n in report["notes"])


def test_degenerate_table_gives_nulls_not_nan(tmp_path: Path) -> None:
    path = write(tmp_path, "unit,a,b\nu1,3,3\nu2,3,3\nu3,3,\n")
    report = as_json(stats_report(path, "interval"))
    assert report["percent_agreement"] == 1.0
    assert report["krippendorff_alpha"] is None
    assert report["mean_pairwise_cohen_kappa"] is None
    assert report["icc"] is not None  # two complete rows, zero variance: forms are null
    assert all(form["value"] is None for form in report["icc"].values())


@pytest.mark.parametrize(
    ("text", "level", "order", "reason"),
    [
        ("unit\nu1\n", "nominal", None, "no rater columns"),
        ("", "nominal", None, "empty"),
        ("unit,a,b\nu1,x,y\n", "nominal", ["x"], "label 'y' is not in --order"),
        ("unit,a,b\nu1,1,high\n", "interval", None, "label 'high' is not a number"),
        ("unit,a,b\nu1,1,-2\n", "ratio", None, "negative value"),
        ("unit,a,b\nu1,1,2\n", "interval", ["1", "2"], "--order applies"),
        ("unit,a,b\nu1,1,2\nu1,2,2\n", "nominal", None, "appears twice"),
        ("unit,a,b\nu1,1\n", "nominal", None, "row 2 has 2 cells"),
        ("unit,a,a\nu1,1,2\n", "nominal", None, "same name"),
        ("unit,a,b\n,1,2\n", "nominal", None, "no unit id"),
        ("unit,a,b\nu1,1,2\n", "cardinal", None, "unknown level"),
        ("unit,a,b\nu1,x,y\n", "ordinal", ["x", "x", "y"], "twice"),
    ],
)
def test_bad_tables_raise_typed_errors(
    tmp_path: Path, text: str, level: str, order: list[str] | None, reason: str
) -> None:
    path = write(tmp_path, text)
    with pytest.raises(RatingsTableError) as caught:
        stats_report(path, level, order)
    assert reason in caught.value.reason
    assert caught.value.path == path
    assert str(path) in str(caught.value)
    assert isinstance(caught.value, AnnotatorError)


def test_missing_and_undecodable_files(tmp_path: Path) -> None:
    with pytest.raises(RatingsTableError, match="file not found"):
        stats_report(tmp_path / "absent.csv", "nominal")
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"unit,a\n\xff\xfe\x00\n")
    with pytest.raises(RatingsTableError, match="UTF-8"):
        stats_report(binary, "nominal")
