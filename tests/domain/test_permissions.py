"""The one table of who may do what."""

from __future__ import annotations

import pytest

from annotator.domain.permissions import (
    PAGES,
    RULES,
    Action,
    landing_page,
    may,
    needed_roles,
    pages_for,
    refusal,
)


def test_every_action_has_a_rule() -> None:
    assert set(RULES) == set(Action)


@pytest.mark.parametrize("action", [Action.EXPORT, Action.EDIT_CARD, Action.IMPORT_CASES,
                                    Action.ASSIGN_CASES, Action.MANAGE_USERS])
def test_curator_actions(action: Action) -> None:
    assert may(["curator"], action)
    assert not may(["annotator"], action)
    assert not may(["adjudicator"], action)
    assert not may([], action)


def test_adjudication_needs_the_adjudicator_role_and_reading_needs_a_senior() -> None:
    assert may(["adjudicator"], Action.ADJUDICATE_CASES)
    assert not may(["curator"], Action.ADJUDICATE_CASES)
    assert may(["curator"], Action.READ_OTHERS_WORK)
    assert may(["adjudicator", "annotator"], Action.READ_OTHERS_WORK)
    assert not may(["annotator"], Action.READ_OTHERS_WORK)
    assert not may(["somebody"], Action.READ_OTHERS_WORK)  # unknown roles count for nothing


def test_refusal_names_the_action_and_the_role() -> None:
    assert refusal(Action.EXPORT, "Dr Ada") == (
        "exporting a release needs the curator role; Dr Ada does not have it")
    assert needed_roles(Action.VIEW_DESK) == ["adjudicator", "curator"]
    assert "adjudicator or curator" in refusal(Action.VIEW_DESK, "Dr Ada")


def test_pages_and_landing_follow_roles() -> None:
    assert pages_for(["annotator"]) == ["annotate", "sme", "judge"]
    assert pages_for(["adjudicator"]) == ["desk", "annotate", "review", "sme", "judge"]
    assert pages_for(["curator"]) == list(PAGES)
    assert landing_page(["annotator"]) == "annotate"
    assert landing_page(["annotator", "adjudicator"]) == "review"
    assert landing_page(["adjudicator", "curator"]) == "desk"
    assert landing_page([]) == "annotate"
