"""An SME task on the one rating engine: set, undo, submit, reveal, conflict, adjudicate."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.errors import PermissionDenied, StateError, ValidationError
from annotator.services import kinds
from annotator.services.sme import review as sme_review
from annotator.store.history import entries

from .test_services import _give, _reviewers, _task, sme  # noqa: F401 (the fixture)


def test_an_sme_task_through_the_engine(sme: Any) -> None:  # noqa: F811
    engine = kinds.KINDS["sme"]
    task = _task(sme, "it-05", "A-NEG1")  # hybrid: the automated verdict is revealed
    a, b = _reviewers(sme, task)
    assert engine.set_field(sme, a, task, "outcome", "pass") is None
    assert engine.set_field(sme, a, task, "outcome", "flag") == "pass"
    assert engine.set_field(sme, a, task, "outcome", "pass") == "flag"  # undo
    assert engine.blind_view(sme, a, task)["values"] == {"outcome": "pass"}
    with pytest.raises(StateError, match="submit your verdict"):
        engine.reveal(sme, a, task)
    with pytest.raises(ValidationError, match="not given yet"):
        engine.submit(sme, a, task)
    _give(sme, a, task, applicability="applicable", outcome="pass", score=1)
    shown = engine.blind_view(sme, a, task)
    assert shown["state"] == "submitted" and shown["revealed"] == engine.reveal(sme, a, task)
    with pytest.raises(StateError, match="no longer change"):
        engine.set_field(sme, a, task, "score", 1)
    clause = sme_review.view(sme, b, task).benchmark.exclusion_choices[0]
    _give(sme, b, task, applicability="excluded", rationale="double negative",
          exclusion_clause=clause)  # fmt: skip
    assert engine.conflicts(sme, "adj", task) == {"applicability": "applicable vs excluded"}
    with pytest.raises(PermissionDenied):
        engine.conflicts(sme, a, task)
    with pytest.raises(ValidationError, match="not in conflict"):
        engine.adjudicate(sme, "adj", task, "outcome", "pass", "why")
    with pytest.raises(ValidationError, match="needs a reason"):
        engine.adjudicate(sme, "adj", task, "applicability", "applicable", "")
    engine.adjudicate(sme, "adj", task, "applicability", "applicable", "criteria met")
    assert task not in engine.open_conflicts(sme, "adj")
    with sme.read() as s:
        found = entries(s, action="sme_adjudicated")
        decided = [(e.key, e.after, e.detail["reason"]) for e in found]
    assert decided == [("applicability", "applicable", "criteria met")]
    trail = [(t["action"], t["key"], t["after"]) for t in engine.trail(sme, a, task)]
    assert trail[:3] == [("sme_field_set", "outcome", "pass"), ("sme_field_set", "outcome", "flag"),
                         ("sme_field_set", "outcome", "pass")]
    assert trail[-1][0] == "sme_submitted"
