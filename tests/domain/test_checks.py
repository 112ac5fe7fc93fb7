"""Case checks (needs_fix and warnings) and the matcher vocabulary they rest on."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from annotator.domain.checks import (
    Problem,
    attribution_warnings,
    case_warnings,
    check_case,
    image_uses,
)
from annotator.domain.vocabulary import (
    LabelError,
    is_follow_up,
    is_non_imaging,
    is_prior,
    metadata_warnings,
    normalise_for_compare,
    normalise_label,
    suggestions,
)

FIXTURE = Path(__file__).parents[1] / "ingest" / "fixtures" / "contract" / "release.json"


@pytest.fixture
def case() -> dict[str, Any]:
    """A deep copy of the contract fixture's second case (three exams, three steps)."""
    return copy.deepcopy(json.loads(FIXTURE.read_text())[1])


def codes(problems: list[Problem]) -> list[tuple[str, str]]:
    return [(p.code, p.field) for p in problems]


def test_fixture_cases_have_no_problems() -> None:
    for raw in json.loads(FIXTURE.read_text()):
        assert check_case(raw) == []


def test_step_source_must_name_an_exam_exactly(case: dict[str, Any]) -> None:
    case["diagnostic_steps"][0]["source"] = "Fig. 1"
    case["diagnostic_steps"][1]["source"] = None
    problems = check_case(case)
    assert codes(problems) == [("step_source_unknown", "diagnostic_steps[0].source"),
                               ("step_source_unknown", "diagnostic_steps[1].source")]
    assert "did you mean 'Figure 1'" in problems[0].message
    assert problems[1].message == "the step names no exam"


def test_two_steps_naming_one_exam(case: dict[str, Any]) -> None:
    case["diagnostic_steps"][2]["source"] = "Figure 1"
    [problem] = check_case(case)
    assert (problem.code, problem.field) == ("step_duplicate_exam", "diagnostic_steps[2].source")
    assert "diagnostic_steps[0]" in problem.message


def test_exam_without_step_is_not_a_problem(case: dict[str, Any]) -> None:
    case["diagnostic_steps"] = case["diagnostic_steps"][:1]
    assert check_case(case) == []


@pytest.mark.parametrize("value", ["important", True, 1])
def test_unknown_importance_needs_a_fix(case: dict[str, Any], value: object) -> None:
    case["diagnostic_steps"][0]["essential"] = value
    assert codes(check_case(case)) == [("step_importance_unknown", "diagnostic_steps[0].essential")]


def test_importance_spelling_case_and_null_are_accepted(case: dict[str, Any]) -> None:
    case["diagnostic_steps"][0]["essential"] = "Essential"
    case["diagnostic_steps"][1]["essential"] = None
    assert check_case(case) == []


def test_rubric_reference_and_levels(case: dict[str, Any]) -> None:
    diagnosis = case["rubric_0_to_3"]["Diagnosis"]
    diagnosis["reference_answer"] = " "
    del diagnosis["0"]
    del case["rubric_0_to_3"]["Localisation"]["reference_answer"]["Laterality"]
    case["rubric_0_to_3"]["Localisation"]["1"] = None
    assert codes(check_case(case)) == [
        ("rubric_missing_reference", "rubric_0_to_3.Diagnosis.reference_answer"),
        ("rubric_missing_level", "rubric_0_to_3.Diagnosis.0"),
        ("rubric_missing_reference", "rubric_0_to_3.Localisation.reference_answer.Laterality"),
        ("rubric_missing_level", "rubric_0_to_3.Localisation.1"),
    ]


def test_localisation_reference_must_be_an_object(case: dict[str, Any]) -> None:
    case["rubric_0_to_3"]["Localisation"]["reference_answer"] = "Cervical cord"
    assert codes(check_case(case)) == [
        ("localisation_reference_not_object", "rubric_0_to_3.Localisation.reference_answer")]


def test_missing_rubrics(case: dict[str, Any]) -> None:
    del case["rubric_0_to_3"]["Localisation"]
    assert codes(check_case(case)) == [("rubric_missing", "rubric_0_to_3.Localisation")]
    del case["rubric_0_to_3"]
    assert codes(check_case(case)) == [("rubric_missing", "rubric_0_to_3")]


@pytest.mark.parametrize("key, value", [("contrast", "No contrast"), ("contrast", "Yes"),
                                        ("contrast", "no"), ("modality", "PET-CT")])
def test_metadata_the_matcher_misreads(case: dict[str, Any], key: str, value: str) -> None:
    case["imaging_examinations"][1]["meta_info"][key] = value
    [problem] = check_case(case)
    assert (problem.code, problem.field) == ("metadata_misread",
                                             f"imaging_examinations[1].meta_info.{key}")
    assert value in problem.message


def test_region_key_instead_of_imaged_region(case: dict[str, Any]) -> None:
    meta = case["imaging_examinations"][0]["meta_info"]
    meta["region"] = meta.pop("imaged_region")
    assert codes(check_case(case)) == [("metadata_misread",
                                        "imaging_examinations[0].meta_info.region")]


def test_case_texts_and_labels(case: dict[str, Any]) -> None:
    case.update(clinical_history="", final_diagnosis=None, difficulty="extrem hard")
    assert codes(check_case(case)) == [("clinical_history_missing", "clinical_history"),
                                       ("final_diagnosis_missing", "final_diagnosis"),
                                       ("case_label_unknown", "difficulty")]
    case["item"]["open_ended"] = {"reference_answer": "LETM"}
    assert "final_diagnosis_missing" not in [p.code for p in check_case(case)]


def test_duplicate_and_missing_figures(case: dict[str, Any]) -> None:
    case["imaging_examinations"][1]["figure"] = "Figure 1"
    case["imaging_examinations"][2]["figure"] = ""
    found = codes(check_case(case))
    assert ("exam_duplicate_figure", "imaging_examinations[1].figure") in found
    assert ("exam_figure_missing", "imaging_examinations[2].figure") in found


def test_checks_never_raise_on_odd_shapes() -> None:
    odd: dict[str, Any] = {"imaging_examinations": [1, {"figure": 2, "meta_info": "x"}],
                           "diagnostic_steps": "x", "rubric_0_to_3": {"Diagnosis": []},
                           "images": [None, {"path": 3}]}
    assert "rubric_missing" in [p.code for p in check_case(odd)]
    assert codes(case_warnings(odd)) == [("exam_without_images",
                                          "imaging_examinations[1].image_paths")]


# --- attribution and warnings --------------------------------------------------------------


def test_attribution_from_image_entry_then_case(case: dict[str, Any]) -> None:
    case["license"] = "CC BY 4.0"
    case["images"][0].update(source_url="https://a.example/1", author="Dr A")
    uses = {u.draft_path: u for u in image_uses(case)}
    first = uses["images/90102/f1_a.png"]
    assert first.attribution == {"source_url": "https://a.example/1", "author": "Dr A",
                                 "license": "CC BY 4.0"}
    assert first.figures == ("Figure 1",) and first.name == "Figure 1a"
    assert first.field == "imaging_examinations[0].image_paths[0]"
    assert codes(attribution_warnings(case)) == [
        ("image_attribution_missing", "imaging_examinations[1].image_paths[0]"),
        ("image_attribution_missing", "imaging_examinations[2].image_paths[0]")]
    case["source_url"] = "https://eurorad.example/90102"
    assert attribution_warnings(case) == []


def test_images_only_in_the_index_are_used_once(case: dict[str, Any]) -> None:
    case["images"].append({"name": "extra", "caption": "c", "path": "images/90102/extra.png"})
    case["imaging_examinations"][1]["image_paths"].append("images/90102/f1_a.png")
    uses = image_uses(case)
    assert [u.draft_path for u in uses] == ["images/90102/f1_a.png", "images/90102/f2_a.png",
                                            "images/90102/f3_a.png", "images/90102/extra.png"]
    assert uses[0].figures == ("Figure 1", "Figure 2")
    assert uses[3].figures == () and uses[3].field == "images[3].path"


def test_case_warnings_for_exams_without_images_and_unfamiliar_terms(case: dict[str, Any]) -> None:
    case["source_url"], case["license"] = "https://x.example", "CC BY 4.0"
    case["imaging_examinations"][0]["image_paths"] = []
    case["imaging_examinations"][1]["meta_info"]["contrast"] = "gadolinium"
    case["imaging_examinations"][2]["meta_info"]["modality"] = "MR"  # understood: no warning
    assert codes(case_warnings(case)) == [
        ("exam_without_images", "imaging_examinations[0].image_paths"),
        ("metadata_unfamiliar", "imaging_examinations[1].meta_info.contrast")]


# --- vocabulary ----------------------------------------------------------------------------


@pytest.mark.parametrize("kind, value, expected", [
    ("difficulty", "extrem hard", ("extreme_hard", True)),
    ("difficulty", "Extreme hard", ("extreme_hard", True)),
    ("difficulty", "extreme-hard", ("extreme_hard", True)),
    ("difficulty", "extreme_hard", ("extreme_hard", False)),
    ("difficulty", " Hard ", ("hard", True)),
    ("rarity", "Rare", ("rare", True)),
    ("rarity", "extreme rare", ("extreme_rare", True)),
    ("rarity", "Extremely rare", ("extreme_rare", True)),
    ("rarity", "common", ("common", False)),
    ("importance", "Essential", ("essential", True)),
])
def test_normalise_label(kind: str, value: str, expected: tuple[str, bool]) -> None:
    assert normalise_label(kind, value) == expected


@pytest.mark.parametrize("kind, value", [("difficulty", "medium"), ("rarity", "hard"),
                                         ("colour", "red"), ("difficulty", "")])
def test_normalise_label_rejects_unknown(kind: str, value: str) -> None:
    with pytest.raises(LabelError) as caught:
        normalise_label(kind, value)
    assert caught.value.kind == kind and repr(value) in str(caught.value)


def test_metadata_warnings_only_for_misreads() -> None:
    fine = {"modality": "PET/CT", "contrast": "with and without contrast",
            "acquisition": "T2", "imaged_region": "brain"}
    assert metadata_warnings(fine) == []
    assert metadata_warnings({"contrast": "non contrast"}) == []
    assert metadata_warnings({"contrast": "Without and with contrast"}) == []
    assert metadata_warnings({"contrast": ""}) == []
    [message] = metadata_warnings({"contrast": "without IV contrast"})
    assert "WITH contrast" in message
    assert len(metadata_warnings({"contrast": "None", "modality": "pet-ct"})) == 2


def test_suggestions_are_the_contract_spellings() -> None:
    assert suggestions("contrast") == ["non-contrast", "post-contrast",
                                       "with and without contrast"]
    assert "PET/CT" in suggestions("modality") and "DWI/ADC" in suggestions("acquisition")
    assert suggestions("region") == suggestions("imaged_region")
    assert "lumbosacral spine" in suggestions("imaged_region")
    assert suggestions("difficulty") == ["normal", "hard", "extreme_hard"]
    assert suggestions("unknown") == []


@pytest.mark.parametrize("field, a, b", [
    ("acquisition", "T2", "T2-weighted"), ("acquisition", "t1 weighted", "T1"),
    ("acquisition", "DWI", "DWI/ADC"), ("acquisition", "T1 post contrast", "post-contrast T1"),
    ("modality", "MR", "MRI"), ("modality", " ct ", "CT"), ("modality", "PET CT", "PET/CT"),
    ("contrast", "Non contrast", "non-contrast"), ("imaged_region", "C-spine", "cervical spine"),
    ("time_past", 6, "6"), ("time_past", 6.0, 6), ("view", "Ax", "axial"), ("view", None, ""),
])
def test_normalise_for_compare_equal(field: str, a: object, b: object) -> None:
    assert normalise_for_compare(field, a) == normalise_for_compare(field, b)


@pytest.mark.parametrize("field, a, b", [
    ("contrast", "No contrast", "non-contrast"), ("modality", "PET-CT", "PET/CT"),
    ("acquisition", "T1", "T2"), ("modality", "CT", "CTA"), ("time_past", 6, -6),
])
def test_normalise_for_compare_different(field: str, a: object, b: object) -> None:
    assert normalise_for_compare(field, a) != normalise_for_compare(field, b)


@pytest.mark.parametrize("meta, expected", [
    ({"modality": "Clinical photo"}, True), ({"acquisition": "Histopathology H&E"}, True),
    ({"modality": "MRI", "acquisition": "diagram of lesion"}, True),
    ({"modality": "MRI", "acquisition": "T2"}, False), ({}, False), ({"modality": None}, False),
])
def test_is_non_imaging(meta: dict[str, Any], expected: bool) -> None:
    assert is_non_imaging(meta) is expected


@pytest.mark.parametrize("value, follow_up, prior", [
    (-3, True, False), ("-3", True, False), (" -0.5 ", True, False), (24, False, True),
    ("24", False, True), (0, False, False), (None, False, False), ("3 months ago", False, False),
    (True, False, False),
])
def test_follow_up_and_prior(value: object, follow_up: bool, prior: bool) -> None:
    assert is_follow_up(value) is follow_up and is_prior(value) is prior
