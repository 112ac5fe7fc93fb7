"""The release a seeded project exports: the contract's shape, types and content."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from annotator.export.errors import ExportError
from annotator.export.layout import read_csv, safe_case_dir
from annotator.export.model import PROVENANCE_KEY, round_trip
from annotator.export.validate import release_history_head, validate_release
from annotator.store.schema import HistoryEntry
from chain_support import without_history_head
from conftest import CURATOR, PHYSICIANS, SENIOR


def _cases(folder: Path) -> list[dict[str, Any]]:
    data: list[dict[str, Any]] = json.loads((folder / "release.json").read_text("utf-8"))
    return data


def _by_id(folder: Path) -> dict[str, dict[str, Any]]:
    return {c["case_id"]: c for c in _cases(folder)}


def _exams(case: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {e["figure"]: e for e in case["imaging_examinations"]}


def _type_shape(value: Any, template: Any, where: str = "") -> list[str]:
    """Where ``value`` lacks a key of ``template`` or has another JSON type (extra keys ok)."""
    if isinstance(template, dict):
        if not isinstance(value, dict):
            return [f"{where}: object expected"]
        found = []
        for key, inner in template.items():
            if key not in value:
                found.append(f"{where}.{key}: missing")
            else:
                found += _type_shape(value[key], inner, f"{where}.{key}")
        return found
    if isinstance(template, list):
        if not isinstance(value, list):
            return [f"{where}: array expected"]
        return [p for item in value for p in _type_shape(item, template[0], f"{where}[]")]
    if template is None or value is None:
        return []  # null stands for "no value" in either file
    kind = next(k for k in (bool, int, float, str) if isinstance(template, k))
    return [] if type(value) is kind else [f"{where}: {kind.__name__} expected"]


# Differences the contract allows: the fixture's own extra key, key_findings as one string.
ALLOWED = {".provenance: missing", ".imaging_examinations[].key_findings: array expected"}


def test_release_round_trips_through_the_model(exported: Path) -> None:
    for case in _cases(exported):
        assert round_trip(case) == case


def test_release_has_the_fixture_keys_and_json_types(
    exported: Path, fixture_release: list[dict[str, Any]]
) -> None:
    for case in _cases(exported):
        problems = set(_type_shape(case, fixture_release[0])) - ALLOWED
        assert problems == set(), (case["case_id"], problems)
    wrong = _cases(exported)[0]
    wrong["imaging_examinations"][0]["preferred_order"] = "1"
    assert set(_type_shape(wrong, fixture_release[0])) - ALLOWED == {
        ".imaging_examinations[].preferred_order: int expected"}


def test_only_green_lit_cases_are_released(exported: Path) -> None:
    assert sorted(_by_id(exported)) == ["R1", "R2", "case 3"]
    excluded = read_csv((exported / "excluded.csv").read_bytes())
    assert excluded == [{"case_id": "X1", "reason_code": "image_quality",
                         "reason": "discard upheld: Key image unusable."}]
    text = (exported / "release.json").read_text("utf-8")
    assert '"X1"' not in text and '"H1"' not in text


def test_ties_follow_ups_and_priors_keep_their_values_and_types(exported: Path) -> None:
    exams = _exams(_by_id(exported)["R1"])
    stages = {f: e["preferred_order"] for f, e in exams.items()}
    assert stages == {"Figure 1": 1, "Figure 2": 2, "Figure 3": 2, "Figure 4": 3}
    assert all(type(s) is int for s in stages.values())
    assert exams["Figure 3"]["meta_info"]["time_past"] == -3
    assert type(exams["Figure 3"]["meta_info"]["time_past"]) is int
    assert type(exams["Figure 2"]["meta_info"]["time_past"]) is int
    assert exams["Figure 2"]["meta_info"]["time_past"] == 6


def test_one_step_per_exam_with_final_importance(exported: Path) -> None:
    cases = _by_id(exported)
    r1 = cases["R1"]
    assert [s["source"] for s in r1["diagnostic_steps"]] == list(_exams(r1))
    assert [s["essential"] for s in r1["diagnostic_steps"]] == [
        "essential", "essential", "optional", "unnecessary"]
    # R2's conflict on Figure 3 was adjudicated to optional
    assert cases["R2"]["diagnostic_steps"][2]["essential"] == "optional"


def test_draft_keys_come_back_unchanged(exported: Path) -> None:
    r1 = _by_id(exported)["R1"]
    # Changed (issue 16): the unredacted source history is withheld by default.
    assert "original_clinical_history" not in r1
    card = (exported / "BENCHMARK_CARD.md").read_text("utf-8")
    assert "`original_clinical_history` (the source's unredacted case text) is NOT released" in (
        card)
    assert r1["image_detail"] == {"Figure 1": "C2-C6 central T2 signal."}
    assert _exams(r1)["Figure 3"]["key_findings"] == "no lesions"
    keys = list(r1)
    assert keys[:3] == ["case_id", "case_title", "section"] and keys[-1] == PROVENANCE_KEY


def test_image_paths_are_rewritten_and_dicom_ships_as_png(exported: Path) -> None:
    cases = _by_id(exported)
    r1 = cases["R1"]
    assert _exams(r1)["Figure 4"]["image_paths"] == ["images/R1/figure_4-1.png"]
    assert [i["path"] for i in r1["images"]] == [
        "images/R1/figure_1-1.png", "images/R1/figure_2-1.png", "images/R1/figure_3-1.png",
        "images/R1/figure_4-1.png"]
    assert (exported / "images/R1/figure_4-1.png").read_bytes().startswith(b"\x89PNG\r\n\x1a\n")
    assert not list(exported.rglob("*.dcm"))
    folder = safe_case_dir("case 3")
    assert folder.startswith("case_3-")
    assert _exams(cases["case 3"])["Figure 1"]["image_paths"] == [f"images/{folder}/figure_1-1.png"]
    rows = {r["path"]: r for r in read_csv((exported / "images.csv").read_bytes())}
    dicom = rows["images/R1/figure_4-1.png"]
    assert dicom["rendered_from"] == "DICOM" and dicom["render_policy"] == "single frame"
    assert dicom["media_type"] == "image/png" and dicom["frames"] == "1"
    assert float(dicom["window_width"]) > 0
    assert rows["images/R1/figure_1-1.png"]["rendered_from"] == ""
    assert rows["images/R1/figure_1-1.png"]["source_case_url"] == "https://example.org/case/T1"
    tsv = (exported / "ATTRIBUTION.tsv").read_text("utf-8").splitlines()
    assert tsv[0] == "path\tcase_id\tsource_url\tauthor\tlicense"
    assert "images/R1/figure_4-1.png\tR1\thttps://example.org/f4\tTest\tCC0-1.0" in tsv


def test_provenance_is_pseudonymous_and_without_comments(exported: Path) -> None:
    text = (exported / "release.json").read_text("utf-8")
    for name in (CURATOR, SENIOR, *PHYSICIANS):
        assert name not in text
    assert "Checked the FLAIR twice." not in text
    assert "FLAIR does not change the workup." not in text
    r2 = _by_id(exported)["R2"][PROVENANCE_KEY]
    assert len(r2["reviewers"]) == 2 and all(r.startswith("reviewer-") for r in r2["reviewers"])
    assert r2["adjudications"] == [{"key": "importance:Figure 3", "value": "optional",
                                    "reason_code": "clinical_judgement",
                                    "adjudicator": r2["green_light"]["by"]}]
    assert r2["revision"]["number"] == 1 and len(r2["revision"]["content_hash"]) == 64
    assert "importance:Figure 1" in r2["auto_resolved"]


def test_comments_ship_only_when_asked(released: Any, tmp_path: Path) -> None:
    from annotator.services.export import export_release

    export_release(released, CURATOR, tmp_path / "c", version="1.0.0", include_comments=True)
    r2 = _by_id(tmp_path / "c")["R2"][PROVENANCE_KEY]
    assert [c["text"] for c in r2["comments"]] == ["Checked the FLAIR twice."]
    assert r2["adjudications"][0]["reason_text"] == "FLAIR does not change the workup."


def test_two_exports_are_byte_identical(exported: Path, released: Any, tmp_path: Path) -> None:
    """All but the history chain head, which moved on by the first export's own record."""
    from annotator.export.manifest import release_files
    from annotator.services.export import export_release

    again = tmp_path / "again"
    export_release(released, CURATOR, again, version="1.0.0", date="2026-05-06")
    assert release_files(again) == release_files(exported)
    one, two = without_history_head(exported), without_history_head(again)
    for rel in release_files(exported):
        assert one[rel] == two[rel], rel
    with released.read() as session:
        rows = list(session.scalars(select(HistoryEntry).order_by(HistoryEntry.seq)))
    assert rows[-1].action == "release_exported" and rows[-2].row_hash == release_history_head(
        again) != release_history_head(exported)


def test_the_release_date_is_explicit_without_a_date(released: Any, tmp_path: Path) -> None:
    # Changed (issue 16): no date given means the export date (UTC), stated in the card and
    # as Croissant's datePublished, instead of no date at all (which mlcroissant warns of).
    from datetime import UTC, datetime

    from annotator.services.export import export_release

    before = datetime.now(UTC).date().isoformat()
    export_release(released, CURATOR, tmp_path / "undated", version="1.0.0")
    after = datetime.now(UTC).date().isoformat()
    card = (tmp_path / "undated/BENCHMARK_CARD.md").read_text("utf-8")
    croissant = json.loads((tmp_path / "undated/croissant.json").read_text("utf-8"))
    assert croissant["datePublished"] in (before, after)
    assert f"| Release date | {croissant['datePublished']} |" in card


def test_the_export_is_valid_and_counts_agree(exported: Path) -> None:
    assert validate_release(exported) == []
    card = (exported / "BENCHMARK_CARD.md").read_text("utf-8")
    assert "| Released cases | 3 |" in card
    assert "| Future follow-up exams (time_past < 0, not requestable) | 3 |" in card
    assert "| Requestable evidence units | 7 |" in card
    assert "| Excluded case | Reason code | Reason |" in card
    manifest = (exported / "MANIFEST.sha256").read_text("utf-8").splitlines()
    assert any(line.endswith("  release.json") for line in manifest)
    assert not any(line.endswith("MANIFEST.sha256") for line in manifest)


def test_the_agreement_report_ships_without_names(exported: Path) -> None:
    report = exported / "agreement" / "agreement.json"
    if not report.exists():  # the app may be built without the agreement report
        card = (exported / "BENCHMARK_CARD.md").read_text("utf-8")
        assert "does not include it" in card
        return
    text = report.read_text("utf-8") + (exported / "agreement/agreement.html").read_text("utf-8")
    for name in PHYSICIANS:
        assert name not in text
    assert '"week": "20' not in text  # no calendar weeks of anyone's work


def test_original_history_ships_only_when_the_setting_says_so(
    released: Any, tmp_path: Path
) -> None:
    from annotator.services.export import export_release, save_card_settings

    save_card_settings(released, CURATOR, original_history="shipped")
    try:
        export_release(released, CURATOR, tmp_path / "r", version="1.0.0", date="2026-05-06")
    finally:
        save_card_settings(released, CURATOR, original_history="withheld")
    r1 = _by_id(tmp_path / "r")["R1"]
    assert r1["original_clinical_history"] == "Longer history text kept exactly as imported."
    card = (tmp_path / "r/BENCHMARK_CARD.md").read_text("utf-8")
    assert "IS released with every case" in card
    with pytest.raises(ExportError, match="original_history 'yes': use withheld or shipped"):
        save_card_settings(released, CURATOR, original_history="yes")
