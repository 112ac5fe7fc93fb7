"""Automatic calibration assignment (issue 26): every assign gives each rater in calibration
(set by the curator, or for their first N items) the calibration items of that kind they do
not hold yet, on top of their balanced share, and their queue puts them first."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotator.cli import main
from annotator.domain.labels import LabelEdit
from annotator.services import annotating, kinds, workspace
from annotator.services.assignments import assign, plan_assignment
from annotator.services.imports import import_cases
from annotator.services.judging import scoring as judge_scoring
from annotator.services.judging.imports import import_runs
from annotator.services.quality import mark_item, set_in_calibration, set_quality_settings
from factories import make_case, write_case_file
from judging.test_services import RUNS

REFERENCE = {"importance:Figure 1": "essential"}


@pytest.fixture
def five(team: Any, tmp_path: Path) -> Any:
    path = write_case_file(tmp_path / "drafts", [make_case(f"T{n}") for n in range(1, 6)])
    import_cases(team, "cu", [path])
    for case_id in ("T3", "T5"):
        mark_item(team, "cu", "case", case_id, "calibration", REFERENCE, "the key exam")
    return team


def _queue(project: Any, name: str) -> list[str]:
    return [r.case_id for r in workspace.case_list(project, name).rows]


def test_assign_gives_a_rater_in_calibration_the_calibration_cases_first(five: Any) -> None:
    set_in_calibration(five, "cu", "a1", True)
    plan = plan_assignment(five, "cu", 1)
    # The balanced share is what it would be without calibration (least loaded, by name)...
    share = [("T1", "a1"), ("T2", "a2"), ("T3", "a3"), ("T4", "a1"), ("T5", "a2")]
    # ... and a1 gets the calibration cases on top.
    assert plan.calibration == [("T3", "a1"), ("T5", "a1")]
    assert plan.assigned == share + plan.calibration
    assert [(b.annotator, b.new) for b in plan.balance] == [("a1", 4), ("a2", 2), ("a3", 1)]
    report = assign(five, "cu", 1)
    assert report.assigned == plan.assigned
    assert _queue(five, "a1") == ["T3", "T5", "T1", "T4"]  # calibration items first
    assert _queue(five, "a2") == ["T2", "T5"]  # not in calibration: by case id
    again = plan_assignment(five, "cu", 1)
    assert again.assigned == [] and again.calibration == []  # nothing twice


def test_the_first_n_rule_assigns_calibration_cases_too(five: Any) -> None:
    assign(five, "cu", 1)
    assert plan_assignment(five, "cu", 1).calibration == []  # nobody in calibration yet
    set_quality_settings(five, "cu", first_n=1)
    set_in_calibration(five, "cu", "a3", False)  # the curator's word beats the rule
    report = assign(five, "cu", 1)
    # a1 and a2 have submitted nothing: in calibration; a1 lacks T3 and T5, a2 lacks T3.
    assert sorted(report.assigned) == [("T3", "a1"), ("T3", "a2"), ("T5", "a1")]
    assert _queue(five, "a2") == ["T3", "T5", "T2"]


def test_a_case_in_review_or_a_withdrawn_calibration_case_is_not_given(five: Any) -> None:
    assign(five, "cu", 1)  # T1 to a1 alone
    annotating.accept_suggestions(five, "a1", "T1")
    kinds.CASES.set_fields(five, "a1", "T1",
                           [LabelEdit("importance:Figure 3", {"value": "optional", "how": "set"})])
    kinds.CASES.submit(five, "a1", "T1")
    assert annotating.view(five, "a1", "T1").case_state == "in_review"
    mark_item(five, "cu", "case", "T1", "calibration", REFERENCE, "reviewed")
    set_in_calibration(five, "cu", "a2", True)
    # T1 is in review: it takes no rater (it would leave review); a2 already holds T5.
    assert plan_assignment(five, "cu", 1).calibration == [("T3", "a2")]


def test_judge_assign_gives_calibration_outputs_first(team: Any) -> None:
    import_runs(team, "cu", RUNS)
    added = judge_scoring.assign(team, "cu", 1)
    mine = {i for i, _t, _s in judge_scoring.my_items(team, "a1")}
    other = next(i for i, _t, _s in judge_scoring.my_items(team, "a2") if i not in mine)
    mark_item(team, "cu", "judge", str(other), "calibration", {"diagnosis": 3}, "named")
    assert judge_scoring.assign(team, "cu", 1) == 0  # nobody in calibration
    set_in_calibration(team, "cu", "a1", True)
    assert judge_scoring.assign(team, "cu", 1) == 1
    assert judge_scoring.my_items(team, "a1")[0][0] == other
    assert judge_scoring.assign(team, "cu", 1) == 0
    assert added > 1


def _cli(project: Any, capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main(["--project", str(project.location), "--as", "cu", *argv]) == 0
    return capsys.readouterr().out


def test_assign_dry_run_and_the_commands_show_calibration_items(
    five: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    set_in_calibration(five, "cu", "a1", True)
    out = _cli(five, capsys, "assign", "--per-case", "1", "--dry-run").splitlines()
    assert out[-4:] == [
        "T3: calibration item for a1 (in calibration; on top of the share)",
        "T5: calibration item for a1 (in calibration; on top of the share)",
        "would make 7 assignment(s) on 5 case(s)",
        "dry run: nothing was written",
    ]
    assert _queue(five, "a1") == []
    assert _cli(five, capsys, "assign", "--per-case", "1").splitlines()[0] == \
        "7 assignment(s) made"
    assert _queue(five, "a1") == ["T3", "T5", "T1", "T4"]
    import_runs(five, "cu", RUNS)
    first = _cli(five, capsys, "judge-assign", "--per-item", "1")
    item = next(i for i, _t, _s in judge_scoring.my_items(five, "a2"))
    mark_item(five, "cu", "judge", str(item), "calibration", {"diagnosis": 3}, "named")
    assert first.endswith(" assignment(s) added\n")
    assert _cli(five, capsys, "judge-assign", "--per-item", "1") == "1 assignment(s) added\n"
    assert judge_scoring.my_items(five, "a1")[0][0] == item
