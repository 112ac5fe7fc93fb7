"""Surfaces of the report without Qt: Tables 7/8 text, CSV, HTML and the SVG charts."""

from __future__ import annotations

import csv
import os
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from annotator.agreement.charts import family_chart, overview_chart, timeline_chart
from annotator.agreement.families import families, family_ratings
from annotator.agreement.html_report import render_html, write_html
from annotator.agreement.latent_class import dawid_skene
from annotator.agreement.options import ReportOptions
from annotator.agreement.project_data import (
    CaseBasis,
    Exam,
    ProjectBasis,
)
from annotator.agreement.report import build_report, family
from annotator.agreement.tables import (
    TABLE8_HEADER,
    ReportWriteError,
    fmt_ci,
    fmt_num,
    fmt_pct,
    pair_matrix,
    table7_rows,
    table8_rows,
    write_csv,
)

SVG = "{http://www.w3.org/2000/svg}"


def _basis() -> ProjectBasis:
    rng = np.random.default_rng(11)
    importance = ("essential", "optional", "unnecessary")
    cases = []
    for c in range(30):
        maps: dict[str, dict[str, Any]] = {}
        for key in ("k1", "k2", "k3"):
            labels: dict[str, Any] = {}
            for f in (1, 2, 3):
                labels[f"importance:Figure {f}"] = {"value": importance[int(rng.integers(0, 2))],
                                                    "how": "set"}
                labels[f"stage:Figure {f}"] = {"value": int(rng.integers(1, 3)), "how": "set"}
            labels["difficulty"] = {"value": "hard" if rng.random() < 0.7 else "normal",
                                    "how": "set"}
            labels["rarity"] = {"value": "rare", "how": "set"}
            if key == "k1" and c < 3:  # 4 "not correct" marks in 3 cases, no fix submitted
                labels["meta_ok:Figure 1"] = False
                labels["meta_ok:Figure 2"] = c != 0
            maps[key] = labels
        case_id = "<b>C&1</b>" if c == 0 else f"C{c:02d}"
        cases.append(CaseBasis(case_id, tuple(Exam(f"Figure {f}") for f in (1, 2, 3)), maps,
                               state="green_lit" if c % 2 else "in_review"))
    return ProjectBasis(tuple(cases), (), (), 30)


@pytest.fixture(scope="module")
def report() -> dict[str, Any]:
    return build_report(_basis(), ReportOptions(n_resamples=200))


def test_formatters() -> None:
    assert fmt_pct(0.7524) == "75.2%" and fmt_pct(None) == "n/a"
    assert fmt_num(0.36) == "0.360" and fmt_num(None) == "n/a"
    assert fmt_ci([0.1, 0.25]) == "[0.100, 0.250]"
    assert fmt_ci([0.1, 0.25], pct=True) == "[10.0%, 25.0%]" and fmt_ci(None) == "n/a"


def test_table8_rows_follow_the_header(report: dict[str, Any]) -> None:
    rows = table8_rows(report)
    assert len(rows) == len(report["families"])
    assert all(len(row) == len(TABLE8_HEADER) for row in rows)
    importance = dict(zip(TABLE8_HEADER, rows[0], strict=True))
    section = family(report, "importance")
    coef = section["coefficients"]
    assert importance["Label family"] == "Step importance"
    assert importance["Annotator agreement"] == fmt_pct(coef["percent_agreement"]["value"])
    assert importance["95% CI"] == fmt_ci(coef["percent_agreement"]["ci95"], pct=True)
    assert f"linear-weighted kappa = {fmt_num(coef['mean_pairwise_cohen_kappa']['value'])}" in (
        importance["Agreement metric"])
    assert importance["Notes"].startswith(f"n = {section['n_rating_pairs']} step pairs")
    green = section["green_lit_conflict_cases"]
    assert importance["Resolved by meta-review?"] == (
        f"{green} of {section['conflict_cases']} green-lit")
    assert importance["Kappa weights"] == "linear"
    rarity = dict(zip(TABLE8_HEADER, rows[[s["id"] for s in report["families"]]
                                          .index("rarity")], strict=True))
    assert rarity["Common disagreement type"] == "none"
    assert rarity["Resolved by meta-review?"] == "no conflicts"


def test_table7_rows(report: dict[str, Any]) -> None:
    rows = dict(table7_rows(report))
    assert rows["Total physician annotations (submitted, contributing cases)"] == "90"
    assert rows["Mean annotations per candidate case"] == "3.00"
    # Changed (issue 16): the order row headlines strict pairwise agreement and tau-b.
    order = family(report, "order")
    strict = order["details"]["strict_agreement"]["value"]
    assert rows["Agreement on preferred order"].startswith(f"{fmt_pct(strict)} strict pairwise")
    assert "Kendall tau-b" in rows["Agreement on preferred order"]
    # The kappa row names its definition.
    assert rows["Agreement on step importance"].endswith(
        "linear-weighted Cohen's kappa, mean over annotator pairs)")
    summary = report["summary"]
    flags = rows["Cases with draft metadata marked not correct (flags, not fixes)"]
    assert flags == "3/30 (4 marks)"
    assert summary["cases_with_draft_corrections"] == 0
    assert rows["Cases with physician corrections of the draft (submitted fixes)"] == "0/30"


def test_kappa_definition_is_an_option(report: dict[str, Any]) -> None:
    from annotator.agreement.coefficients import fleiss_kappa
    from annotator.agreement.families import families, family_ratings
    from annotator.agreement.kappa_choice import KappaChoice

    assert "linear-weighted Cohen's kappa, mean over annotator pairs" in (
        report["basis"]["statement"])
    basis = _basis()
    options = ReportOptions(n_resamples=50, kappa=KappaChoice("quadratic", "fleiss"))
    other = build_report(basis, options)
    section = family(other, "importance")
    ratings = family_ratings(next(f for f in families() if f.id == "importance"), basis.cases,
                             basis.annotator_keys)
    assert section["coefficients"]["kappa"]["value"] == pytest.approx(
        fleiss_kappa(ratings.matrix, 3, "quadratic"), abs=1e-12)
    assert section["kappa_definition"] == (
        "quadratic-weighted Fleiss' kappa (Gwet's generalisation, all raters pooled)")
    rows = dict(table7_rows(other))
    assert rows["Agreement on step importance"].endswith("all raters pooled))")
    assert "quadratic-weighted Fleiss' kappa" in other["basis"]["statement"]
    # Nominal families stay unweighted whatever the choice.
    assert family(other, "discard")["kappa_definition"].startswith("unweighted Fleiss")


def test_pair_matrix_is_symmetric_with_a_dash_diagonal(report: dict[str, Any]) -> None:
    names = [a["label"] for a in report["annotators"]]
    matrix = pair_matrix(family(report, "importance"), names)
    assert [matrix[i][i] for i in range(3)] == ["—"] * 3
    assert matrix[0][1] == matrix[1][0] and "(n=90)" in matrix[0][1]


def test_csv_is_written_atomically_and_errors_name_the_path(report: dict[str, Any],
                                                            tmp_path: Path) -> None:
    path = write_csv(report, tmp_path / "out" / "table8.csv")
    rows = list(csv.reader(path.open(encoding="utf-8")))
    assert rows[0] == TABLE8_HEADER and rows[1:] == table8_rows(report)
    assert [p.name for p in path.parent.iterdir()] == ["table8.csv"]  # no temporary left
    umask = os.umask(0o022)
    os.umask(umask)
    assert path.stat().st_mode & 0o777 == 0o666 & ~umask  # not mkstemp's private 0600
    with pytest.raises(ReportWriteError, match="is a folder"):
        write_csv(report, tmp_path)
    (tmp_path / "file").write_text("x")
    with pytest.raises(ReportWriteError, match="cannot write") as error:
        write_csv(report, tmp_path / "file" / "table8.csv")
    assert error.value.path == tmp_path / "file" / "table8.csv"


def test_html_escapes_text_and_embeds_the_charts(report: dict[str, Any], tmp_path: Path) -> None:
    html = render_html(report)
    assert "<b>C&1</b>" not in html and "&lt;b&gt;C&amp;1&lt;/b&gt;" in html
    assert html.count("<svg") == len(report["families"]) + 2
    assert "Table 7" in html and "Table 8" in html and report["basis"]["statement"][:40] in html
    path = write_html(report, tmp_path / "report.html")
    assert path.read_text(encoding="utf-8") == html


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg" and int(root.get("width", "0")) > 0
    return root


def test_charts_are_well_formed_svg(report: dict[str, Any]) -> None:
    for section in report["families"]:
        root = _parse(family_chart(section))
        texts = [t.text for t in root.iter(f"{SVG}text")]
        assert section["title"] in (texts[0] or "")
        assert root.find(f".//{SVG}style") is None  # presentation attributes only
    overview = _parse(overview_chart(report))
    defined = [s for s in report["families"]
               if s["coefficients"]["percent_agreement"]["value"] is not None]
    assert len(overview.findall(f"{SVG}circle")) == len(defined) < len(report["families"])
    _parse(timeline_chart(report))
    empty = {"families": [], "timeline": []}
    assert "no submission times" in timeline_chart(empty)


def test_chart_shows_na_and_negative_values(report: dict[str, Any]) -> None:
    section = dict(family(report, "importance"))
    section["coefficients"] = {**section["coefficients"],
                               "krippendorff_alpha": {"value": -0.35, "ci95": [-0.5, -0.1]},
                               "gwet_ac1": {"value": None, "ci95": None}}
    texts = [t.text for t in _parse(family_chart(section)).iter(f"{SVG}text")]
    assert "-0.35" in texts and "n/a" in texts and "-0.6" in texts  # axis reaches -0.6


def test_latent_class_view_is_dawid_skene_on_the_family_matrix(report: dict[str, Any]) -> None:
    basis = _basis()
    importance = next(f for f in families() if f.id == "importance")
    ratings = family_ratings(importance, basis.cases, basis.annotator_keys)
    expected = dawid_skene(ratings.matrix, len(importance.labels))
    assert expected is not None
    latent = family(report, "importance")["latent_class"]
    assert latent["n_units"] == ratings.n_units
    assert [r["accuracy"] for r in latent["raters"]] == pytest.approx(
        expected.rater_accuracy().tolist(), abs=1e-12)
    assert latent["n_contested"] == int(expected.contested(0.8).sum())
    # Exam pairs are mirrored (counted both ways): no latent-class estimate for them.
    assert family(report, "order")["latent_class"] is None
    assert "Latent-class consensus (Dawid-Skene)" in render_html(report)
