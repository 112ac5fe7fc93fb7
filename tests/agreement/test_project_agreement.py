"""The project agreement report end to end: a seeded 110-case project built through the
services, checked against an independent recomputation (sklearn, krippendorff, scipy and
plain Python over the labels the test itself submitted), the command line and the page."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from datetime import datetime, timedelta
from itertools import combinations
from pathlib import Path
from typing import Any

import krippendorff
import numpy as np
import pytest
from scipy.stats import bootstrap, kendalltau
from sklearn.metrics import cohen_kappa_score

from annotator import cli
from annotator.agreement.report import family
from annotator.domain.labels import DIFFICULTY, IMPORTANCE, RARITY, LabelEdit
from annotator.errors import PermissionDenied
from annotator.services import annotating, kinds
from annotator.services.agreement import agreement_report
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.rating import engine as rating_engine
from annotator.services.review import decisions
from annotator.services.users import add_user
from annotator.store.project import Project, open_project
from factories import make_case, write_case_file

N_CASES = 110
NAMES = ("a1", "a2", "a3", "a4")
START = datetime(2025, 3, 3, 9, 0)  # a Monday: ISO week 2025-W10


def _case(i: int, rng: np.random.Generator) -> dict[str, Any]:
    """3-5 exams; about one case in four has a follow-up or a non-imaging exam."""
    n = int(rng.integers(3, 6))
    exams, steps = [], []
    for e in range(1, n + 1):
        meta = {"modality": "MRI", "acquisition": "T2", "view": "axial",
                "imaged_region": "brain", "contrast": "non-contrast", "time_past": None}
        if e == n and i % 5 == 0:
            meta["time_past"] = -3
        if e == n and i % 7 == 3:
            meta["modality"] = "Clinical photo"
        exams.append({"figure": f"Figure {e}", "preferred_order": e,
                      "image_caption": f"Exam {e}.", "meta_info": meta,
                      "image_paths": [f"img/f{(e - 1) % 3 + 1}.png"], "key_findings": ["x"]})
        steps.append({"source": f"Figure {e}", "essential": "essential", "step": f"s{e}",
                      "reason": "r"})
    return make_case(f"C{i:03d}", imaging_examinations=exams, diagnostic_steps=steps)


def _noisy(rng: np.random.Generator, truth: int, keep: float = 0.7) -> int:
    return truth if rng.random() < keep else int(rng.integers(0, 3))


def _labels(rng: np.random.Generator, figures: list[str], truth: dict[str, Any]) -> dict[
    str, Any
]:
    labels: dict[str, Any] = {}
    for fig in figures:
        labels[f"importance:{fig}"] = {"value": IMPORTANCE[_noisy(rng, truth[fig][0])],
                                       "how": "set"}
        stage = truth[fig][1] if rng.random() < 0.8 else int(rng.integers(1, 4))
        labels[f"stage:{fig}"] = {"value": None if rng.random() < 0.05 else stage, "how": "set"}
        if rng.random() < 0.8:
            labels[f"meta_ok:{fig}"] = bool(rng.random() < 0.85)
    labels["difficulty"] = {"value": DIFFICULTY[_noisy(rng, truth["difficulty"])], "how": "set"}
    labels["rarity"] = {"value": RARITY[_noisy(rng, truth["rarity"], 0.6)], "how": "set"}
    labels["rubric_ok:Diagnosis"] = bool(rng.random() < 0.9)
    labels["rubric_ok:Localisation"] = bool(rng.random() < 0.75)
    if rng.random() < 0.1:
        labels["meta:Figure 1/contrast"] = "post-contrast"
    return labels


class Built:
    """The project and what the test submitted: the ground truth of the recomputation."""

    def __init__(self, project: Project, location: str) -> None:
        self.project = project
        self.location = location
        self.figures: dict[str, list[str]] = {}
        self.used: dict[str, list[str]] = {}
        self.submitted: dict[str, dict[str, dict[str, Any]]] = {}  # case -> name -> labels
        self.when: dict[str, dict[str, datetime]] = {}
        self.excluded: set[str] = set()
        self.unfinished: set[str] = set()


def build_project(root: Path) -> Built:
    """The seeded synthetic project (also used to render the page for a screenshot)."""
    rng = np.random.default_rng(7)
    project = open_project(root / "project")
    add_user(project, "(setup)", "cu", ["curator"])
    for name in NAMES:
        add_user(project, "cu", name, ["annotator"])
    add_user(project, "cu", "adj", ["adjudicator"])
    cases = [_case(i, rng) for i in range(N_CASES)]
    report = import_cases(project, "cu", [write_case_file(root / "drafts", cases)])
    assert report.count("added") == N_CASES
    ids = [c["case_id"] for c in cases]
    placed = assign(project, "cu", 3, case_ids=ids[:85]).assigned
    placed += assign(project, "cu", 2, case_ids=ids[85:]).assigned
    data = Built(project, str(root / "project"))
    for case in cases:
        figs = [e["figure"] for e in case["imaging_examinations"]]
        data.figures[case["case_id"]] = figs
        data.used[case["case_id"]] = [
            e["figure"] for e in case["imaging_examinations"]
            if e["meta_info"]["time_past"] != -3 and e["meta_info"]["modality"] == "MRI"]
    truths = {
        cid: {**{f: (int(rng.integers(0, 3)), int(rng.integers(1, 4))) for f in figs},
              "difficulty": int(rng.integers(0, 3)), "rarity": int(rng.integers(0, 3))}
        for cid, figs in data.figures.items()
    }
    clock = {"now": START}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(rating_engine, "utcnow", lambda: clock["now"])  # the submit time
        for n, (cid, name) in enumerate(placed):
            index = int(cid[1:])
            if index % 37 == 5 and name == min(a for c, a in placed if c == cid):
                data.unfinished.add(cid)  # one annotator never submits: still annotating
                continue
            if index % 19 == 4 and name == min(a for c, a in placed if c == cid):
                labels: dict[str, Any] = {"discard": {"reason_code": "image_quality",
                                                      "text": "blurred"}}
            else:
                labels = _labels(rng, data.figures[cid], truths[cid])
            if index % 2 == 0:  # half the time through "accept suggestions", then edits
                annotating.accept_suggestions(project, name, cid)
            edits = [LabelEdit(k, v) for k, v in labels.items()]
            kinds.CASES.set_fields(project, name, cid, edits)
            clock["now"] = START + timedelta(days=index // 4, minutes=n)
            kinds.CASES.submit(project, name, cid)
            final = annotating.view(project, name, cid).labels
            data.submitted.setdefault(cid, {})[name] = final
            data.when.setdefault(cid, {})[name] = clock["now"]
    for cid in ("C010", "C061"):
        decisions.exclude(project, "adj", cid, "duplicate of another case")
        data.excluded.add(cid)
    return data


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Built]:
    data = build_project(tmp_path_factory.mktemp("agreement-project"))
    yield data
    data.project.close()


@pytest.fixture(scope="module")
def report(built: Built) -> dict[str, Any]:
    return agreement_report(built.project, "cu")


# --- independent recomputation -------------------------------------------------------------


def _contributing(built: Built) -> list[str]:
    return sorted(c for c in built.submitted
                  if c not in built.excluded and c not in built.unfinished
                  and len(built.submitted[c]) >= 2)


def _plain(entry: Any) -> Any:
    return entry.get("value") if isinstance(entry, dict) and "how" in entry else entry


def _units(built: Built, read: Any, items: Any) -> list[tuple[str, dict[str, Any]]]:
    """(case, {annotator name: label}) per unit rated by at least two annotators."""
    out = []
    for cid in _contributing(built):
        for item in items(cid):
            values = {n: read(m, item) for n, m in built.submitted[cid].items()}
            values = {n: v for n, v in values.items() if v is not None}
            if len(values) >= 2:
                out.append((cid, values))
    return out


def _pooled(units: list[tuple[str, dict[str, Any]]]) -> float:
    agree = total = 0
    for _, values in units:
        for a, b in combinations(sorted(values), 2):
            total += 1
            agree += values[a] == values[b]
    return agree / total


def _importance_units(built: Built) -> list[tuple[str, dict[str, Any]]]:
    def read(m: dict[str, Any], fig: str) -> Any:
        value = _plain(m.get(f"importance:{fig}"))
        return None if value is None else IMPORTANCE.index(value)

    return _units(built, read, lambda cid: built.used[cid])


def test_report_is_json_without_nan(report: dict[str, Any]) -> None:
    text = json.dumps(report, allow_nan=False)
    assert json.loads(text) == report
    assert {f["id"] for f in report["families"]} >= {
        "importance", "importance_essential", "order", "difficulty", "rarity", "discard",
        "meta_ok", "rubric_ok"}


def test_basis_states_exclusions_with_reasons(built: Built, report: dict[str, Any]) -> None:
    basis = report["basis"]
    contributing = _contributing(built)
    assert basis["cases_total"] == N_CASES
    assert basis["cases_included"] == len(contributing) >= 100
    reasons = {e["case_id"]: e["reason"] for e in basis["excluded_cases"]}
    assert {c for c, r in reasons.items() if r == "case_excluded"} == built.excluded
    assert {c for c, r in reasons.items() if r == "still_annotating"} == built.unfinished
    expected_exams = {(c, f) for c in contributing for f in built.figures[c]
                      if f not in built.used[c]}
    assert {(e["case_id"], e["figure"]) for e in basis["excluded_exams"]} == expected_exams
    assert {e["reason"] for e in basis["excluded_exams"]} == {"follow_up", "non_imaging"}
    assert "before adjudication" in basis["statement"]
    assert basis["annotations"] == sum(len(built.submitted[c]) for c in contributing)


def test_importance_matches_independent_recomputation(built: Built,
                                                      report: dict[str, Any]) -> None:
    units = _importance_units(built)
    section = family(report, "importance")
    coef = section["coefficients"]
    assert section["n_units"] == len(units)
    assert coef["percent_agreement"]["value"] == pytest.approx(_pooled(units), abs=1e-12)
    names = sorted(NAMES)
    data = np.array([[u.get(n, np.nan) for _, u in units] for n in names], dtype=float)
    expected_alpha = krippendorff.alpha(reliability_data=data, level_of_measurement="ordinal",
                                        value_domain=[0, 1, 2])
    assert coef["krippendorff_alpha"]["value"] == pytest.approx(expected_alpha, abs=1e-9)
    # 2 or 3 raters per unit: Fleiss' kappa in Gwet's generalisation (Gwet 2014, ch. 2),
    # recomputed here unit by unit in plain Python.
    shares, agree = [], []
    for _, u in units:
        ratings = list(u.values())
        r = len(ratings)
        counts = [ratings.count(c) for c in range(3)]
        shares.append([c / r for c in counts])
        agree.append(sum(c * (c - 1) for c in counts) / (r * (r - 1)))
    pi = [sum(s[c] for s in shares) / len(shares) for c in range(3)]
    pa, pe = sum(agree) / len(agree), sum(p * p for p in pi)
    assert coef["fleiss_kappa"]["value"] == pytest.approx((pa - pe) / (1 - pe), abs=1e-12)
    # Cohen's kappa per pair of names (sklearn, full label set, linear weights).
    label_of = {a["name"]: a["label"] for a in report["annotators"]}
    kappas = []
    for a, b in combinations(names, 2):
        shared = [(u[a], u[b]) for _, u in units if a in u and b in u]
        pair = next(p for p in section["pairs"]
                    if {p["first"], p["second"]} == {label_of[a], label_of[b]})
        assert pair["n_shared"] == len(shared) >= 30
        x, y = zip(*shared, strict=True)
        expected = cohen_kappa_score(x, y, labels=[0, 1, 2], weights="linear")
        assert pair["cohen_kappa"] == pytest.approx(expected, abs=1e-9)
        assert pair["agreement"] == pytest.approx(np.mean(np.equal(x, y)), abs=1e-12)
        kappas.append(expected)
    assert coef["mean_pairwise_cohen_kappa"]["value"] == pytest.approx(np.mean(kappas))
    # Gwet's AC1 and PABAK from their textbook formulas.
    pa_units, shares = [], np.zeros(3)
    for _, u in units:
        counts = np.bincount(list(u.values()), minlength=3)
        m = counts.sum()
        pa_units.append((counts * (counts - 1)).sum() / (m * (m - 1)))
        shares += counts / m
    pi = shares / len(units)
    pe = (pi * (1 - pi)).sum() / 2
    assert coef["gwet_ac1"]["value"] == pytest.approx((np.mean(pa_units) - pe) / (1 - pe))
    assert coef["pabak"]["value"] == pytest.approx((3 * _pooled(units) - 1) / 2)


def test_confidence_interval_is_a_case_bootstrap(built: Built, report: dict[str, Any]) -> None:
    """Resample cases naively (scipy's BCa, same seed) and recompute from the raw pairs."""
    units = _importance_units(built)
    cases = list(dict.fromkeys(c for c, _ in units))
    per_case = {c: [0, 0] for c in cases}
    for cid, values in units:
        for a, b in combinations(sorted(values), 2):
            per_case[cid][0] += values[a] == values[b]
            per_case[cid][1] += 1
    def pooled(draw: np.ndarray) -> float:
        agree = sum(per_case[cases[int(i)]][0] for i in draw)
        total = sum(per_case[cases[int(i)]][1] for i in draw)
        return agree / total

    # scipy's BCa draws the app's resamples: rng(0).integers(0, n, (1000, n)).
    found = bootstrap((np.arange(len(cases)),), pooled, n_resamples=1000, method="BCa",
                      vectorized=False, random_state=np.random.default_rng(0))
    ci = family(report, "importance")["coefficients"]["percent_agreement"]["ci95"]
    assert ci == pytest.approx([found.confidence_interval.low, found.confidence_interval.high],
                               abs=1e-12)
    for section in report["families"]:
        alpha_ci = section["coefficients"]["krippendorff_alpha"]["ci95"]
        if section["bootstrap"]["n_cases"] < 100:  # alpha's stated minimum
            assert alpha_ci is None
        elif section["id"] != "discard":  # rare discards: a resample may have no variation
            assert alpha_ci is not None


def _dense(board: dict[str, Any], figures: list[str]) -> dict[str, int | None]:
    stages = {f: _plain(board.get(f"stage:{f}")) for f in figures}
    ranks = {s: i + 1 for i, s in enumerate(sorted({s for s in stages.values() if s}))}
    return {f: (ranks[s] if s else None) for f, s in stages.items()}


def test_order_matches_independent_recomputation(built: Built, report: dict[str, Any]) -> None:
    agree = total = strict = strict_agree = disagreeing_boards = 0
    case_taus, undefined = [], 0
    # Both orientations of every exam pair, one column per annotator: '<' 0, '=' 1, '>' 2.
    both_ways: list[dict[str, float]] = []
    for cid in _contributing(built):
        figs = built.used[cid]
        boards = {n: _dense(m, figs) for n, m in built.submitted[cid].items()}
        for f, g in combinations(figs, 2):
            rel = {n: float(np.sign(b[f] - b[g]) + 1) for n, b in boards.items() if b[f] and b[g]}
            if len(rel) >= 2:
                both_ways += [rel, {n: 2 - v for n, v in rel.items()}]
        taus, pairs_here = [], 0
        for a, b in combinations(sorted(boards), 2):
            ranked = [f for f in figs if boards[a][f] and boards[b][f]]
            differ = False
            for f, g in combinations(ranked, 2):
                ra = np.sign(boards[a][f] - boards[a][g])
                rb = np.sign(boards[b][f] - boards[b][g])
                total += 1
                pairs_here += 1
                agree += ra == rb
                differ = differ or ra != rb
                if ra != 0 or rb != 0:
                    strict += 1
                    strict_agree += ra == rb
            disagreeing_boards += differ
            x = [boards[a][f] for f in ranked]
            y = [boards[b][f] for f in ranked]
            if len(ranked) >= 2 and len(set(x)) > 1 and len(set(y)) > 1:
                taus.append(kendalltau(x, y).statistic)
        if pairs_here:
            if taus:
                case_taus.append(float(np.mean(taus)))
            else:
                undefined += 1
    section = family(report, "order")
    assert section["n_rating_pairs"] == total
    assert section["coefficients"]["percent_agreement"]["value"] == pytest.approx(agree / total)
    details = section["details"]
    assert details["strict_agreement"]["value"] == pytest.approx(strict_agree / strict)
    assert details["kendall_tau_b"]["mean"] == pytest.approx(np.mean(case_taus))
    assert details["kendall_tau_b"]["n_undefined"] == undefined
    assert sum(details["pair_disagreement_types"].values()) == total - agree
    # One type per annotator pair and case whose rankings differ (issue 16).
    assert sum(details["disagreement_types"].values()) == disagreeing_boards
    assert section["most_common_disagreement"] in (
        "tie vs strict order", "adjacent-rank swap", "reversal",
        "reordering (an exam moved 2+ stages)")
    # Chance-corrected coefficients count each exam pair in both orientations.
    data = np.array([[u.get(n, np.nan) for u in both_ways] for n in sorted(NAMES)])
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal",
                                  value_domain=[0, 1, 2])
    assert section["coefficients"]["krippendorff_alpha"]["value"] == pytest.approx(
        expected, abs=1e-9)


@pytest.mark.parametrize("fid, key, labels", [
    ("difficulty", "difficulty", DIFFICULTY),
    ("rarity", "rarity", RARITY),
])
def test_case_labels_match_sklearn(built: Built, report: dict[str, Any], fid: str, key: str,
                                   labels: tuple[str, ...]) -> None:
    units = _units(built, lambda m, _i: (None if (v := _plain(m.get(key))) is None
                                         else labels.index(v)), lambda _c: [""])
    section = family(report, fid)
    assert section["coefficients"]["percent_agreement"]["value"] == pytest.approx(_pooled(units))
    label_of = {a["name"]: a["label"] for a in report["annotators"]}
    for pair in section["pairs"]:
        a, b = (n for n in NAMES if label_of[n] in (pair["first"], pair["second"]))
        shared = [(u[a], u[b]) for _, u in units if a in u and b in u]
        assert pair["n_shared"] == len(shared)
        if len(shared) < 30:
            assert pair["cohen_kappa"] is None and "n/a" in pair["kappa_note"]
        else:
            x, y = zip(*shared, strict=True)
            assert pair["cohen_kappa"] == pytest.approx(
                cohen_kappa_score(x, y, labels=[0, 1, 2], weights="linear"))
    conflicts = sum(len(set(u.values())) > 1 for _, u in units)
    assert section["conflict_cases"] == conflicts


def test_flags_and_discard_match(built: Built, report: dict[str, Any]) -> None:
    discard = _units(built, lambda m, _i: "discard" in m, lambda _c: [""])
    assert family(report, "discard")["coefficients"]["percent_agreement"]["value"] == (
        pytest.approx(_pooled(discard)))
    meta = _units(built, lambda m, f: m.get(f"meta_ok:{f}"), lambda c: built.used[c])
    section = family(report, "meta_ok")
    assert section["n_units"] == len(meta)
    assert section["coefficients"]["percent_agreement"]["value"] == pytest.approx(_pooled(meta))
    rubric = _units(built, lambda m, p: m.get(f"rubric_ok:{p}"),
                    lambda _c: ["Diagnosis", "Localisation"])
    names = sorted(NAMES)
    data = np.array([[{True: 0, False: 1}.get(u.get(n), np.nan) for _, u in rubric]
                     for n in names], dtype=float)
    expected = krippendorff.alpha(reliability_data=data, level_of_measurement="nominal",
                                  value_domain=[0, 1])
    assert family(report, "rubric_ok")["coefficients"]["krippendorff_alpha"]["value"] == (
        pytest.approx(expected))


def test_monitoring_and_timeline(built: Built, report: dict[str, Any]) -> None:
    contributing = _contributing(built)
    by_name = {a["name"]: a for a in report["annotators"]}
    assert [a["label"] for a in report["annotators"]] == [
        f"Annotator {i}" for i in range(1, len(NAMES) + 1)]
    for name in NAMES:
        mine = [c for c in built.submitted if name in built.submitted[c]]
        assert by_name[name]["submitted"] == len(mine)
        assert by_name[name]["in_basis"] == sum(name in built.submitted[c] for c in contributing)
    entered = {c: max(built.when[c].values()) for c in contributing}
    weeks = {f"{t.isocalendar()[0]}-W{t.isocalendar()[1]:02d}" for t in entered.values()}
    assert [t["week"] for t in report["timeline"]] == sorted(weeks)
    assert sum(t["n_cases"] for t in report["timeline"]) == len(contributing)
    assert report["summary"]["cases_with_draft_corrections"] == sum(
        any("meta:Figure 1/contrast" in m for m in built.submitted[c].values())
        for c in contributing)
    top = report["top_cases"]
    assert top and top[0]["disagreeing_pairs"] >= top[-1]["disagreeing_pairs"]


def test_non_curator_is_refused(built: Built) -> None:
    for who in ("a1", "adj", "nobody"):
        with pytest.raises(PermissionDenied, match="curator|not a user"):
            agreement_report(built.project, who)


# --- command line --------------------------------------------------------------------------


def test_cli_json_equals_the_service_report(
    built: Built, report: dict[str, Any], capsys: pytest.CaptureFixture[str],
) -> None:
    assert cli.main(["--project", built.location, "--as", "cu", "agreement", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == report


def test_cli_text_output_lists_every_family(report: dict[str, Any],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    from annotator.cli.agreement import _print_tables

    _print_tables(report)
    out = capsys.readouterr().out
    assert out.startswith(report["basis"]["statement"])
    for section in report["families"]:
        pa = section["coefficients"]["percent_agreement"]["value"]
        if section["id"] == "order":  # headline: strict pairwise agreement (issue 16)
            pa = section["details"]["strict_agreement"]["value"]
        assert f"{section['title']}: {100 * pa:.1f}%" in out


def test_cli_writes_csv_and_html_and_refuses_annotators(
    built: Built, report: dict[str, Any], tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    import csv

    args = ["--project", built.location, "--as", "cu", "agreement"]
    assert cli.main([*args, "--csv", str(tmp_path / "t8.csv")]) == 0
    rows = list(csv.reader((tmp_path / "t8.csv").open(encoding="utf-8")))
    assert rows[0][:7] == ["Label family", "Annotator agreement", "95% CI", "Agreement metric",
                           "Common disagreement type", "Resolved by meta-review?", "Notes"]
    by_title = {r[0]: r for r in rows[1:]}
    pa = family(report, "importance")["coefficients"]["percent_agreement"]
    assert by_title["Step importance"][1] == f"{100 * pa['value']:.1f}%"
    assert cli.main([*args, "--html", str(tmp_path / "r.html")]) == 0
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert html.count("<svg") == len(report["families"]) + 2 and "Table 8" in html
    capsys.readouterr()
    refused = ["--project", built.location, "--as", "a2", "agreement", "--json"]
    assert cli.main(refused) == cli.EXIT_ERROR
    err = capsys.readouterr().err
    assert "curator" in err and "Traceback" not in err
    assert math.isfinite(pa["value"])


# --- the page --------------------------------------------------------------------------------


def _expected_text(key: str, coef: dict[str, Any]) -> str:
    value, ci = coef["value"], coef["ci95"]
    if key in ("percent_agreement", "unanimity"):
        first = "n/a" if value is None else f"{100 * value:.1f}%"
        second = "n/a" if ci is None else f"[{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]"
    else:
        first = "n/a" if value is None else f"{value:.3f}"
        second = "n/a" if ci is None else f"[{ci[0]:.3f}, {ci[1]:.3f}]"
    return f"{first}\n{second}"


@pytest.mark.gui
def test_page_shows_the_numbers_of_the_json(built: Built, report: dict[str, Any], qtbot: Any,
                                            qtmodeltester: Any, tmp_path: Path) -> None:
    from PySide6.QtCore import Qt

    from annotator.gui.context import GuiContext
    from annotator.gui.pages.agreement import Page
    from annotator.gui.pages.agreement_models import COLUMNS

    page = Page(GuiContext(built.project, "cu"))
    qtbot.addWidget(page)
    page.resize(1450, 950)
    assert page.ready() and page.report is None  # nothing is computed before it is shown
    with qtbot.waitSignal(page.report_ready, timeout=60_000):
        page.show()
        assert not page.ready()
    assert page.ready()
    model = page.table_model
    qtmodeltester.check(model)
    assert model.rowCount() == len(report["families"])
    for row, section in enumerate(report["families"]):
        assert model.data(model.index(row, 0), Qt.ItemDataRole.UserRole) == section["id"]
        for col, (key, _title) in enumerate(COLUMNS):
            if key in section["coefficients"]:
                index = model.index(row, col)
                coef = section["coefficients"][key]
                assert model.data(index, Qt.ItemDataRole.UserRole) == coef
                assert model.data(index) == _expected_text(key, coef)
    # The pair matrix follows the selected family.
    order_row = [s["id"] for s in report["families"]].index("order")
    page.table.selectRow(order_row)
    pairs = page.pair_model
    qtmodeltester.check(pairs)
    section = family(report, "order")
    assert pairs.rowCount() == len({p["first"] for p in section["pairs"]}
                                   | {p["second"] for p in section["pairs"]})
    cell = pairs.data(pairs.index(0, 1), Qt.ItemDataRole.UserRole)
    assert cell in section["pairs"]
    assert f"(n={cell['n_shared']})" in pairs.data(pairs.index(0, 1))
    assert page.chart.renderer().isValid()
    assert page.tabs.count() == 5
    assert page.table7.item(0, 1).text() == str(report["summary"]["annotations"])
    page.export_csv(tmp_path / "page.csv")
    assert (tmp_path / "page.csv").read_text(encoding="utf-8").startswith("Label family,")
    requested: list[str] = []
    page.case_requested.connect(requested.append)
    page.cases.cellDoubleClicked.emit(0, 0)
    assert requested == [report["top_cases"][0]["case_id"]]


@pytest.mark.gui
def test_page_shows_point_estimates_before_the_intervals(
    built: Built, report: dict[str, Any], qtbot: Any
) -> None:
    from annotator.gui.context import GuiContext
    from annotator.gui.pages.agreement import Page

    page = Page(GuiContext(built.project, "cu"))
    qtbot.addWidget(page)
    seen: list[tuple[Any, ...]] = []
    page.estimates_ready.connect(lambda found: seen.append(
        (found, page.report, page.stack.currentWidget() is page.message, page.message.text(),
         page.ready())))
    with qtbot.waitSignal(page.report_ready, timeout=60_000):
        page.show()
    [(found, report_then, message_shown, text, ready_then)] = seen
    assert report_then is None and message_shown and not ready_then  # the report comes later
    assert text.startswith("Point estimates (the 95% intervals are being computed)")
    for mine, section in zip(found["families"], report["families"], strict=True):
        assert f"{section['title']} ({section['n_units']} units)" in text
        for name, coef in section["coefficients"].items():
            assert mine["coefficients"][name] == pytest.approx(coef["value"], abs=1e-12)
    assert page.report == report and page.stack.currentWidget() is page.tabs


@pytest.mark.gui
def test_page_refuses_a_non_curator(built: Built, qtbot: Any) -> None:
    from annotator.gui.context import GuiContext
    from annotator.gui.pages.agreement import Page

    page = Page(GuiContext(built.project, "a1"))
    qtbot.addWidget(page)
    with qtbot.waitSignal(page.refused, timeout=30_000) as refused:
        page.show()
    assert "curator" in refused.args[0]
    assert "curators only" in page.message.text()
    assert page.stack.currentWidget() is page.message
    assert page.table_model.rowCount() == 0 and page.report is None
    assert not page.csv_button.isEnabled() and not page.html_button.isEnabled()


@pytest.mark.gui
def test_a_late_result_is_dropped_after_shutdown(built: Built, qtbot: Any) -> None:
    from PySide6.QtCore import QCoreApplication, QThreadPool

    from annotator.gui.context import GuiContext
    from annotator.gui.pages.agreement import Page

    page = Page(GuiContext(built.project, "cu"))
    qtbot.addWidget(page)
    shown: list[dict[str, Any]] = []
    page.report_ready.connect(shown.append)
    page.refresh()
    page.shutdown()
    assert QThreadPool.globalInstance().waitForDone(60_000)
    QCoreApplication.processEvents()
    assert shown == [] and page.report is None and page.ready()


@pytest.mark.gui
def test_main_window_screenshot(built: Built, qtbot: Any, tmp_path: Path) -> None:
    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow

    window = MainWindow(GuiContext(built.project, "cu"))
    qtbot.addWidget(window)
    window.resize(1600, 1000)
    page = window.page("agreement")
    with qtbot.waitSignal(page.report_ready, timeout=60_000):
        window.show()
        window.show_page("agreement")
    image = window.grab()
    assert image.save(str(tmp_path / "agreement.png"))
    assert (image.width(), image.height()) == (1600, 1000)
