"""A case on the one rating engine: set, undo, submit (the case reaches review), conflict,
adjudicate; and ``annotator rate`` labelling a case from the command line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from annotator.cli import main
from annotator.domain.labels import LabelEdit
from annotator.errors import ConflictError, StateError, ValidationError
from annotator.services import annotating, rating
from annotator.services.review import queue
from annotator.store.history import entries


def test_a_case_through_the_engine(duo: Any) -> None:
    engine = rating.KINDS["case"]
    assert engine.set_field(duo, "a1", "T1", "difficulty", "normal") is None
    stored = {"value": "normal", "how": "set"}  # a suggestible label records how it was set
    assert engine.blind_view(duo, "a1", "T1")["values"] == {"difficulty": stored}
    hard = LabelEdit("difficulty", {"value": "hard", "how": "set"})
    result = engine.set_fields(duo, "a1", "T1", [hard])
    assert result.inverse == [LabelEdit("difficulty", stored)]
    engine.set_fields(duo, "a1", "T1", result.inverse)  # undo
    assert annotating.view(duo, "a1", "T1").labels == {"difficulty": stored}
    with pytest.raises(ConflictError, match="changed elsewhere"):
        engine.set_field(duo, "a1", "T1", "difficulty", "hard",
                         expected_version=result.version - 2)
    with pytest.raises(ValidationError):
        engine.set_field(duo, "a1", "T1", "importance:Figure 99", "essential")
    with pytest.raises(StateError, match="cannot be submitted yet"):
        engine.submit(duo, "a1", "T1")
    for who, difficulty in (("a1", "normal"), ("a2", "extreme_hard")):
        annotating.accept_suggestions(duo, who, "T1")
        engine.set_field(duo, who, "T1", "difficulty", difficulty)
        moved = engine.submit(duo, who, "T1")
    assert moved == "in_review"
    with pytest.raises(StateError, match="already submitted"):
        engine.submit(duo, "a1", "T1")
    assert engine.conflicts(duo, "adj", "T1") == {"difficulty": "reviewers disagree"}
    assert "T1" in engine.open_conflicts(duo, "adj")
    engine.adjudicate(duo, "adj", "T1", "difficulty", "hard",
                      "clinical_judgement: both defensible")
    assert "T1" not in engine.open_conflicts(duo, "adj")
    with duo.read() as s:
        decided = [(e.key, e.after, e.detail) for e in entries(s, action="adjudicated")]
    assert decided == [("difficulty", "hard", {"reason_code": "clinical_judgement",
                                         "reason_text": "both defensible"})]


def test_rate_labels_a_case_from_the_command_line(
    duo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--project", duo.location]
    assert main([*base, "--as", "a1", "rate", "case", "T2", "--show"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["kind"] == "case" and shown["state"] == "assigned" and shown["missing"]
    figures = sorted({m.split(":")[0] for m in shown["missing"] if m.startswith("Figure")})
    for who in ("a1", "a2"):
        args = [*base, "--as", who, "rate", "case", "T2"]
        for figure in figures:
            args += ["--set", f"importance:{figure}=essential", "--set", f"stage:{figure}=1"]
        args += ["--set", "difficulty=hard", "--set", "rarity=common", "--set",
                 'comment="seen twice"', "--submit"]  # fmt: skip
        assert main(args) == 0, capsys.readouterr().err
    out = capsys.readouterr().out
    assert "submitted T2 (the case is annotating)" in out
    assert "submitted T2 (the case is in_review)" in out
    assert annotating.view(duo, "a1", "T2").labels["comment"] == "seen twice"
    assert any(entry.case_id == "T2" for entry in queue.case_queue(duo, "adj"))
    assert main([*base, "--as", "a1", "rate", "case", "T2", "--set", "difficulty"]) == 2
    assert "write KEY=VALUE" in capsys.readouterr().err
