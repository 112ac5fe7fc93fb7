"""The release model reads the scorer's fixture and refuses what the scorer misreads."""

from __future__ import annotations

import copy
from typing import Any

from annotator.export.model import case_problems, round_trip


def test_the_fixture_passes_and_round_trips(fixture_release: list[dict[str, Any]]) -> None:
    for case in fixture_release:
        assert case_problems(case) == []
        assert round_trip(case) == case


def test_what_the_scorer_misreads_is_refused(fixture_release: list[dict[str, Any]]) -> None:
    case = copy.deepcopy(fixture_release[0])
    exams = case["imaging_examinations"]
    exams[0]["preferred_order"] = "1"
    exams[1]["preferred_order"] = True
    exams[2]["meta_info"]["region"] = exams[2]["meta_info"].pop("imaged_region")
    case["rubric_0_to_3"]["Localisation"]["reference_answer"] = "Left MCA"
    case["difficulty"] = "extrem hard"
    case["diagnostic_steps"].append({"source": "Figure 2", "essential": "essential"})
    problems = case_problems(case)
    assert "imaging_examinations[0].preferred_order: Input should be a valid integer" in problems
    assert "imaging_examinations[1].preferred_order: Input should be a valid integer" in problems
    assert any(p.startswith("imaging_examinations[2].meta_info: Value error, the key is"
                            " 'imaged_region'") for p in problems)
    assert any(p.startswith("rubric_0_to_3.Localisation.reference_answer") for p in problems)
    assert any(p.startswith("difficulty:") for p in problems)
    assert "Figure 2: 2 diagnostic steps (exactly one per exam)" in problems


def test_numbers_keep_their_json_type(fixture_release: list[dict[str, Any]]) -> None:
    case = copy.deepcopy(fixture_release[0])
    case["imaging_examinations"][0]["meta_info"]["time_past"] = 6
    case["imaging_examinations"][1]["meta_info"]["time_past"] = 6.5
    case["imaging_examinations"][2]["meta_info"]["time_past"] = "2 years"
    back = round_trip(case)["imaging_examinations"]
    assert [type(e["meta_info"]["time_past"]) for e in back[:3]] == [int, float, str]
    assert back[4]["meta_info"]["time_past"] == -3
