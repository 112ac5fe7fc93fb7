"""Decisions, outcomes, the green light, permissions, bulk work, feedback and history."""

from __future__ import annotations

from pathlib import Path

import pytest
from review_support import chose, submit

from annotator.errors import PermissionDenied, StateError, ValidationError
from annotator.services.review import base, decisions, reopen
from annotator.services.review.actions import (
    bulk_decide,
    decide_value,
    demo_adjudicate,
    green_light_unanimous,
    split_cases,
)
from annotator.services.review.feedback import feedback, my_feedback
from annotator.services.review.queue import list_items, review_status
from annotator.services.users import add_user
from annotator.store.history import entries

BOARD = {"Figure 1": 1, "Figure 2": 2, "Figure 3": 3}


@pytest.fixture
def project_location(tmp_path: Path) -> str:
    """SQLite only: the review tables are exercised on both back ends by the detection tests."""
    return str(tmp_path / "project")


def _actions(project) -> list[str]:  # type: ignore[no-untyped-def]
    with project.tx() as session:
        return [e.action for e in entries(session)]


def _order_conflict(project, case_id: str = "T1") -> None:  # type: ignore[no-untyped-def]
    submit(project, "a1", case_id)
    submit(project, "a2", case_id, {"stage:Figure 3": chose(3)})


def test_invalid_order_board_is_refused(duo) -> None:  # type: ignore[no-untyped-def]
    _order_conflict(duo)
    bad = {"Figure 1": 1, "Figure 2": "1.5", "Figure 3": None}
    with pytest.raises(ValidationError, match="invalid order board"):
        decisions.decide(duo, "adj", "T1", "order", bad, "protocol")
    with pytest.raises(ValidationError, match="no stage or null for Figure 3"):
        decisions.decide(duo, "adj", "T1", "order", {"Figure 1": 1, "Figure 2": 2}, "protocol")
    assert "adjudicated" not in _actions(duo)
    result = decisions.decide(duo, "adj", "T1", "order", {**BOARD, "Figure 3": 7}, "protocol")
    assert [e["preferred_order"] for e in result.release["imaging_examinations"]] == [1, 2, 3]


def test_decision_lands_with_reason_and_adjudicator(duo) -> None:  # type: ignore[no-untyped-def]
    _order_conflict(duo)
    with pytest.raises(ValidationError, match="reason code must be one of"):
        decisions.decide(duo, "adj", "T1", "order", BOARD, "because")
    with pytest.raises(ValidationError, match="has no item"):
        decisions.decide(duo, "adj", "T1", "importance:Figure 9", "optional", "protocol")
    decisions.decide(duo, "adj", "T1", "order", BOARD, "image_evidence", "FLAIR after contrast")
    with duo.tx() as session:
        from annotator.services.review.base import decision_rows, get_case

        row = decision_rows(session, get_case(session, "T1"))["order"]
    assert (row.adjudicator, row.reason_code, row.reason_text) == (
        "adj",
        "image_evidence",
        "FLAIR after contrast",
    )
    assert review_status(duo, "adj")["conflicts_resolved"] == 1


def test_green_light_refused_with_reason_granted_and_revoked(duo) -> None:  # type: ignore[no-untyped-def]
    _order_conflict(duo)
    with pytest.raises(StateError, match="open conflict: order"):
        decisions.green_light(duo, "adj", "T1")
    # the only essential exams become optional: a release check fails
    decisions.decide(duo, "adj", "T1", "order", BOARD, "protocol")
    for figure in ("Figure 1", "Figure 2"):
        decisions.decide(duo, "adj", "T1", f"importance:{figure}", "optional", "protocol")
    with pytest.raises(StateError, match="no essential exam"):
        decisions.green_light(duo, "adj", "T1")
    decisions.decide(duo, "adj", "T1", "importance:Figure 1", "essential", "protocol")
    assert decisions.green_light(duo, "adj", "T1").state == "green_lit"
    decisions.decide(duo, "adj", "T1", "rarity", "common", "clinical_judgement")
    assert base.review_case(duo, "T1").state == "in_review"
    decisions.green_light(duo, "adj", "T1")
    reopen.reopen_decision(duo, "adj", "T1", "order", "second look at the board")
    assert base.review_case(duo, "T1").state == "in_review"
    actions = _actions(duo)
    assert actions.count("green_light_revoked") == 2
    assert "adjudication_reopened" in actions and "overridden" in actions


def test_only_adjudicators_adjudicate_and_never_their_own_case(duo) -> None:  # type: ignore[no-untyped-def]
    _order_conflict(duo)
    with pytest.raises(PermissionDenied, match="adjudicator role"):
        decisions.decide(duo, "a1", "T1", "order", BOARD, "protocol")
    with pytest.raises(PermissionDenied, match="adjudicator role"):
        decisions.exclude(duo, "cu", "T1", "no")
    add_user(duo, "cu", "a2", ["adjudicator"])
    with pytest.raises(PermissionDenied, match="a2 annotated case T1"):
        decisions.decide(duo, "a2", "T1", "order", BOARD, "protocol")
    with pytest.raises(PermissionDenied, match="annotated case T1"):
        decisions.green_light(duo, "a2", "T1")
    # splitting the work never gives a2 a case they annotated
    given = split_cases(duo, "cu", ["a2", "adj"])
    assert given == {"a2": [], "adj": ["T1"]}


def test_split_balances_cases_among_adjudicators(duo) -> None:  # type: ignore[no-untyped-def]
    for case_id in ("T1", "T2", "T3", "T4"):
        submit(duo, "a1", case_id)
        submit(duo, "a2", case_id)
    given = split_cases(duo, "adj")
    assert sorted(len(v) for v in given.values()) == [2, 2]
    with pytest.raises(PermissionDenied):
        split_cases(duo, "a1")


def test_discard_upheld_makes_other_conflicts_moot(duo) -> None:  # type: ignore[no-untyped-def]
    submit(duo, "a1", "T2", {"discard": {"reason_code": "leakage", "text": "title says it"}})
    submit(duo, "a2", "T2", {"stage:Figure 3": chose(3)})
    submit(duo, "a1", "T3", {"difficulty": chose("normal")})
    submit(duo, "a2", "T3")
    items = list_items(duo, "adj", case_ids=["T2"])
    assert [i.key for i in items] == ["discard"]  # a discarder gave no order to compare
    discard = next(i.values for i in items)
    letter = next(k for k, v in discard.items() if v is not None)
    decide_value(duo, "adj", "T2", "discard", letter, "protocol", "the title gives it away")
    assert base.review_case(duo, "T2").state == "excluded"
    assert review_status(duo, "adj")["excluded"] == 1
    # reopening the upheld discard brings the case back into review
    reopen.reopen_decision(duo, "adj", "T2", "discard", "the title was edited")
    assert base.review_case(duo, "T2").state == "in_review"
    assert [i.state for i in list_items(duo, "adj", case_ids=["T2"])] == ["open"]


def test_exclude_irresolvable_with_reason(duo) -> None:  # type: ignore[no-untyped-def]
    _order_conflict(duo)
    with pytest.raises(ValidationError, match="needs a reason"):
        decisions.exclude(duo, "adj", "T1", " ")
    decisions.exclude(duo, "adj", "T1", "contradictory figures even after senior review")
    assert [i.state for i in list_items(duo, "adj", case_ids=["T1"])] == ["moot"]
    with pytest.raises(StateError):
        decisions.decide(duo, "adj", "T1", "order", BOARD, "protocol")
    with duo.tx() as session:
        excluded = [e for e in entries(session) if e.action == "excluded"]
    assert excluded[0].detail["code"] == "irresolvable"
    reopen.reinstate(duo, "adj", "T1", "new evidence")
    assert base.review_case(duo, "T1").state == "in_review"


def test_optional_vs_unnecessary_in_bulk_and_unanimous_green_light(duo) -> None:  # type: ignore[no-untyped-def]
    for case_id in ("T1", "T2"):
        submit(duo, "a1", case_id)
        submit(duo, "a2", case_id, {"importance:Figure 3": chose("unnecessary")})
    submit(duo, "a1", "T3")
    submit(duo, "a2", "T3")
    assert review_status(duo, "adj")["bulk_resolvable_open"] == 2
    assert [i.bulk for i in list_items(duo, "adj")] == [True, True]
    with pytest.raises(ValidationError, match="resolved in bulk"):
        bulk_decide(duo, "adj", "optional", "protocol", disagreement="essential_vs_optional")
    outcome = bulk_decide(duo, "adj", "optional", "protocol", "the core reads both as optional")
    assert len(outcome.done) == 2 and review_status(duo, "adj")["conflicts_open"] == 0
    lit = green_light_unanimous(duo, "adj")
    assert lit.done == ["T3"]
    assert "not unanimous" in lit.skipped["T1"]


def test_feedback_shows_own_differences_and_reason_only(duo) -> None:  # type: ignore[no-untyped-def]
    submit(duo, "a1", "T1")
    submit(duo, "a2", "T1", {"importance:Figure 3": chose("essential"), "comment": "secret"})
    with pytest.raises(StateError, match="not decided yet"):
        feedback(duo, "a1", "T1")
    decisions.decide(duo, "adj", "T1", "importance:Figure 3", "essential", "image_evidence", "key")
    mine = feedback(duo, "a1", "T1")
    assert [(i.key, i.yours, i.final, i.reason_code, i.reason_text) for i in mine.items] == [
        ("importance:Figure 3", "optional", "essential", "image_evidence", "key")
    ]
    assert feedback(duo, "a2", "T1").items == []
    text = repr(mine)
    assert "a2" not in text and "secret" not in text and "'B'" not in text
    assert [f.case_id for f in my_feedback(duo, "a1")] == ["T1"]


def test_demo_adjudicate_decides_everything_and_green_lights(duo) -> None:  # type: ignore[no-untyped-def]
    submit(duo, "a1", "T1", {"discard": {"reason_code": "image_quality", "text": "small"}})
    submit(duo, "a2", "T1")
    _order_conflict(duo, "T2")
    demo_adjudicate(duo, "adj", ["T1", "T2"])
    assert base.review_case(duo, "T1").state == "green_lit"
    assert base.review_case(duo, "T2").state == "green_lit"
    assert list_items(duo, "adj", only_open=True) == []
    assert _actions(duo).count("adjudicated") == 2
