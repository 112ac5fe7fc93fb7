"""Calibration and gold items (issue 26): the reference shows only after submitting, gold
answers only when the curator chooses; accuracy against the reference per rater."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotator.domain.labels import LabelEdit
from annotator.errors import PermissionDenied, StateError, ValidationError
from annotator.services import annotating, kinds, workspace
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.judging import scoring as judge_scoring
from annotator.services.judging.imports import import_runs
from annotator.services.quality import (
    calibration_first,
    mark_item,
    set_in_calibration,
    set_quality_settings,
    snapshot,
    unmark_item,
)
from annotator.services.rating.repeats import add_repeats
from factories import make_case, write_case_file
from judging.test_services import RUNS, _fill

REFERENCE = {"importance:Figure 1": "essential", "importance:Figure 2": "essential",
             "importance:Figure 3": "optional"}


@pytest.fixture
def cases(team: Any, tmp_path: Path) -> Any:
    path = write_case_file(tmp_path / "drafts", [make_case("T1"), make_case("T2")])
    import_cases(team, "cu", [path])
    assign(team, "cu", 3)
    return team


def _complete(project: Any, name: str, case_id: str, fig3: str) -> None:
    annotating.accept_suggestions(project, name, case_id)
    kinds.CASES.set_fields(project, name, case_id,
                           [LabelEdit("importance:Figure 3", {"value": fig3, "how": "set"})])
    kinds.CASES.submit(project, name, case_id)


def test_calibration_feedback_only_after_submitting(cases: Any) -> None:
    assert mark_item(cases, "cu", "case", "T1", "calibration", REFERENCE,
                     "FLAIR of the brain does not change the workup") == "T1"
    with pytest.raises(StateError, match="submit your answer"):
        kinds.CASES.feedback(cases, "a1", "T1")
    view = kinds.CASES.blind_view(cases, "a1", "T1")
    assert view["feedback"] is None and "essential" not in repr(view["values"])
    annotating.accept_suggestions(cases, "a1", "T1")
    assert kinds.CASES.blind_view(cases, "a1", "T1")["feedback"] is None  # still not submitted
    _complete(cases, "a1", "T1", "essential")
    shown = kinds.CASES.feedback(cases, "a1", "T1")
    assert shown is not None and shown["purpose"] == "calibration"
    assert shown["reference"] == REFERENCE
    assert shown["reason"] == "FLAIR of the brain does not change the workup"
    assert shown["yours"]["importance:Figure 3"] == {"value": "essential", "how": "set"}
    assert kinds.CASES.blind_view(cases, "a1", "T1")["feedback"] == shown
    # Another case is no calibration item: nothing to show.
    _complete(cases, "a1", "T2", "optional")
    assert kinds.CASES.feedback(cases, "a1", "T2") is None


def test_gold_answers_are_shown_only_when_the_curator_chooses(cases: Any) -> None:
    with pytest.raises(ValidationError, match="no gold items"):
        mark_item(cases, "cu", "case", "T2", "gold", REFERENCE, "consensus panel")
    set_quality_settings(cases, "cu", gold=True)
    mark_item(cases, "cu", "case", "T2", "gold", REFERENCE, "consensus panel")
    _complete(cases, "a1", "T2", "optional")
    _complete(cases, "a2", "T2", "essential")
    assert kinds.CASES.feedback(cases, "a1", "T2") is None
    set_quality_settings(cases, "cu", show_gold=True)
    assert kinds.CASES.feedback(cases, "a1", "T2")["purpose"] == "gold"  # type: ignore[index]
    # Accuracy against the gold answer, per rater: exact agreement for categories.
    raters = {q.rater: q for q in snapshot(cases, "cu").raters}
    gold_a1 = next(r for r in raters["a1"].gold if r["family"] == "importance")
    gold_a2 = next(r for r in raters["a2"].gold if r["family"] == "importance")
    assert gold_a1["agreement"]["value"] == 1.0 and gold_a1["agreement"]["n"] == 3
    assert gold_a2["agreement"]["value"] == pytest.approx(2 / 3)
    assert gold_a2["coefficient"] == "cohen_kappa"
    assert gold_a1["agreement"]["low"] is None  # below Wilson's minimum n: no interval
    assert raters["a1"].score is not None and raters["a1"].score > raters["a2"].score  # type: ignore[operator]
    unmark_item(cases, "cu", "case", "T2", "gold")
    assert kinds.CASES.feedback(cases, "a1", "T2") is None


def test_an_adjudicated_answer_can_be_promoted(cases: Any) -> None:
    with pytest.raises(ValidationError, match="nothing adjudicated"):
        mark_item(cases, "cu", "case", "T1", "calibration", None, "panel")
    with pytest.raises(ValidationError, match="needs a reason"):
        mark_item(cases, "cu", "case", "T1", "calibration", REFERENCE, " ")
    with pytest.raises(PermissionDenied):
        mark_item(cases, "a1", "case", "T1", "calibration", REFERENCE, "mine")
    with pytest.raises(ValidationError, match="Figure 9"):  # no such exam in the draft
        mark_item(cases, "cu", "case", "T1", "calibration", {"importance:Figure 9": "essential"},
                  "typo")
    with pytest.raises(ValidationError):
        mark_item(cases, "cu", "case", "T1", "calibration", {"importance:Figure 1": "vital"},
                  "not a value of the family")


def test_who_is_in_calibration(cases: Any) -> None:
    mark_item(cases, "cu", "case", "T2", "calibration", REFERENCE, "panel")
    assert calibration_first(cases, "a1", "case") == []
    assert [r.case_id for r in workspace.case_list(cases, "a1").rows] == ["T1", "T2"]
    set_quality_settings(cases, "cu", first_n=1)
    assert calibration_first(cases, "a1", "case") == ["T2"]  # first N items: automatic
    # ... rated first: the queue puts them at the top.
    assert [r.case_id for r in workspace.case_list(cases, "a1").rows] == ["T2", "T1"]
    _complete(cases, "a1", "T1", "optional")
    assert calibration_first(cases, "a1", "case") == []  # done one: out
    set_in_calibration(cases, "cu", "a1", True)  # the curator puts them back
    assert calibration_first(cases, "a1", "case") == ["T2"]
    set_in_calibration(cases, "cu", "a2", False)
    assert calibration_first(cases, "a2", "case") == []


def test_judged_outputs_calibration_and_repeats(team: Any) -> None:
    """Judged outputs on the same engine: a calibration item, a hidden repeat."""
    import_runs(team, "cu", RUNS)
    judge_scoring.assign(team, "cu", 2)
    item = judge_scoring.my_items(team, "a1")[0][0]
    reference = {"diagnosis": 3}
    with pytest.raises(ValidationError):
        mark_item(team, "cu", "judge", str(item), "calibration", {"diagnosis": 7}, "off scale")
    mark_item(team, "cu", "judge", str(item), "calibration", reference, "the key finding is named")
    with pytest.raises(StateError):
        kinds.JUDGE.feedback(team, "a1", item)
    _fill(team, "a1", item, 2)
    kinds.JUDGE.submit(team, "a1", item)
    assert kinds.JUDGE.feedback(team, "a1", item)["reference"] == reference  # type: ignore[index]
    before = kinds.JUDGE.conflicts(team, "adj", item)
    assert add_repeats(team, "cu", "judge", 1.0, 0).count == 1
    assert [s for i, _t, s in judge_scoring.my_items(team, "a1") if i == item] == [False]
    view = kinds.JUDGE.blind_view(team, "a1", item)
    assert view["values"] == {} and view["state"] == "assigned"
    assert kinds.JUDGE.trail(team, "a1", item) == []  # the first scores stay out of sight
    _fill(team, "a1", item, 0, "U")
    kinds.JUDGE.submit(team, "a1", item)
    assert kinds.JUDGE.conflicts(team, "adj", item) == before
    a1 = next(q for q in snapshot(team, "cu").raters if q.rater == "a1")
    diagnosis = next(r for r in a1.intra if r["family"] == "diagnosis")
    assert diagnosis["scale"] == "scores" and diagnosis["agreement"]["value"] == 2.0
    calibration = next(r for r in a1.calibration if r["family"] == "diagnosis")
    assert calibration["agreement"]["value"] == 1.0  # |2 - 3|
