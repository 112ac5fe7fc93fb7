"""read_case_sources on real files: what is rejected, what needs a fix, what only warns."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from draft_files import bundled_dicom, make_case, png_bytes, write_case_file

from annotator.domain.case import canonical_json
from annotator.ingest.deidentify import same_raster
from annotator.ingest.reader import read_case_sources
from annotator.ingest.results import IngestResult, Rejection

FIXTURE = Path(__file__).parent / "fixtures" / "contract" / "release.json"


def read(*paths: Path, **options: Any) -> IngestResult:
    options.setdefault("seed", "test-seed")
    return read_case_sources(list(paths), **options)


def only_rejection(result: IngestResult) -> Rejection:
    assert len(result.rejected) == 1, result.rejected
    return result.rejected[0]


# --- accepted cases ------------------------------------------------------------------------


def test_good_case_is_accepted_unchanged_with_its_images(case_dir: Path) -> None:
    case = make_case()
    file = write_case_file(case_dir, case)
    result = read(file)
    assert result.ok and len(result.accepted) == 1
    candidate = result.accepted[0]
    assert candidate.file == file and candidate.case_id == "100"
    assert candidate.content == case  # unknown keys (image_detail, item.stem) kept
    assert candidate.problems == [] and candidate.warnings == []
    assert candidate.original_values == {}
    assert [i.draft_path for i in candidate.images] == ["images/f1.png", "images/f2.png"]
    first = candidate.images[0]
    assert (first.media_type, first.width, first.height, first.frames) == ("image/png", 12, 8, 1)
    assert first.figures == ["Figure 1"] and first.name == "Figure 1a" and first.caption == "CT"
    # re-encoded from its pixels (at the import's zlib level), with nothing to report removed
    assert same_raster(first.data, (case_dir / "images/f1.png").read_bytes())
    assert first.removed == []


def test_array_file_gives_every_case(case_dir: Path) -> None:
    file = write_case_file(case_dir, [make_case("1"), make_case("2"), make_case("3")])
    result = read(file)
    assert result.ok
    assert [c.case_id for c in result.accepted] == ["1", "2", "3"]


def test_folder_reads_every_json_below_it_in_sorted_order(case_dir: Path) -> None:
    write_case_file(case_dir / "b", make_case("20"))
    write_case_file(case_dir / "a", [make_case("10"), make_case("11")])
    write_case_file(case_dir, make_case("30"), name="z.json")
    (case_dir / ".hidden").mkdir()
    (case_dir / ".hidden" / "x.json").write_text("not json")
    result = read(case_dir)
    assert result.ok, result.rejected
    assert [c.case_id for c in result.accepted] == ["10", "11", "20", "30"]


def test_folder_with_a_non_case_json_rejects_that_file_only(case_dir: Path) -> None:
    write_case_file(case_dir, make_case("1"))
    (case_dir / "settings.json").write_text(json.dumps({"theme": "dark"}))
    result = read(case_dir)
    assert [c.case_id for c in result.accepted] == ["1"]
    rejection = only_rejection(result)
    assert rejection.file == case_dir / "settings.json"
    assert rejection.field == "case_id" and "not a case object" in rejection.reason


def test_same_file_given_twice_is_read_once(case_dir: Path) -> None:
    file = write_case_file(case_dir, make_case("1"))
    result = read(file, case_dir)
    assert result.ok and len(result.accepted) == 1


def test_the_contract_fixture_is_accepted_without_problems() -> None:
    result = read(FIXTURE)
    assert result.ok
    assert [c.case_id for c in result.accepted] == ["90101", "90102"]
    assert all(c.problems == [] for c in result.accepted)
    assert result.accepted[0].content == json.loads(FIXTURE.read_text())[0]


# --- rejected whole ------------------------------------------------------------------------


def test_malformed_json_names_line_and_column(case_dir: Path) -> None:
    file = case_dir / "bad.json"
    file.write_text('{\n  "case_id": "1",\n  "case_title": "x" oops\n}\n')
    rejection = only_rejection(read(file))
    assert rejection.file == file and rejection.case_id is None
    assert "malformed JSON at line 3, column 21" in rejection.reason


@pytest.mark.parametrize("text, what", [
    ('"a string"', "a string"), ("42", "a number"), ("null", "null"), ("[]", "empty array"),
    ('{"case_id": "1", "case_id": "2"}', "appears twice"), ('{"case_id": NaN}', "NaN"),
])
def test_a_file_that_is_not_case_objects_is_rejected(case_dir: Path, text: str,
                                                     what: str) -> None:
    file = case_dir / "x.json"
    file.write_text(text)
    rejection = only_rejection(read(file))
    assert what in rejection.reason


def test_non_object_in_an_array_rejects_that_item_only(case_dir: Path) -> None:
    file = write_case_file(case_dir, [make_case("1"), "oops", make_case("3")])
    result = read(file)
    assert [c.case_id for c in result.accepted] == ["1", "3"]
    rejection = only_rejection(result)
    assert "item [1] of the array" in rejection.reason and "not a string" in rejection.reason


@pytest.mark.parametrize("order", ["1.5", 1.5, True, "1", 1.0])
def test_preferred_order_must_be_an_integer_or_null(case_dir: Path, order: object) -> None:
    case = make_case("17761")
    case["imaging_examinations"][1]["preferred_order"] = order
    rejection = only_rejection(read(write_case_file(case_dir, case)))
    assert rejection.case_id == "17761"
    assert rejection.field == "imaging_examinations[1].preferred_order"
    assert rejection.reason.startswith("must be an integer or null, got ")
    assert "17761" in rejection.describe() and "case.json" in rejection.describe()


@pytest.mark.parametrize("path, value, field", [
    (("imaging_examinations", 0, "figure"), 1, "imaging_examinations[0].figure"),
    (("imaging_examinations", 0, "image_paths"), "images/f1.png",
     "imaging_examinations[0].image_paths"),
    (("imaging_examinations", 1, "meta_info", "time_past"), [6],
     "imaging_examinations[1].meta_info.time_past"),
    (("diagnostic_steps", 0, "source"), 1, "diagnostic_steps[0].source"),
    (("item", "mcq", "options"), ["A", 2], "item.mcq.options[1]"),
    (("case_id",), True, "case_id"),
    (("clinical_history",), None, None),  # null text is allowed (it only needs a fix)
])
def test_wrong_field_types_name_the_field(case_dir: Path, path: tuple[Any, ...],
                                          value: object, field: str | None) -> None:
    case = make_case("5")
    target: Any = case
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    result = read(write_case_file(case_dir, case))
    if field is None:
        assert result.ok
    else:
        assert only_rejection(result).field == field


def test_duplicate_figure_is_rejected(case_dir: Path) -> None:
    case = make_case("6")
    case["imaging_examinations"][1]["figure"] = "Figure 1"
    rejection = only_rejection(read(write_case_file(case_dir, case)))
    assert rejection.field == "imaging_examinations[1].figure"
    assert "unique" in rejection.reason


def test_missing_image_rejects_the_case_and_names_the_path(case_dir: Path) -> None:
    file = write_case_file(case_dir, [make_case("1"), make_case("2")])
    (case_dir / "images/f2.png").unlink()
    result = read(file)
    assert result.accepted == []
    assert len(result.rejected) == 2
    assert all(r.field == "imaging_examinations[1].image_paths[0]" for r in result.rejected)
    assert "image file not found" in result.rejected[0].reason
    assert str(case_dir / "images/f2.png") in result.rejected[0].reason


def test_path_leaving_the_folder_is_reported_clearly_when_missing(case_dir: Path) -> None:
    case = make_case("1")
    case["imaging_examinations"][0]["image_paths"] = ["../elsewhere/f1.png"]
    rejection = only_rejection(read(write_case_file(case_dir, case, images=False)))
    assert "outside the JSON file's folder" in rejection.reason


def test_path_leaving_the_folder_is_allowed_when_present(tmp_path: Path) -> None:
    (tmp_path / "shared").mkdir()
    (tmp_path / "shared" / "f1.png").write_bytes(png_bytes(3))
    case = make_case("1")
    case["imaging_examinations"] = case["imaging_examinations"][:1]
    case["diagnostic_steps"] = case["diagnostic_steps"][:1]
    case["images"] = []
    case["imaging_examinations"][0]["image_paths"] = ["../shared/f1.png"]
    result = read(write_case_file(tmp_path / "drafts", case, images=False))
    assert result.ok and result.accepted[0].images[0].draft_path == "../shared/f1.png"


def test_absolute_image_path_is_refused(case_dir: Path) -> None:
    case = make_case("1")
    case["imaging_examinations"][0]["image_paths"] = [str(case_dir / "images/f1.png")]
    write_case_file(case_dir, make_case("x"), name="other.json")  # writes the images
    rejection = only_rejection(read(write_case_file(case_dir, case)))
    assert "must be relative" in rejection.reason


@pytest.mark.parametrize("content, why", [
    (b"\x89PNG\r\n\x1a\n" + b"\x00" * 40, "unreadable image"),
    (b"GIF89a....", "not a PNG, JPEG or DICOM"),
    (b"", "empty file"),
])
def test_corrupt_image_rejects_the_case(case_dir: Path, content: bytes, why: str) -> None:
    file = write_case_file(case_dir, make_case("1"))
    (case_dir / "images/f1.png").write_bytes(content)
    rejection = only_rejection(read(file))
    assert rejection.field == "imaging_examinations[0].image_paths[0]" and why in rejection.reason


def test_dicom_that_cannot_be_read_rejects_the_case(case_dir: Path) -> None:
    file = write_case_file(case_dir, make_case("1"))
    (case_dir / "images/f1.png").write_bytes(bundled_dicom("MR_truncated.dcm"))
    rejection = only_rejection(read(file))
    assert rejection.case_id == "1" and "truncated" in rejection.reason


def test_image_folder_and_permission_errors_are_rejections(case_dir: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    file = write_case_file(case_dir, [make_case("1"), make_case("2")])
    (case_dir / "images/f1.png").unlink()
    (case_dir / "images/f1.png").mkdir()
    import annotator.ingest.images as images

    real_read = images.read_regular

    def deny(path: Path, limit: int) -> bytes:
        if path.name == "f2.png":
            raise PermissionError(13, "Permission denied")
        return real_read(path, limit)

    monkeypatch.setattr(images, "read_regular", deny)
    result = read(file)
    assert result.accepted == []
    assert "is a folder" in result.rejected[0].reason
    assert "Permission denied" in result.rejected[0].reason  # both images named in one line


def test_unreadable_case_file_is_a_rejection(case_dir: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    file = write_case_file(case_dir, make_case("1"))

    import annotator.ingest.sources as sources

    def deny(path: Path, limit: int) -> bytes:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(sources, "read_regular", deny)
    rejection = only_rejection(read(file))
    assert rejection.file == file and "Permission denied" in rejection.reason


def test_missing_source_path_is_a_rejection(tmp_path: Path) -> None:
    rejection = only_rejection(read(tmp_path / "nope.json"))
    assert "no such file or folder" in rejection.reason


def test_duplicate_case_id_in_one_run_rejects_the_later(case_dir: Path) -> None:
    first = write_case_file(case_dir, make_case("7"), name="a.json")
    later = write_case_file(case_dir, [make_case("8"), make_case("7")], name="b.json")
    result = read(case_dir)
    assert [(c.case_id, c.file) for c in result.accepted] == [("7", first), ("8", later)]
    rejection = only_rejection(result)
    assert (rejection.file, rejection.case_id) == (later, "7")
    assert rejection.reason == f"duplicate case id, also in {first}"
    assert [(d.case_id, d.first_file, d.later_file) for d in result.duplicates_in_input] == [
        ("7", first, later)]


def test_good_cases_go_in_when_others_fail(case_dir: Path) -> None:
    bad = make_case("2")
    bad["imaging_examinations"][0]["preferred_order"] = "first"
    result = read(write_case_file(case_dir, [make_case("1"), bad, make_case("3")]))
    assert [c.case_id for c in result.accepted] == ["1", "3"] and not result.ok


# --- needs_fix and warnings ----------------------------------------------------------------


def test_template_problems_are_accepted_as_needs_fix(case_dir: Path) -> None:
    case = make_case("9")
    case["diagnostic_steps"] = [{"source": "Fig. 1", "essential": "essential"},
                                {"source": "Figure 2", "essential": "optional"},
                                {"source": "Figure 2", "essential": "unnecessary"}]
    del case["rubric_0_to_3"]["Diagnosis"]["reference_answer"]
    case["rubric_0_to_3"]["Diagnosis"]["2"] = ""
    case["rubric_0_to_3"]["Localisation"]["reference_answer"] = "Left MCA territory"
    case["imaging_examinations"][0]["meta_info"]["contrast"] = "No contrast"
    case["imaging_examinations"][1]["meta_info"]["modality"] = "PET-CT"
    result = read(write_case_file(case_dir, case))
    candidate = result.accepted[0]
    assert candidate.needs_fix
    assert {(p.code, p.field) for p in candidate.problems} == {
        ("step_source_unknown", "diagnostic_steps[0].source"),
        ("step_duplicate_exam", "diagnostic_steps[2].source"),
        ("rubric_missing_reference", "rubric_0_to_3.Diagnosis.reference_answer"),
        ("rubric_missing_level", "rubric_0_to_3.Diagnosis.2"),
        ("localisation_reference_not_object", "rubric_0_to_3.Localisation.reference_answer"),
        ("metadata_misread", "imaging_examinations[0].meta_info.contrast"),
        ("metadata_misread", "imaging_examinations[1].meta_info.modality"),
    }


def test_exam_without_a_step_is_normal(case_dir: Path) -> None:
    case = make_case("9", diagnostic_steps=[{"source": "Figure 1", "essential": "essential"}])
    assert read(write_case_file(case_dir, case)).accepted[0].problems == []


def test_image_without_source_or_licence_is_a_warning(case_dir: Path) -> None:
    case = make_case("9")
    del case["license"], case["source_url"]
    case["images"][0].update(source_url="https://example.org/f1", license="CC BY 4.0",
                             author="Dr A")
    candidate = read(write_case_file(case_dir, case)).accepted[0]
    assert not candidate.needs_fix
    assert [(w.code, w.field) for w in candidate.warnings] == [
        ("image_attribution_missing", "imaging_examinations[1].image_paths[0]")]
    first, second = candidate.images
    assert first.attribution == {"source_url": "https://example.org/f1", "author": "Dr A",
                                 "license": "CC BY 4.0"}
    assert second.attribution == {"source_url": None, "author": None, "license": None}


def test_case_level_attribution_is_the_default_for_images(case_dir: Path) -> None:
    case = make_case("9", author="Prof B")
    candidate = read(write_case_file(case_dir, case)).accepted[0]
    assert candidate.warnings == []
    assert candidate.images[1].attribution == {"source_url": "https://example.org/case/100",
                                               "author": "Prof B", "license": "CC BY-NC-SA 4.0"}


# --- normalisation and hashing -------------------------------------------------------------


def test_label_spellings_are_normalised_and_the_original_kept(case_dir: Path) -> None:
    case = make_case(17761, difficulty="extrem hard", rarity="Extremely rare")
    candidate = read(write_case_file(case_dir, case)).accepted[0]
    assert candidate.case_id == "17761" and candidate.content["case_id"] == "17761"
    assert candidate.content["difficulty"] == "extreme_hard"
    assert candidate.content["rarity"] == "extreme_rare"
    assert candidate.original_values == {"case_id": 17761, "difficulty": "extrem hard",
                                         "rarity": "Extremely rare"}
    assert candidate.problems == []


def test_unknown_label_spelling_needs_a_fix(case_dir: Path) -> None:
    candidate = read(write_case_file(case_dir, make_case("1", difficulty="medium"))).accepted[0]
    assert candidate.content["difficulty"] == "medium"
    assert [(p.code, p.field) for p in candidate.problems] == [("case_label_unknown",
                                                                "difficulty")]


def test_numbers_keep_their_json_type_through_canonical_json(case_dir: Path) -> None:
    case = make_case("1")
    case["imaging_examinations"][0]["meta_info"]["time_past"] = 6.5
    case["imaging_examinations"][1]["meta_info"]["time_past"] = 6
    case["extra_count"] = "6"
    candidate = read(write_case_file(case_dir, case)).accepted[0]
    again = json.loads(canonical_json(candidate.content))
    metas = [e["meta_info"]["time_past"] for e in again["imaging_examinations"]]
    assert metas == [6.5, 6] and type(metas[1]) is int and type(metas[0]) is float
    assert again["extra_count"] == "6"
    assert '"time_past":6,"view"' in canonical_json(candidate.content)


def test_identical_input_gives_the_identical_hash(tmp_path: Path) -> None:
    case = make_case("1")
    case["imaging_examinations"][1]["image_paths"] = ["images/f2.dcm"]
    case["images"][1]["path"] = "images/f2.dcm"
    first = write_case_file(tmp_path / "one", case)
    (tmp_path / "one/images/f2.dcm").write_bytes(bundled_dicom("MR_small.dcm"))
    shutil.copytree(tmp_path / "one", tmp_path / "two")
    hashes = [read(first).accepted[0].content_hash, read(first).accepted[0].content_hash,
              read(tmp_path / "two/case.json").accepted[0].content_hash]
    assert len(set(hashes)) == 1
    assert read(first, seed="other").accepted[0].content_hash != hashes[0]
    (tmp_path / "two/images/f1.png").write_bytes(png_bytes(99))
    assert read(tmp_path / "two/case.json").accepted[0].content_hash != hashes[0]


def test_text_change_changes_the_hash(case_dir: Path) -> None:
    one = read(write_case_file(case_dir, make_case("1"))).accepted[0].content_hash
    two = read(write_case_file(case_dir, make_case("1", case_title="other"))).accepted[0]
    assert two.content_hash != one
