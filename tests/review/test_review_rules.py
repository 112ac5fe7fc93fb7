"""Pure meta-review rules: disagreement types, impact order, boards, word diffs, letters."""

from __future__ import annotations

import copy
import random

import pytest

from annotator.errors import ValidationError
from annotator.review.conflicts import assign_letters, detect, item_label, item_status
from annotator.review.decision_values import parse_value, validate_decision
from annotator.review.disagreement import disagreement, impact, order_type
from annotator.review.order_board import agreed_relations, merge_boards, validate_board
from annotator.review.textdiff import diff_text, word_diff
from factories import make_case

FIGS = ["Figure 1", "Figure 2", "Figure 3"]


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ({"Figure 1": 1, "Figure 2": 2}, {"Figure 1": 1, "Figure 2": 2}, None),
        ({"Figure 1": 1, "Figure 2": 1}, {"Figure 1": 1, "Figure 2": 2}, "tie_vs_strict"),
        ({"Figure 1": 1, "Figure 2": 2}, {"Figure 1": 2, "Figure 2": 1}, "adjacent_swap"),
        (
            {"Figure 1": 1, "Figure 2": 2, "Figure 3": 3},
            {"Figure 1": 3, "Figure 2": 2, "Figure 3": 1},
            "reversal",
        ),
        ({"Figure 1": 1, "Figure 2": None}, {"Figure 1": 1, "Figure 2": 2}, "ranked_vs_unranked"),
    ],
)
def test_order_disagreement_types(first, second, expected) -> None:  # type: ignore[no-untyped-def]
    assert order_type([first, second]) == expected


def test_scale_disagreements_are_named_in_scale_order() -> None:
    assert disagreement("importance", ["optional", "essential"]) == "essential_vs_optional"
    assert disagreement("importance", ["unnecessary", "optional"]) == "optional_vs_unnecessary"
    assert disagreement("difficulty", ["hard", "normal"]) == "normal_vs_hard"
    assert disagreement("rarity", ["extreme_rare", "rare"]) == "rare_vs_extreme_rare"
    assert disagreement("discard", [None, {"reason_code": "leakage"}]) == "discard_vs_keep"
    assert disagreement("rubric", ["a", "b"]) == "rubric_text"


def test_impact_puts_discard_first_and_optional_vs_unnecessary_last() -> None:
    ranked = sorted(
        [
            ("importance", "optional_vs_unnecessary"),
            ("difficulty", "normal_vs_hard"),
            ("order", "adjacent_swap"),
            ("order", "reversal"),
            ("importance", "essential_vs_unnecessary"),
            ("discard", "discard_vs_keep"),
            ("meta", "metadata"),
        ],
        key=lambda fk: impact(*fk),
    )
    assert ranked[:3] == [
        ("discard", "discard_vs_keep"),
        ("importance", "essential_vs_unnecessary"),
        ("order", "reversal"),
    ]
    assert ranked[-1] == ("importance", "optional_vs_unnecessary")


def test_detection_compares_metadata_normalised_and_ties_strictly() -> None:
    content = make_case("T1")
    base = {
        "importance:Figure 1": {"value": "essential", "how": "accepted"},
        "stage:Figure 1": {"value": 1, "how": "accepted"},
        "stage:Figure 2": {"value": 2, "how": "accepted"},
        "stage:Figure 3": {"value": 2, "how": "accepted"},
        "meta:Figure 1/acquisition": "T2",
    }
    other = dict(base)
    other["meta:Figure 1/acquisition"] = "T2-weighted"  # same to the matcher
    other["stage:Figure 3"] = {"value": 3, "how": "set"}  # strict where the other tied
    found = {d.key: d for d in detect(content, {"x": base, "y": other}, {"x": "B", "y": "A"})}
    assert found["meta:Figure 1/acquisition"].kind == "auto_resolved"
    assert found["order"].kind == "conflict"
    assert found["order"].disagreement == "tie_vs_strict"
    assert list(found["order"].by_letter) == ["A", "B"]
    assert found["order"].by_letter["A"]["Figure 3"] == 3


def test_board_validation_refuses_bad_boards_and_renumbers_good_ones() -> None:
    with pytest.raises(ValidationError, match="Figure 2: stage '1.5'"):
        validate_board({"Figure 1": 1, "Figure 2": "1.5", "Figure 3": None}, FIGS)
    with pytest.raises(ValidationError, match="no stage or null for Figure 3"):
        validate_board({"Figure 1": 1, "Figure 2": 2}, FIGS)
    with pytest.raises(ValidationError, match="no such exam: Figure 9"):
        validate_board({"Figure 1": 1, "Figure 2": 2, "Figure 3": 2, "Figure 9": 1}, FIGS)
    with pytest.raises(ValidationError, match="stage 0"):
        validate_board({"Figure 1": 0, "Figure 2": 2, "Figure 3": 2}, FIGS)
    with pytest.raises(ValidationError, match="stage True"):
        validate_board({"Figure 1": True, "Figure 2": 2, "Figure 3": 2}, FIGS)
    assert validate_board({"Figure 1": 1, "Figure 2": 4, "Figure 3": 4}, FIGS) == {
        "Figure 1": 1,
        "Figure 2": 2,
        "Figure 3": 2,
    }


def test_merge_keeps_the_pairs_both_boards_agree_on() -> None:
    a = {"Figure 1": 1, "Figure 2": 2, "Figure 3": 3, "Figure 4": None}
    b = {"Figure 1": 1, "Figure 2": 3, "Figure 3": 2, "Figure 4": None}
    merged = merge_boards([a, b])
    for (x, y), rel in agreed_relations([a, b]).items():
        assert agreed_relations([merged, merged])[(x, y)] == rel
    assert merged == {"Figure 1": 1, "Figure 2": 2, "Figure 3": 2, "Figure 4": None}


def test_word_diff_marks_changed_words_only() -> None:
    parts = word_diff("Cervical cord C2-C6.", "Cervical cord C2 to C6.")
    assert [p.op for p in parts] == ["equal", "delete", "insert"]
    assert diff_text("a b c", "a x c") == "a [-b-]{+x+} c"


def test_letters_are_shuffled_once_and_never_change() -> None:
    first = assign_letters({}, ["u2", "u1"], random.Random(3))
    assert sorted(first.values()) == ["A", "B"]
    seen = {
        tuple(sorted(assign_letters({}, ["u1", "u2"], random.Random(s)).items())) for s in range(20)
    }
    assert len(seen) == 2  # both orders happen: the letters are shuffled
    later = assign_letters(first, ["u1", "u2", "u3"], random.Random(0))
    assert later == {"u3": "C"}


def test_decision_values_and_letters_on_the_command_line() -> None:
    assert parse_value("B", {"A": "optional", "B": "essential"}) == "essential"
    assert parse_value('{"Figure 1": 1}', {"A": 1}) == {"Figure 1": 1}
    assert parse_value("unnecessary", {"A": "x"}) == "unnecessary"
    with pytest.raises(ValidationError, match="no Reviewer C"):
        parse_value("C", {"A": 1, "B": 2})
    with pytest.raises(ValidationError, match="not one of"):
        validate_decision("importance:Figure 1", "vital", FIGS)
    assert validate_decision("discard", "leakage", FIGS) == {"reason_code": "leakage", "text": ""}
    with pytest.raises(ValidationError, match="non-empty text"):
        validate_decision("rubric:Diagnosis/3", "  ", FIGS)


def test_item_states_and_labels() -> None:
    assert item_status("conflict", "order", {"order"}, False) == "decided"
    assert item_status("conflict", "order", set(), True) == "moot"
    assert item_status("auto_resolved", "rarity", {"rarity"}, False) == "overridden"
    assert item_label("meta:Figure 2/time_past") == "Figure 2 time past"
    assert item_label("rubric:Diagnosis/3") == "Diagnosis rubric level 3"
    assert item_label("importance:Figure 2") == "importance of Figure 2"


def test_release_content_copies_the_draft_and_leaves_it_untouched() -> None:
    from annotator.review.final import release_content

    draft = make_case("T1")
    pristine = copy.deepcopy(draft)
    values = {
        "meta:Figure 1/acquisition": "T1-weighted",
        "rubric:Diagnosis/reference_answer": "Spinal cord infarction",
        "rubric:Localisation/reference_answer/Laterality": "Left",
        "step:0/step": "Look at the cord",
        "order": {"Figure 1": 2, "Figure 2": 1},
        "importance:Figure 1": "optional",
        "rarity": "extreme_rare",
    }
    release = release_content(draft, values)
    assert draft == pristine  # every nested dict and list was copied, not shared
    assert release["final_diagnosis"] == "Spinal cord infarction"
    assert release["rubric_0_to_3"]["Localisation"]["reference_answer"]["Laterality"] == "Left"
    assert pristine["rubric_0_to_3"]["Localisation"]["reference_answer"]["Laterality"] == "Midline"
    assert release["rarity"] == "extreme_rare"
    assert release_content(draft, values) == release
