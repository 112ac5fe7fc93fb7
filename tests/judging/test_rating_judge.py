"""A judged output on the one rating engine: set, undo, submit, conflict, adjudicate."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.errors import StateError, ValidationError
from annotator.services import kinds
from annotator.services.judging import scoring as judge_scoring
from annotator.services.judging.imports import import_runs
from annotator.store.history import entries

from .test_services import RUNS, _fill


def test_a_judged_output_through_the_engine(team: Any) -> None:
    engine = kinds.KINDS["judge"]
    import_runs(team, "cu", RUNS)
    judge_scoring.assign(team, "cu", 2)
    item = judge_scoring.my_items(team, "a1")[0][0]
    other = next(n for n in ("a2", "a3")
                 if item in [i for i, _, _ in judge_scoring.my_items(team, n)])  # fmt: skip
    # Set, and undo by writing back what the store replaced.
    assert engine.set_field(team, "a1", item, "diagnosis", 1) is None
    assert engine.set_field(team, "a1", item, "diagnosis", 3) == 1
    assert engine.set_field(team, "a1", item, "diagnosis", 1) == 3  # undo
    assert engine.blind_view(team, "a1", item)["values"] == {"diagnosis": 1}
    with pytest.raises(ValidationError):
        engine.set_field(team, "a1", item, "diagnosis", 7)
    stale = engine.blind_view(team, "a1", item)["version"] - 1
    with pytest.raises(Exception, match="changed elsewhere"):
        engine.set_field(team, "a1", item, "diagnosis", 2, expected_version=stale)
    # Submit: blind until then, the judges revealed after.
    view = engine.blind_view(team, "a1", item)
    assert view["state"] == "in_progress" and view["missing"] and view["revealed"] is None
    _fill(team, "a1", item, 3)
    engine.submit(team, "a1", item)
    assert set(engine.blind_view(team, "a1", item)["revealed"]) == {"rule", "llm"}
    with pytest.raises(StateError):
        engine.set_field(team, "a1", item, "diagnosis", 0)
    # Conflict by the kind's rule, adjudicated with a required reason.
    _fill(team, other, item, 0, "U")
    engine.submit(team, other, item)
    found = engine.conflicts(team, "adj", item)
    assert found["diagnosis"] == "diagnosis: acceptable (2-3) vs unacceptable (0-1)"
    assert item in engine.open_conflicts(team, "adj")
    with pytest.raises(ValidationError, match="needs a reason"):
        engine.adjudicate(team, "adj", item, "diagnosis", 2, " ")
    engine.adjudicate(team, "adj", item, "diagnosis", 2, "rubric level 2 fits")
    engine.adjudicate(team, "adj", item, "diagnosis", 3, "on second reading")
    assert "diagnosis" not in engine.open_conflicts(team, "adj")[item]
    with team.read() as s:
        decided = [(e.before, e.after) for e in entries(s, action="judge_adjudicated")]
        sets = [(e.before, e.after) for e in entries(s, action="judge_score_set")
                if e.actor == "a1" and e.key == "diagnosis"]  # fmt: skip
    assert decided == [(None, 2), (2, 3)]
    assert sets[:3] == [(None, 1), (1, 3), (3, 1)]
    trail = engine.trail(team, "a1", item)
    assert [(t["key"], t["before"], t["after"]) for t in trail[:3]] == [
        ("diagnosis", None, 1), ("diagnosis", 1, 3), ("diagnosis", 3, 1)]
    assert trail[-1]["action"] == "judge_scores_submitted"
    assert engine.trail(team, other, item)[0]["action"] == "judge_score_set"
