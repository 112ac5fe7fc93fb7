"""The draft case model: strict types, raw dict kept, normalisation, canonical JSON and hash."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from annotator.domain.case import (
    CaseFormatError,
    LocalisationReference,
    canonical_json,
    content_hash,
    normalise_draft,
    parse_case,
)

FIXTURE = Path(__file__).parents[1] / "ingest" / "fixtures" / "contract" / "release.json"


@pytest.fixture
def case() -> dict[str, Any]:
    """A deep copy of the contract fixture's first case."""
    return copy.deepcopy(json.loads(FIXTURE.read_text())[0])


def errors(raw: dict[str, Any]) -> list[tuple[str, str]]:
    with pytest.raises(CaseFormatError) as caught:
        parse_case(raw)
    return [(e.field, e.reason) for e in caught.value.errors]


def test_fixture_parses_and_extra_keys_are_kept(case: dict[str, Any]) -> None:
    model = parse_case(case)
    assert model.case_id == "90101"
    assert model.imaging_examinations is not None
    assert [e.preferred_order for e in model.imaging_examinations] == [1, 2, 2, 3, None, None]
    assert model.model_extra is not None and "image_detail" in model.model_extra
    assert model.item is not None and model.item.model_extra == {
        "stem": case["item"]["stem"]}
    rubric = model.rubric_0_to_3
    assert rubric is not None and rubric.localisation is not None
    reference = rubric.localisation.reference_answer
    assert isinstance(reference, LocalisationReference) and reference.laterality == "Left"
    assert rubric.diagnosis is not None and rubric.diagnosis.level_3 is not None


@pytest.mark.parametrize("value", ["1.5", 1.5, True, "1", 1.0])
def test_preferred_order_rejects_anything_but_int_or_null(case: dict[str, Any],
                                                          value: object) -> None:
    case["imaging_examinations"][2]["preferred_order"] = value
    [(field, reason)] = errors(case)
    assert field == "imaging_examinations[2].preferred_order"
    assert reason.startswith("must be an integer or null, got ")


def test_time_past_keeps_its_json_type(case: dict[str, Any]) -> None:
    for exam, value in zip(case["imaging_examinations"], [6, 6.5, "6", "3 months", None, -3],
                           strict=True):
        exam["meta_info"]["time_past"] = value
    exams = parse_case(case).imaging_examinations
    assert exams is not None
    got = [e.meta_info.time_past if e.meta_info else None for e in exams]
    assert got == [6, 6.5, "6", "3 months", None, -3]
    assert [type(v) for v in got[:3]] == [int, float, str]


def test_time_past_rejects_booleans_and_lists(case: dict[str, Any]) -> None:
    case["imaging_examinations"][0]["meta_info"]["time_past"] = True
    case["imaging_examinations"][1]["meta_info"]["time_past"] = [1]
    assert [f for f, _ in errors(case)] == ["imaging_examinations[0].meta_info.time_past",
                                            "imaging_examinations[1].meta_info.time_past"]


@pytest.mark.parametrize("value, expected", [(17761, "17761"), ("17761", "17761")])
def test_case_id_accepts_text_or_integer(case: dict[str, Any], value: object,
                                         expected: str) -> None:
    case["case_id"] = value
    assert parse_case(case).case_id == expected


@pytest.mark.parametrize("value, reason", [
    (True, "must be a string or an integer, got true"),
    (1.5, "must be a string or an integer, got number 1.5"),
    ("  ", "must not be empty"),
    (None, "must be a string or an integer, got null"),
])
def test_case_id_rejects_other_values(case: dict[str, Any], value: object, reason: str) -> None:
    case["case_id"] = value
    assert errors(case) == [("case_id", reason)]


def test_missing_case_id_and_figure_are_required(case: dict[str, Any]) -> None:
    del case["case_id"]
    del case["imaging_examinations"][3]["figure"]
    assert errors(case) == [("case_id", "is required"),
                            ("imaging_examinations[3].figure", "is required")]


@pytest.mark.parametrize("path, value, field", [
    (("imaging_examinations", 0, "figure"), 3, "imaging_examinations[0].figure"),
    (("imaging_examinations", 0, "image_paths"), "a.png", "imaging_examinations[0].image_paths"),
    (("imaging_examinations", 0, "image_paths"), ["a.png", 2],
     "imaging_examinations[0].image_paths[1]"),
    (("imaging_examinations", 0, "meta_info"), "CT", "imaging_examinations[0].meta_info"),
    (("imaging_examinations", 0, "meta_info", "contrast"), False,
     "imaging_examinations[0].meta_info.contrast"),
    (("item", "mcq", "options"), {"A": 1}, "item.mcq.options.A"),
    (("rubric_0_to_3", "Diagnosis", "3"), 3, "rubric_0_to_3.Diagnosis.3"),
    (("rubric_0_to_3", "Localisation", "reference_answer"), ["Left"],
     "rubric_0_to_3.Localisation.reference_answer"),
    (("diagnostic_steps",), {"source": "Figure 1"}, "diagnostic_steps"),
    (("images", 0, "path"), 7, "images[0].path"),
    (("difficulty",), 2, "difficulty"),
])
def test_wrong_types_are_reported_with_a_readable_path(case: dict[str, Any],
                                                       path: tuple[Any, ...], value: object,
                                                       field: str) -> None:
    target: Any = case
    for part in path[:-1]:
        target = target[part]
    target[path[-1]] = value
    assert [f for f, _ in errors(case)] == [field]


def test_localisation_reference_as_string_is_a_valid_type(case: dict[str, Any]) -> None:
    case["rubric_0_to_3"]["Localisation"]["reference_answer"] = "left insula"
    rubric = parse_case(case).rubric_0_to_3
    assert rubric is not None and rubric.localisation is not None
    assert rubric.localisation.reference_answer == "left insula"


def test_every_error_is_listed_once(case: dict[str, Any]) -> None:
    case["imaging_examinations"][0]["preferred_order"] = "1"
    case["imaging_examinations"][4]["preferred_order"] = 2.5
    case["case_title"] = 3
    fields = [f for f, _ in errors(case)]
    assert sorted(fields) == ["case_title", "imaging_examinations[0].preferred_order",
                              "imaging_examinations[4].preferred_order"]


def test_normalise_draft_changes_only_id_and_labels(case: dict[str, Any]) -> None:
    case.update(case_id=90101, difficulty="Extreme hard", rarity="Rare")
    before = copy.deepcopy(case)
    content, original = normalise_draft(case)
    assert case == before  # the input is not modified
    assert (content["case_id"], content["difficulty"], content["rarity"]) == (
        "90101", "extreme_hard", "rare")
    assert original == {"case_id": 90101, "difficulty": "Extreme hard", "rarity": "Rare"}
    rest = {k: v for k, v in content.items() if k not in ("case_id", "difficulty", "rarity")}
    assert rest == {k: v for k, v in before.items() if k not in ("case_id", "difficulty", "rarity")}


def test_normalise_draft_leaves_unknown_labels_and_non_strings(case: dict[str, Any]) -> None:
    case.update(difficulty="medium", rarity=None)
    content, original = normalise_draft(case)
    assert (content["difficulty"], content["rarity"], original) == ("medium", None, {})


def test_canonical_json_is_sorted_compact_and_keeps_number_types() -> None:
    text = canonical_json({"b": 6, "a": [6.5, "6", None], "é": "ü"})
    assert text == '{"a":[6.5,"6",null],"b":6,"é":"ü"}'
    assert type(json.loads(text)["b"]) is int
    with pytest.raises(ValueError):
        canonical_json({"x": float("nan")})


def test_content_hash_ignores_key_order_but_not_values_or_types() -> None:
    one = content_hash({"a": 1, "b": [1, 2]})
    assert one == content_hash({"b": [1, 2], "a": 1})
    assert len(one) == 64 and int(one, 16) >= 0
    assert one != content_hash({"a": 1.0, "b": [1, 2]})
    assert one != content_hash({"a": "1", "b": [1, 2]})
