"""A case on the one rating engine: set, undo, submit (the case reaches review), conflict,
adjudicate; and ``annotator rate`` labelling a case from the command line."""

from __future__ import annotations

import json
from typing import Any

import pytest

from annotator.cli import main
from annotator.domain.labels import LabelEdit
from annotator.errors import ConflictError, StateError, ValidationError
from annotator.services import annotating, kinds
from annotator.services.review import queue
from annotator.store.history import entries


def test_a_case_through_the_engine(duo: Any) -> None:
    engine = kinds.KINDS["case"]
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
    assert main([*base, "--as", "a2", "rate", "case", "T2", "--history"]) == 0
    trail = json.loads(capsys.readouterr().out)
    assert trail[-1]["action"] == "submitted"
    assert {"action": "label", "key": "comment", "before": None, "after": "seen twice"} in [
        {k: t[k] for k in ("action", "key", "before", "after")} for t in trail]
    assert main([*base, "--as", "a1", "rate", "case", "T2", "--set", "difficulty"]) == 2
    assert "write KEY=VALUE" in capsys.readouterr().err


def test_rate_brings_a_demo_case_to_review(
    tmp_path: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    from annotator.services import workspace
    from annotator.services.demo import PHYSICIANS, build_demo
    from annotator.store.project import open_project

    location = str(tmp_path / "demo")
    build_demo(location)
    project = open_project(location, create=False)
    try:
        open_work = {name: [r for r in workspace.case_list(project, name).rows
                            if r.state != "submitted" and r.case_state == "annotating"]
                     for name in PHYSICIANS}  # fmt: skip
    finally:
        project.close()
    case_id = next(r.case_id for rows in open_work.values() for r in rows)
    raters = [name for name, rows in open_work.items() if any(r.case_id == case_id for r in rows)]
    said = ""
    for name in raters:
        base = ["--project", location, "--as", name, "rate", "case", case_id]
        assert main([*base, "--show"]) == 0
        missing = json.loads(capsys.readouterr().out)["missing"]
        figures = sorted({m.split(":")[0] for m in missing if m.startswith("Figure")})
        args = [*base, "--set", "difficulty=hard", "--set", "rarity=rare", "--submit"]
        for figure in figures:
            args += ["--set", f"importance:{figure}=essential", "--set", f"stage:{figure}=1"]
        assert main(args) == 0
        said = capsys.readouterr().out
    assert said == f"submitted {case_id} (the case is in_review)\n"
    project = open_project(location, create=False)
    try:
        assert workspace.case_row(project, raters[0], case_id).case_state == "in_review"
    finally:
        project.close()


def test_rate_refuses_the_whole_command_when_one_value_is_bad(
    duo: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    """The --set values of one command are one transaction: nothing half-applies."""
    base = ["--project", duo.location, "--as", "a1", "rate", "case", "T2"]
    before = annotating.view(duo, "a1", "T2")
    assert main([*base, "--set", "difficulty=hard", "--set", "stage:Figure 1=0"]) == 2
    assert "stage:Figure 1" in capsys.readouterr().err
    after = annotating.view(duo, "a1", "T2")
    assert (after.labels, after.version) == (before.labels, before.version)
    # "unranked" is the word for an explicitly unranked exam (an empty value clears the stage).
    assert main([*base, "--set", "stage:Figure 1=unranked"]) == 0
    assert annotating.view(duo, "a1", "T2").labels["stage:Figure 1"] == {"value": None,
                                                                        "how": "set"}
