"""Issue 16: a release card and Croissant a reviewer can trust (demo release end to end)."""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import Any

import pytest

from annotator.domain.release_rules import release_warnings
from annotator.export.licences import check_licences, compatible, parse_licence
from annotator.export.validate import validate_release
from annotator.services.demo import CURATOR, build_demo
from annotator.services.export import export_release, preflight
from annotator.store.project import open_project

mlc = pytest.importorskip("mlcroissant")

EURORAD = "CC BY-NC-SA 4.0"


@pytest.mark.parametrize(("source", "release", "expected"), [
    (EURORAD, "CC-BY-4.0", False),  # the demo's old card: drops NC and SA
    (EURORAD, "https://creativecommons.org/licenses/by-nc-sa/4.0/", True),
    (EURORAD, "CC-BY-NC-4.0", False),  # ShareAlike needs the same elements
    ("CC-BY-4.0", "CC-BY-NC-SA-4.0", True),  # attribution kept, terms may be added
    ("CC-BY-NC-4.0", "CC-BY-4.0", False),  # NonCommercial must carry over
    ("CC-BY-ND-4.0", "CC-BY-ND-4.0", False),  # no adaptations at all
    ("CC-BY-SA-4.0", "CC-BY-SA-3.0", False),  # not an earlier ShareAlike version
    ("CC0-1.0", "CC-BY-4.0", True),
    ("MIT (pydicom test data)", "CC-BY-NC-SA-4.0", True),
    ("All rights reserved", "CC-BY-4.0", None),
])
def test_licence_compatibility_rules(source: str, release: str, expected: bool | None) -> None:
    assert compatible(parse_licence(source), parse_licence(release))[0] is expected


def test_licence_check_over_sources() -> None:
    check = check_licences("CC-BY-4.0", {EURORAD: 3, "MIT": 2})
    assert check.verdict is False and check.summary == "NOT compatible with a source licence"
    assert check.lines[0].startswith("CC BY-NC-SA 4.0 (3): NOT compatible: ")
    assert check_licences("CC-BY-NC-SA-4.0", {EURORAD: 3, "MIT": 2}).verdict is True
    assert check_licences("CC-BY-4.0", {"All rights reserved": 1}).verdict is None
    assert check_licences("", {EURORAD: 1}).summary.startswith("not checked")


def test_identical_image_bytes_in_two_exams_warn() -> None:
    case = {"imaging_examinations": [
        {"figure": "Figure 1", "image_paths": ["a.png", "b.png"]},
        {"figure": "Figure 2", "image_paths": ["c.png"]},
        {"figure": "Figure 3", "image_paths": ["d.png"]},
    ]}
    # a and b are the same bytes within one exam (fine); c repeats a in another exam.
    hashes = {"a.png": "1" * 64, "b.png": "1" * 64, "c.png": "1" * 64, "d.png": "2" * 64}
    warnings = release_warnings(case, hashes)
    assert len(warnings) == 1 and warnings[0].startswith("Figure 1, Figure 2: identical image")
    assert release_warnings(case, {**hashes, "c.png": "3" * 64}) == []


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[str]]:
    root = tmp_path_factory.mktemp("demo")
    build_demo(str(root / "project"))
    project = open_project(str(root / "project"))
    try:
        warnings = preflight(project).warnings
        export_release(project, CURATOR, root / "release", version="1.0.0", date="2026-05-06")
    finally:
        project.close()
    return root / "release", warnings


def _card(release: Path) -> str:
    return (release / "BENCHMARK_CARD.md").read_text("utf-8")


def test_demo_croissant_validates_without_warnings(demo: tuple[Path, list[str]]) -> None:
    release, _ = demo
    dataset = mlc.Dataset(jsonld=release / "croissant.json")
    assert dataset.metadata.ctx.issues.errors == set()
    assert dataset.metadata.ctx.issues.warnings == set()
    cases = {c["case_id"]: c for c in json.loads((release / "release.json").read_text("utf-8"))}
    records = list(dataset.records("cases"))
    assert sorted(r["cases/case_id"].decode() for r in records) == sorted(cases)
    for record in records:
        case = cases[record["cases/case_id"].decode()]
        exams = case["imaging_examinations"]
        assert [e["cases/exams/figure"].decode() for e in record["cases/exams"]] == [
            e["figure"] for e in exams]
        assert [e["cases/exams/modality"].decode() for e in record["cases/exams"]] == [
            e["meta_info"]["modality"] for e in exams]
        assert [o["cases/order/preferred_order"] for o in record["cases/order"]] == [
            e["preferred_order"] for e in exams]
        assert [s["cases/steps/essential"].decode() for s in record["cases/steps"]] == [
            s["essential"] for s in case["diagnostic_steps"]]
        rubric = record["cases/rubrics"]
        localisation = case["rubric_0_to_3"]["Localisation"]
        assert rubric["cases/rubrics/localisation_organ_region"].decode() == (
            localisation["reference_answer"]["Organ/Region"])
        assert rubric["cases/rubrics/diagnosis_3"].decode() == case["rubric_0_to_3"][
            "Diagnosis"]["3"]


def test_demo_card_lists_appendix_k_items_and_a_compatible_licence(
    demo: tuple[Path, list[str]],
) -> None:
    release, warnings = demo
    card = _card(release)
    for row in ("| Source licence | CC-BY-NC-SA-4.0 |", "| Source publication dates |",
                "| Issue contact | https://", "| Validation status |",
                "| Leakage-audit status | Not audited",
                "| Licence compatibility | compatible with every source licence |",
                "| Release date | 2026-05-06 |"):
        assert row in card, row
    assert "## Licence compatibility" in card and "## Known biases" in card
    assert "NOT compatible" not in card
    assert not [w for w in warnings if "licence" in w]
    assert validate_release(release) == []


def test_demo_rai_biases_differ_from_limitations(demo: tuple[Path, list[str]]) -> None:
    doc: dict[str, Any] = json.loads((demo[0] / "croissant.json").read_text("utf-8"))
    assert doc["rai:dataBiases"] != doc["rai:dataLimitations"]
    assert "publication bias" in doc["rai:dataBiases"][0]
    assert any(text.startswith("Leakage audit: ") for text in doc["rai:dataLimitations"])
    assert doc["datePublished"] == "2026-05-06"


def test_demo_agreement_report_is_on_released_cases_and_names_its_kappa(
    demo: tuple[Path, list[str]],
) -> None:
    release, _ = demo
    released = {c["case_id"] for c in json.loads((release / "release.json").read_text("utf-8"))}
    text = (release / "agreement/agreement.json").read_text("utf-8")
    report = json.loads(text)
    named = {c["case_id"] for s in report["families"] for c in s["top_cases"]}
    named |= {c["case_id"] for c in report["top_cases"]}
    named |= {e["case_id"] for e in report["basis"]["excluded_cases"]}
    named |= {e["case_id"] for e in report["basis"]["excluded_exams"]}
    assert named <= released
    for other in ("demo-005", "demo-006", "demo-007", "demo-008"):  # held back or excluded
        assert other not in released and other not in text
    assert report["basis"]["cases_total"] == len(released)
    definition = "linear-weighted Cohen's kappa, mean over annotator pairs"
    assert report["basis"]["options"]["kappa_definition"] == definition
    assert definition in report["basis"]["statement"]
    assert escape(definition) in (release / "agreement/agreement.html").read_text("utf-8")
    assert f"Kappa: {definition}." in _card(release)
