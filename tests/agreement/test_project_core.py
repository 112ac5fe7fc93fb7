"""The pure core of the project report: basis rules, families, order details, options."""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from typing import Any

import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

from annotator.agreement.families import (
    Family,
    ReportOptions,
    families,
    family_ratings,
    order_stages,
    register_family,
)
from annotator.agreement.monitoring import iso_week
from annotator.agreement.project_data import (
    AnnotatorProgress,
    CaseBasis,
    CaseRecord,
    Exam,
    ProjectBasis,
    Submission,
    build_basis,
    exams_of,
)
from annotator.agreement.report import build_report, family

FAST = ReportOptions(n_resamples=200)


def _imp(value: str) -> dict[str, str]:
    return {"value": value, "how": "set"}


def _stage(value: int | None) -> dict[str, Any]:
    return {"value": value, "how": "set"}


def _content(*metas: dict[str, Any]) -> dict[str, Any]:
    return {"imaging_examinations": [
        {"figure": f"Figure {i + 1}", "meta_info": meta} for i, meta in enumerate(metas)]}


def test_basis_rules_exclude_with_reasons() -> None:
    labels = {"difficulty": _imp("hard")}
    two = [Submission("k1", labels), Submission("k2", labels)]
    records = [
        CaseRecord("A", "in_review", _content({"modality": "MRI", "time_past": None},
                                              {"modality": "CT", "time_past": "-2"},
                                              {"modality": "MRI", "acquisition": "Histopathology"}),
                   two),
        CaseRecord("B", "excluded", _content(), two, state_reason="leakage"),
        CaseRecord("C", "annotating", _content(), two[:1], ("k1", "k2")),
        CaseRecord("D", "in_review", _content(), two[:1], ("k1",)),
        CaseRecord("E", "green_lit", _content({"modality": "MRI", "time_past": 4}), two),
    ]
    basis = build_basis(records)
    assert [c.case_id for c in basis.cases] == ["A", "E"]
    assert basis.cases[0].used_figures == ["Figure 1"]
    assert basis.cases[1].used_figures == ["Figure 1"]  # prior imaging is used
    why = {(e.case_id, e.figure): (e.reason, e.detail) for e in basis.exclusions}
    assert why[("B", "")] == ("case_excluded", "case excluded (leakage)")
    assert why[("C", "")] == ("still_annotating", "still annotating (1 of 2 submitted)")
    assert why[("D", "")][0] == "incomplete"
    assert why[("A", "Figure 2")][0] == "follow_up"
    assert why[("A", "Figure 3")] == ("non_imaging", "non-imaging exam")


def test_exams_without_figure_are_ignored() -> None:
    content = {"imaging_examinations": [{"meta_info": {}}, "junk", {"figure": "Figure 1"}]}
    assert exams_of(content) == (Exam("Figure 1", True, ""),)


def _case(case_id: str, maps: dict[str, dict[str, Any]], figures: int = 3,
          when: datetime | None = None) -> CaseBasis:
    exams = tuple(Exam(f"Figure {i + 1}") for i in range(figures))
    return CaseBasis(case_id, exams, maps, dict.fromkeys(maps, when))


def test_family_ratings_codes_and_drops_units_rated_once() -> None:
    case = _case("A", {
        "k1": {"importance:Figure 1": _imp("essential"), "importance:Figure 2": _imp("optional")},
        "k2": {"importance:Figure 1": _imp("unnecessary")},
    }, figures=2)
    by_id = {f.id: f for f in families()}
    r = family_ratings(by_id["importance"], (case,), ["k1", "k2", "k3"])
    assert r.items == ["Figure 1"]  # Figure 2 was rated once
    assert r.matrix.tolist()[0][:2] == [0.0, 2.0] and np.isnan(r.matrix[0, 2])
    r = family_ratings(by_id["importance_essential"], (case,), ["k1", "k2"])
    assert r.matrix.tolist() == [[0.0, 1.0]]
    bad = _case("B", {"k1": {"difficulty": _imp("trivial")}, "k2": {}})
    with pytest.raises(ValueError, match="case B.*'trivial' is not one of"):
        family_ratings(by_id["difficulty"], (bad,), ["k1", "k2"])


def test_order_units_use_dense_stages_over_used_exams() -> None:
    exams = (Exam("Figure 1"), Exam("Figure 2", False, "future follow-up"), Exam("Figure 3"))
    case = CaseBasis("A", exams, {
        "k1": {"stage:Figure 1": _stage(1), "stage:Figure 2": _stage(2),
               "stage:Figure 3": _stage(3)},
        "k2": {"stage:Figure 1": _stage(2), "stage:Figure 3": _stage(1)},
    })
    # Without the follow-up, k1's stages 1 and 3 are one stage apart: an adjacent swap.
    assert order_stages(case)["k1"] == {"Figure 1": 1, "Figure 3": 2}
    report = build_report(ProjectBasis((case,), (), (), 1), FAST)
    order = family(report, "order")
    assert order["n_units"] == 1 and order["details"]["disagreement_types"] == {
        "tie_vs_strict": 0, "adjacent_swap": 1, "reversal": 0, "reordering": 0}
    assert order["most_common_disagreement"] == "adjacent-rank swap"


def test_order_reversal_tie_and_undefined_tau() -> None:
    maps = {
        "k1": {"stage:Figure 1": _stage(1), "stage:Figure 2": _stage(2),
               "stage:Figure 3": _stage(3)},
        "k2": {"stage:Figure 1": _stage(3), "stage:Figure 2": _stage(2),
               "stage:Figure 3": _stage(1)},
        "k3": {"stage:Figure 1": _stage(1), "stage:Figure 2": _stage(1),
               "stage:Figure 3": _stage(1)},
    }
    report = build_report(ProjectBasis((_case("A", maps),), (), (), 1), FAST)
    details = family(report, "order")["details"]
    # Changed (issue 16): typed per case and annotator pair, not per exam pair. k1 vs k2 is
    # a full reversal of three exams (pair by pair it was 2 adjacent swaps + 1 reversal);
    # k3 ties everything, so k1-k3 and k2-k3 differ only by ties.
    assert details["disagreement_types"] == {"tie_vs_strict": 2, "adjacent_swap": 0,
                                             "reversal": 1, "reordering": 0}
    assert details["pair_disagreement_types"] == {"tie_vs_strict": 6, "adjacent_swap": 2,
                                                  "reversal": 1}
    assert family(report, "order")["most_common_disagreement"] == "tie vs strict order"
    assert details["kendall_tau_b"]["mean"] == pytest.approx(-1.0)
    assert details["kendall_tau_b"]["n_undefined"] == 0
    # The exam-order intervals start at 20 cases, where they met the coverage target: no
    # "coverage below nominal" flag (docs/statistics.md, exam-order rows).
    assert family(report, "order")["bootstrap"] == {"n_cases": 1}
    only_ties = {"k1": maps["k1"], "k3": maps["k3"]}
    report = build_report(ProjectBasis((_case("A", only_ties),), (), (), 1), FAST)
    tau = family(report, "order")["details"]["kendall_tau_b"]
    assert tau["n_undefined"] == 1 and tau["mean"] is None


def _random_basis(n_cases: int, keys: list[str], seed: int, per_case: int = 3) -> ProjectBasis:
    rng = np.random.default_rng(seed)
    cases = []
    for c in range(n_cases):
        truth = int(rng.integers(0, 3))
        chosen = rng.choice(len(keys), size=per_case, replace=False)
        maps = {}
        for i in sorted(chosen):
            value = truth if rng.random() < 0.7 else int(rng.integers(0, 3))
            maps[keys[i]] = {"difficulty": _imp(("normal", "hard", "extreme_hard")[value])}
        when = datetime(2024, 12, 23) + timedelta(days=c % 20)
        cases.append(_case(f"c{c:03d}", maps, figures=0, when=when))
    return ProjectBasis(tuple(cases), (), tuple(AnnotatorProgress(k, k.upper()) for k in keys),
                        n_cases)


def test_fleiss_kappa_defined_when_raters_are_constant_matches_statsmodels() -> None:
    basis = _random_basis(100, ["k1", "k2", "k3"], seed=3)  # >= Fleiss' stated minimum (30)
    report = build_report(basis, FAST)
    section = family(report, "difficulty")
    codes = np.array([[("normal", "hard", "extreme_hard").index(c.labels[k]["difficulty"]["value"])
                       for k in ("k1", "k2", "k3")] for c in basis.cases])
    table, _ = aggregate_raters(codes, n_cat=3)
    assert section["coefficients"]["fleiss_kappa"]["value"] == pytest.approx(
        fleiss_kappa(table, method="fleiss"))
    assert section["coefficients"]["fleiss_kappa"]["ci95"] is not None
    assert section["raters_per_unit"] == {"3": 100}


def test_pair_kappa_needs_min_shared_and_ci_needs_min_cases() -> None:
    basis = _random_basis(40, ["k1", "k2", "k3", "k4", "k5"], seed=5, per_case=2)
    report = build_report(basis, ReportOptions(n_resamples=100, min_shared=30))
    pairs = family(report, "difficulty")["pairs"]
    assert pairs and all(p["n_shared"] < 30 for p in pairs)
    assert all(p["cohen_kappa"] is None and p["kappa_note"].startswith("n/a: ")
               for p in pairs)
    assert family(report, "difficulty")["coefficients"]["mean_pairwise_cohen_kappa"] == {
        "value": None, "ci95": None, "dropped_resamples": 0}
    small = build_report(_random_basis(12, ["k1", "k2", "k3"], seed=1), FAST)
    coefficients = family(small, "difficulty")["coefficients"]
    assert coefficients["percent_agreement"]["value"] is not None
    assert all(c["ci95"] is None for c in coefficients.values())  # 12 < 20 cases



def test_no_coefficient_interval_under_30_cases_so_no_coverage_flag() -> None:
    # 25 cases: every coefficient's measured minimum is >= 30 (percent agreement 50, Cohen's
    # kappa 30), so nothing of a label family is printed at below-nominal coverage.
    section = family(build_report(_random_basis(25, ["k1", "k2", "k3"], seed=2), FAST),
                     "difficulty")
    assert section["coefficients"]["percent_agreement"]["value"] is not None
    assert all(c["ci95"] is None for c in section["coefficients"].values())
    assert section["bootstrap"] == {"n_cases": 25}

def test_the_same_seed_gives_the_same_report_and_weeks_cross_the_year() -> None:
    basis = _random_basis(30, ["k1", "k2", "k3"], seed=9)
    first, second = build_report(basis, FAST), build_report(basis, FAST)
    assert first == second
    assert [t["week"] for t in first["timeline"]][:2] == ["2024-W52", "2025-W01"]
    assert iso_week(datetime(2024, 12, 30)) == "2025-W01" and iso_week(None) == ""
    assert [a["name"] for a in first["annotators"]] == ["K1", "K2", "K3"]


def test_a_registered_family_is_reported(monkeypatch: pytest.MonkeyPatch) -> None:
    import annotator.agreement.families as module

    monkeypatch.setattr(module, "_REGISTRY", dict(module._REGISTRY))

    def verdict(case: CaseBasis) -> list[tuple[str, dict[str, str | None]]]:
        return [("", {k: m.get("sme_verdict") for k, m in case.labels.items()})]

    register_family(Family("sme_verdict", "SME verdict", "nominal", ("pass", "flag"), "case",
                           "case pairs", verdict))
    cases = tuple(_case(f"c{i}", {"k1": {"sme_verdict": "pass"},
                                  "k2": {"sme_verdict": "pass" if i % 4 else "flag"}},
                        figures=0) for i in range(24))
    report = build_report(ProjectBasis(cases, (), (), 24), FAST)
    section = family(report, "sme_verdict")
    assert section["coefficients"]["percent_agreement"]["value"] == pytest.approx(18 / 24)
    assert section["most_common_disagreement"] == "pass vs flag"
    assert section["confusion"]["matrix"] == [[18, 6], [0, 0]]


def test_an_interval_family_reports_icc_on_rating_slots(monkeypatch: pytest.MonkeyPatch) -> None:
    import annotator.agreement.families as module
    from annotator.agreement.icc import icc

    monkeypatch.setattr(module, "_REGISTRY", {})
    scores = ("0", "1", "2", "3")

    def score(case: CaseBasis) -> list[tuple[str, dict[str, str | None]]]:
        return [("", {k: m.get("sme_score") for k, m in case.labels.items()})]

    register_family(Family("sme_score", "SME score", "interval", scores, "case", "case pairs",
                           score))
    rng = np.random.default_rng(2)
    keys = ["k1", "k2", "k3", "k4"]
    cases, packed = [], []
    for i in range(30):
        truth = int(rng.integers(0, 4))
        chosen = sorted(rng.choice(4, size=2, replace=False))
        values = [min(3, max(0, truth + int(rng.integers(-1, 2)))) for _ in chosen]
        cases.append(_case(f"c{i:02d}", {keys[j]: {"sme_score": str(v)}
                                         for j, v in zip(chosen, values, strict=True)}, 0))
        packed.append(values)
    report = build_report(ProjectBasis(tuple(cases), (), (), 30), FAST)
    section = family(report, "sme_score")
    expected = icc(np.array(packed, dtype=float))
    assert expected is not None
    assert section["icc"]["forms"]["ICC(1,1)"]["value"] == pytest.approx(
        expected["ICC(1,1)"].value)
    assert section["icc"]["ratings_per_unit"] == 2 and "ICC(1," in section["icc"]["valid_form"]
    assert section["kappa_weights"] is None and section["level"] == "interval"


def test_degenerate_and_empty_projects_give_json_without_nan() -> None:
    same = {"difficulty": _imp("hard"), "rarity": _imp("rare"), "rubric_ok:Diagnosis": True}
    cases = tuple(_case(f"c{i}", {"k1": same, "k2": same}, figures=0) for i in range(25))
    report = build_report(ProjectBasis(cases, (), (), 25), FAST)
    json.dumps(report, allow_nan=False)
    difficulty = family(report, "difficulty")["coefficients"]
    assert difficulty["percent_agreement"]["value"] == 1.0
    assert difficulty["krippendorff_alpha"]["value"] is None  # a single value: undefined
    empty = build_report(ProjectBasis((), (), (), 0), FAST)
    json.dumps(empty, allow_nan=False)
    assert all(s["n_units"] == 0 for s in empty["families"])
    assert empty["summary"]["mean_annotations_per_case"] is None


def test_order_coefficients_do_not_depend_on_exam_listing_order() -> None:
    # Issue 16: the same rankings with the exams listed in another order gave other
    # chance-corrected coefficients; each exam pair now counts in both orientations.
    rng = np.random.default_rng(11)
    forward, backward = [], []
    for c in range(30):
        stages = {k: rng.permutation([1, 2, 3, 3]) for k in ("k1", "k2")}
        maps = {k: {f"stage:Figure {i + 1}": _stage(int(s[i])) for i in range(4)}
                for k, s in stages.items()}
        exams = tuple(Exam(f"Figure {i + 1}") for i in range(4))
        forward.append(CaseBasis(f"c{c}", exams, maps, dict.fromkeys(maps)))
        # Another listing (not a plain reversal, which would only swap '<' and '>').
        shuffled = tuple(exams[i] for i in (2, 0, 3, 1))
        backward.append(CaseBasis(f"c{c}", shuffled, maps, dict.fromkeys(maps)))
    options = ReportOptions(n_resamples=50)
    one = family(build_report(ProjectBasis(tuple(forward), (), (), 30), options), "order")
    two = family(build_report(ProjectBasis(tuple(backward), (), (), 30), options), "order")
    for name in ("krippendorff_alpha", "fleiss_kappa", "gwet_ac1", "mean_pairwise_cohen_kappa",
                 "percent_agreement"):
        assert one["coefficients"][name]["value"] == pytest.approx(
            two["coefficients"][name]["value"], abs=1e-12), name
    assert one["n_units"] == 30 * 6 and one["n_rating_pairs"] == 30 * 6
    # The pair minimum counts exam pairs, not orientations: 180 shared pairs < 200.
    strict = ReportOptions(n_resamples=50, min_shared=200)
    few = family(build_report(ProjectBasis(tuple(forward), (), (), 30), strict), "order")
    assert few["coefficients"]["mean_pairwise_cohen_kappa"]["value"] is None
    assert few["pairs"][0]["n_shared"] == 180 and few["pairs"][0]["cohen_kappa"] is None
    assert one["details"]["kendall_tau_b"] == two["details"]["kendall_tau_b"]
