"""The bundled demo cases (src/annotator/demo_data): shape, images, coverage, planted problems.

Self-contained: reads the JSON and image files directly, without the rest of the app.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

DEMO = Path(__file__).resolve().parents[2] / "src" / "annotator" / "demo_data"
CASE_KEYS = {
    "case_id", "case_title", "section", "area_of_interest", "clinical_history",
    "original_clinical_history", "final_diagnosis", "difficulty", "rarity", "source_url",
    "item", "rubric_0_to_3", "images", "diagnostic_steps", "imaging_examinations",
    "image_detail",
}
META_KEYS = {"modality", "acquisition", "view", "imaged_region", "contrast", "time_past"}
LOC_KEYS = {"Laterality", "Organ/Region", "Specific Substructure/Segment"}
LEVELS = ("3", "2", "1", "0")
NON_IMAGING = ("clinical", "photo", "pathology", "microscopy", "illustration", "drawing",
               "diagram")
# The drafts that carry LLM-template problems on purpose, and the only licence-less image.
NEEDS_FIX = {"demo-009", "demo-010", "demo-012", "demo-014"}
NO_LICENSE = {"images/demo-011/f4_a.png"}


def _load() -> dict[str, dict[str, Any]]:
    cases = {}
    for path in sorted(DEMO.glob("*.json")):
        case = json.loads(path.read_text(encoding="utf-8"))
        assert isinstance(case, dict), path
        assert case["case_id"] == path.stem, path
        cases[path.stem] = case
    return cases


CASES = _load()


def _exams(case: dict[str, Any]) -> list[dict[str, Any]]:
    return list(case["imaging_examinations"])


def _problems(case: dict[str, Any]) -> list[str]:
    """The template problems import marks needs_fix (mirrors docs/case-schema.md)."""
    figures = {exam["figure"] for exam in _exams(case)}
    sources = [step["source"] for step in case["diagnostic_steps"]]
    found = [f"step source {s!r} names no exam" for s in sources if s not in figures]
    found += [f"two steps name {s}" for s, n in Counter(sources).items() if n > 1]
    for name, rubric in case["rubric_0_to_3"].items():
        found += [f"{name} lacks {key}" for key in ("reference_answer", *LEVELS)
                  if key not in rubric]
    for exam in _exams(case):
        meta = exam["meta_info"]
        if str(meta["contrast"]).strip().lower() in {"no contrast", "yes", "no"}:
            found.append(f"{exam['figure']} contrast {meta['contrast']!r}")
        if "pet-ct" in str(meta["modality"]).lower():
            found.append(f"{exam['figure']} modality {meta['modality']!r}")
    return found


def test_there_are_at_least_twelve_cases_with_every_key() -> None:
    assert len(CASES) >= 12
    for cid, case in CASES.items():
        assert CASE_KEYS <= case.keys(), (cid, CASE_KEYS - case.keys())
        assert case["section"] == "Neuroradiology"
        assert case["source_url"].startswith("https://example.org/annotator-demo/")
        assert case["item"]["open_ended"]["reference_answer"] == case["final_diagnosis"]
        assert isinstance(case["item"]["mcq"]["options"], (list, dict))


def test_exam_fields_have_the_contract_types() -> None:
    for cid, case in CASES.items():
        figures = [exam["figure"] for exam in _exams(case)]
        assert len(figures) == len(set(figures)), cid
        assert 3 <= len(figures) <= 5, cid
        for exam in _exams(case):
            order = exam["preferred_order"]
            assert order is None or (isinstance(order, int) and not isinstance(order, bool))
            assert set(exam["meta_info"]) == META_KEYS, (cid, exam["figure"])
            tp = exam["meta_info"]["time_past"]
            assert tp is None or (isinstance(tp, int) and not isinstance(tp, bool))
            assert exam["image_paths"] and isinstance(exam["key_findings"], (list, str))


def test_localisation_reference_is_an_object_unless_planted_missing() -> None:
    for cid, case in CASES.items():
        loc = case["rubric_0_to_3"]["Localisation"]
        if "reference_answer" in loc:
            assert isinstance(loc["reference_answer"], dict), cid
            assert set(loc["reference_answer"]) == LOC_KEYS, cid
        else:
            assert cid in NEEDS_FIX
        diagnosis = case["rubric_0_to_3"]["Diagnosis"]
        if "reference_answer" in diagnosis:
            assert diagnosis["reference_answer"] == case["final_diagnosis"], cid


def test_only_the_planted_drafts_carry_template_problems() -> None:
    flagged = {cid: _problems(case) for cid, case in CASES.items() if _problems(case)}
    assert set(flagged) == NEEDS_FIX, flagged
    assert all(1 <= len(problems) <= 2 for problems in flagged.values()), flagged


def test_every_image_is_listed_exists_and_is_attributed() -> None:
    classes = _sources_classes()
    listed = _sources_files()
    for cid, case in CASES.items():
        exam_paths = {p for exam in _exams(case) for p in exam["image_paths"]}
        image_paths = {image["path"] for image in case["images"]}
        assert exam_paths == image_paths, cid
        for image in case["images"]:
            path = image["path"]
            assert (DEMO / path).is_file(), path
            expected = classes[listed[path]]
            assert image["author"] == expected["author"], path
            assert image["source_url"] == expected["source_url"], path
            if path in NO_LICENSE:
                assert "license" not in image
            else:
                assert image["license"] == expected["license"], path
    on_disk = {p.relative_to(DEMO).as_posix() for p in (DEMO / "images").rglob("*")
               if p.is_file()}
    assert on_disk == set(listed)


@pytest.mark.parametrize("rel", sorted({image["path"] for case in CASES.values()
                                        for image in case["images"]}))
def test_every_image_decodes(rel: str) -> None:
    path = DEMO / rel
    if path.suffix == ".dcm":
        import pydicom

        ds = pydicom.dcmread(path)
        expected: tuple[int, ...] = (ds.Rows, ds.Columns)
        if ds.SamplesPerPixel > 1:
            expected = (*expected, ds.SamplesPerPixel)
        if _frames(rel) > 1:
            expected = (_frames(rel), *expected)
        assert ds.pixel_array.shape == expected  # decodes RLE, JPEG 2000 and JPEG Baseline
    else:
        from PIL import Image

        with Image.open(path) as image:
            image.load()
            assert image.format in {"PNG", "JPEG"} and min(image.size) >= 64


def test_feature_coverage() -> None:
    exams = [(cid, exam) for cid, case in CASES.items() for exam in _exams(case)]
    times = [exam["meta_info"]["time_past"] for _, exam in exams]
    assert any(t is not None and t > 0 for t in times)  # a prior study
    assert any(t is not None and t < 0 for t in times)  # a future follow-up
    assert any(exam["preferred_order"] is None for _, exam in exams)
    assert any(_has_tie(case) for case in CASES.values())
    assert any(any(word in str(exam["meta_info"]["modality"]).lower() for word in NON_IMAGING)
               for _, exam in exams)
    assert any(p.endswith(".png") for _, exam in exams for p in exam["image_paths"])
    series = [exam for _, exam in exams if len(exam["image_paths"]) > 2
              and all(p.endswith(".dcm") for p in exam["image_paths"])]
    assert series, "no DICOM series exam"
    assert any(_frames(exam["image_paths"][0]) > 1 for _, exam in exams
               if len(exam["image_paths"]) == 1 and exam["image_paths"][0].endswith(".dcm"))
    assert sum(isinstance(c["item"]["mcq"]["options"], dict) for c in CASES.values()) >= 1
    contract = ({"normal", "hard", "extreme_hard"}, {"common", "rare", "extreme_rare"})
    odd = {(c["difficulty"], c["rarity"]) for c in CASES.values()
           if c["difficulty"] not in contract[0] or c["rarity"] not in contract[1]}
    assert {"extrem hard", "Rare"} <= {v for pair in odd for v in pair}


def test_dicom_series_geometry_is_consistent() -> None:
    import pydicom

    for case in CASES.values():
        for exam in _exams(case):
            paths = exam["image_paths"]
            if len(paths) < 3 or not all(p.endswith(".dcm") for p in paths):
                continue
            sets = [pydicom.dcmread(DEMO / p, stop_before_pixels=True) for p in paths]
            assert len({ds.SeriesInstanceUID for ds in sets}) == 1
            assert [int(ds.InstanceNumber) for ds in sets] == list(range(1, len(sets) + 1))
            zs = [float(ds.ImagePositionPatient[2]) for ds in sets]
            steps = {round(b - a, 3) for a, b in zip(zs, zs[1:], strict=False)}
            assert len(steps) == 1 and steps.pop() > 0
            for ds in sets:
                assert ds.BitsAllocated == 16 and "WindowCenter" in ds and "PixelSpacing" in ds
                assert [float(v) for v in ds.ImageOrientationPatient] == [1, 0, 0, 0, 1, 0]


def test_a_dicom_carries_identity_for_deidentification() -> None:
    import pydicom

    ds = pydicom.dcmread(DEMO / "images/demo-002/f2_series/IM0001.dcm", stop_before_pixels=True)
    assert str(ds.PatientName) == "Doe^Jane"
    assert ds.PatientID and ds.PatientBirthDate and ds.InstitutionName


def test_demo_stays_small() -> None:
    shipped = [p for p in DEMO.rglob("*") if p.is_file() and not any(
        part.startswith(".") or part == "__pycache__" for part in p.relative_to(DEMO).parts)]
    assert sum(p.stat().st_size for p in shipped) < 20_000_000


def _has_tie(case: dict[str, Any]) -> bool:
    orders = [e["preferred_order"] for e in _exams(case) if e["preferred_order"] is not None]
    return len(orders) != len(set(orders))


def _frames(rel: str) -> int:
    import pydicom

    ds = pydicom.dcmread(DEMO / rel, stop_before_pixels=True)
    return int(ds.get("NumberOfFrames", 1) or 1)


def _sources_files() -> dict[str, str]:
    text = (DEMO / "SOURCES.md").read_text(encoding="utf-8")
    return dict(re.findall(r"^\| `(images/[^`]+)` \| (\w+) \|", text, flags=re.M))


def _sources_classes() -> dict[str, dict[str, str]]:
    text = (DEMO / "SOURCES.md").read_text(encoding="utf-8")
    classes: dict[str, dict[str, str]] = {}
    for block in re.split(r"^### ", text, flags=re.M)[1:]:
        name = block.split("\n", 1)[0].strip()
        classes[name] = dict(re.findall(r"^- (author|license|source_url): `([^`]*)`", block,
                                        flags=re.M))
    return classes
