"""The demo's SME review: benchmarks written for the demo, ~20 items, simulated verdicts with
conflicts, one adjudicated item, and open work in every queue state."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from annotator.resources import asset_path
from annotator.services.demo import PHYSICIANS, SENIOR, build_demo
from annotator.services.sme import adjudication as sme_adjudication
from annotator.services.sme import review as sme_review
from annotator.services.sme.results import results
from annotator.sme.lint import lint
from annotator.store.project import open_project


def test_demo_benchmarks_lint_clean_but_for_the_spec_shaped_warnings() -> None:
    result = lint([asset_path("sme_demo")])
    assert result.errors == []
    assert sorted((b.parent_rubric, b.evaluator_type) for b, _ in result.benchmarks) == [
        ("A-NEG", "hybrid"), ("A-NEG", "manual_sme"), ("S-HND", "hybrid"), ("S-HND", "manual_sme"),
    ]  # fmt: skip
    # A-NEG1 keeps the specification's shape: no "Flag if", no threshold in the concept.
    assert sorted(p.code for p in result.warnings) == ["W-FLAG-IF", "W-THRESHOLD"]


def test_demo_has_verdicts_conflicts_and_one_adjudicated_item(tmp_path: Path) -> None:
    build_demo(str(tmp_path / "demo"))
    project = open_project(str(tmp_path / "demo"), create=False)
    try:
        conflicts = sme_adjudication.list_conflicts(project, SENIOR)
        decided = {c.item_id for c in conflicts if c.decided is not None}
        still_open = {(c.item_id, c.key) for c in conflicts if c.decided is None}
        assert decided == {"neg2-03"}
        assert still_open == {
            ("neg1-04", "outcome"), ("neg1-04", "score"), ("hnd1-05", "applicability"),
        }  # fmt: skip
        states = Counter(e.state for n in PHYSICIANS for e in sme_review.queue(project, n))
        assert sum(states.values()) == 40  # 20 items x 2 SMEs
        assert states["assigned"] == 1 and states["in_progress"] == 1
        found = results(project, SENIOR)
        assert [r.code for r in found.rubrics] == ["A-NEG", "S-HND"]
        assert all(r.score is not None for r in found.rubrics)
        # 4-5 items per benchmark: too few for an interval, so no threshold is decided
        # (S-HND2's 0.8625 >= 0.85 on 4 items used to read "met").
        assert all(r.score_ci is None for r in found.rubrics)
        hnd2 = next(b for b in found.benchmarks if b.code == "S-HND2")
        assert hnd2.score_n == 4 and hnd2.threshold_decision == "undetermined"
        assert sum(b.undecided for b in found.benchmarks) == 2  # neg1-04, hnd1-05
        assert sum(b.unsubmitted for b in found.benchmarks) == 0  # every item has a verdict
        neg2 = next(r for r in found.reliability if r.code == "A-NEG2")
        # The planted disagreement pulls its ICC under 0.75, but on 4-5 tasks its interval
        # spans most of [-1, 1]: no flag from so few units.
        assert neg2.icc is not None and neg2.icc < 0.75 and neg2.icc_units < 10
        assert neg2.flags == []
        hybrid = next(r for r in found.reliability if r.code == "A-NEG1")
        assert hybrid.automated is not None and hybrid.automated["outcome_units"] >= 3
    finally:
        project.close()


def test_review_status_names_the_sme_and_judge_conflicts_waiting_elsewhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from annotator.cli import main
    from annotator.services.judging import review as judge_review

    build_demo(str(tmp_path / "demo"))
    project = open_project(str(tmp_path / "demo"), create=False)
    try:
        sme_open = sme_adjudication.list_conflicts(project, SENIOR, open_only=True)
        judge_open = judge_review.list_conflicts(project, SENIOR, open_only=True)
    finally:
        project.close()
    assert sme_open and judge_open  # the demo leaves work in both queues
    code = main(["--project", str(tmp_path / "demo"), "--as", SENIOR, "review", "--status",
                 "--json"])
    others = json.loads(capsys.readouterr().out)["other_queues"]
    assert code == 0
    assert others["sme_verdicts"] == {"items": len({c.task_id for c in sme_open}),
                                      "open_conflicts": len(sme_open)}
    assert others["judge_scoring"] == {"items": len({c.item_id for c in judge_open}),
                                       "open_conflicts": len(judge_open)}
    # An annotator may not count other people's conflicts.
    assert main(["--project", str(tmp_path / "demo"), "--as", PHYSICIANS[0], "review",
                 "--status"]) != 0
