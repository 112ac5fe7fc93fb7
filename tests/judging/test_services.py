"""Judged runs through the services: import, blinding, scoring, conflicts, CSV, agreement."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from annotator.cli import main
from annotator.errors import StateError, ValidationError
from annotator.judging.runfile import load_run
from annotator.resources import judged_runs_dir
from annotator.services import kinds
from annotator.services.judging import review as judge_review
from annotator.services.judging import scoring as judge_scoring
from annotator.services.judging.agreement import judge_agreement
from annotator.services.judging.imports import import_runs
from annotator.services.judging.sheets import import_scores_csv
from annotator.store.history import entries
from annotator.store.schema import JudgedRun, JudgeItem, JudgeModeScore

RUNS = sorted(judged_runs_dir().glob("*.benchmark_full.json"))


def _counts(project: Any) -> tuple[int, int, int]:
    with project.tx() as s:
        return tuple(  # type: ignore[return-value]
            s.scalar(select(func.count()).select_from(t))
            for t in (JudgedRun, JudgeItem, JudgeModeScore)
        )


def test_import_both_fixtures_and_reimport_is_a_noop(team: Any) -> None:
    report = import_runs(team, "cu", RUNS)
    assert sorted(report.imported) == ["agent-alpha", "agent-beta-2"]
    assert _counts(team) == (2, 8, 16)
    with team.tx() as s:
        order = [i.run_id for i in s.scalars(select(JudgeItem).order_by(JudgeItem.position))]
        positions = sorted(s.scalars(select(JudgeItem.position)))
    assert positions == list(range(1, 9))
    assert order != sorted(order, key=order.index)  # the two runs' outputs are interleaved
    again = import_runs(team, "cu", RUNS)
    assert again.imported == [] and sorted(again.unchanged) == ["agent-alpha", "agent-beta-2"]
    assert _counts(team) == (2, 8, 16)


def test_failed_judge_mode_is_imported_missing(team: Any, tmp_path: Path) -> None:
    data = json.loads(RUNS[0].read_text())
    judge = data["case_results"][1]["judge"]
    del judge["by_mode"]["llm"]
    judge["errors"] = {"llm": "timeout after 180 s"}
    path = tmp_path / "run.json"
    path.write_text(json.dumps(data))
    report = import_runs(team, "cu", [path])
    assert report.missing == ["agent-alpha demo-002: llm failed"]
    assert _counts(team) == (1, 4, 7)


def test_a_refused_file_writes_nothing(team: Any, tmp_path: Path) -> None:
    bad = tmp_path / "benchmark_summary.json"
    bad.write_text(json.dumps({"run_config": {"target_model": "x"}}))
    with pytest.raises(ValidationError, match="no case_results"):
        import_runs(team, "cu", [RUNS[0], bad])
    assert _counts(team) == (0, 0, 0)
    assert main(["--project", team.location, "--as", "cu", "judge-import", str(bad)]) == 2


def _fill(project: Any, who: str, item: Any, base: int, label: str = "A") -> None:
    view = judge_scoring.view(project, who, item)
    for key in ("diagnosis", "localization", "differential_list"):
        kinds.JUDGE.set_field(project, who, item, key, base)
    for dx in view.trajectory:
        kinds.JUDGE.set_field(project, who, item, f"trajectory/{dx}/score", base)
        kinds.JUDGE.set_field(project, who, item, f"trajectory/{dx}/label", label)


def test_blinding_scoring_reveal_conflict_and_agreement(team: Any) -> None:
    import_runs(team, "cu", RUNS)
    assert judge_scoring.assign(team, "cu", 2) == 16
    mine = judge_scoring.my_items(team, "a1")
    item, title, _ = mine[0]
    assert title.startswith("output ") and " of 8" in title
    view = judge_scoring.view(team, "a1", item)
    blob = json.dumps(dataclasses.asdict(view), default=str)
    for secret in ("agent-alpha", "agent-beta-2", "scripted-lenient-judge", "reason"):
        assert secret not in blob
    assert view.judges == {}
    with pytest.raises(StateError):
        kinds.JUDGE.reveal(team, "a1", item)
    with pytest.raises(ValidationError):
        kinds.JUDGE.set_field(team, "a1", item, "diagnosis", 4)
    with pytest.raises(ValidationError, match="not scored yet"):
        kinds.JUDGE.submit(team, "a1", item)
    _fill(team, "a1", item, 3)
    kinds.JUDGE.submit(team, "a1", item)
    assert set(kinds.JUDGE.reveal(team, "a1", item)) == {"rule", "llm"}
    assert judge_scoring.view(team, "a1", item).judges["rule"]["reasons"]
    with pytest.raises(StateError):
        kinds.JUDGE.set_field(team, "a1", item, "diagnosis", 0)
    # The other physician on the item scores it unacceptable: a conflict on every key.
    other = next(
        n for n in ("a2", "a3") if item in [i for i, _, _ in judge_scoring.my_items(team, n)]
    )
    _fill(team, other, item, 0, "U")
    kinds.JUDGE.submit(team, other, item)
    found = judge_review.list_conflicts(team, "adj")
    assert {c.key for c in found} >= {"diagnosis", "localization", "differential_list"}
    assert "acceptable" in found[0].reason or "labels differ" in found[0].reason
    kinds.JUDGE.adjudicate(team, "adj", item, "diagnosis", 2, "rubric level 2 fits")
    assert {c.key for c in judge_review.list_conflicts(team, "adj", open_only=True)} == {
        c.key for c in found
    } - {"diagnosis"}
    report = judge_agreement(team, "cu")
    assert report["raters"] == ["llm", "rule", "a1", other, "human"]
    json.dumps(report, allow_nan=False)
    human_rule = next(p for p in report["pairs"] if p["a"] == "rule" and p["b"] == "human")
    assert human_rule["targets"]["diagnosis"]["n"] == 1  # only the adjudicated key


def test_history_records_each_score(team: Any) -> None:
    import_runs(team, "cu", RUNS[:1])
    judge_scoring.assign(team, "cu", 1)
    item = judge_scoring.my_items(team, "a1")[0][0]
    kinds.JUDGE.set_field(team, "a1", item, "diagnosis", 2)
    kinds.JUDGE.set_field(team, "a1", item, "diagnosis", 1)
    with team.tx() as s:
        sets = [e for e in entries(s, action="judge_score_set") if e.actor == "a1"]
    assert [(e.before, e.after) for e in sets] == [(None, 2), (2, 1)]


HEADER = "scorer,run,case_id,target,diagnosis,score,label\n"


def test_csv_import_applies_all_or_nothing(team: Any, tmp_path: Path) -> None:
    import_runs(team, "cu", RUNS)
    path = tmp_path / "scores.csv"
    path.write_text(
        HEADER
        + "a1,agent-alpha,demo-001,diagnosis,,2,\n"
        + "a1,agent-alpha,demo-001,localisation,,2,\n"
        + "zz,agent-alpha,demo-001,diagnosis,,2,\n"
        + "a1,agent-alpha,demo-001,trajectory,no such dx,2,E\n"
        + "a1,agent-gamma,demo-001,diagnosis,,2,\n"
        + "a1,agent-alpha,demo-001,differential_list,,7,\n"
    )
    with pytest.raises(ValidationError) as info:
        import_scores_csv(team, "cu", path)
    message = str(info.value)
    for expected in (
        "line 3: target",
        "line 4: scorer 'zz'",
        "line 5: 'no such dx'",
        "line 6: run 'agent-gamma' is not imported",
        "line 7: score must be",
    ):
        assert expected in message
    assert "\n" not in message
    assert judge_scoring.my_items(team, "a1") == []  # nothing half-applied

    run, _ = load_run(RUNS[0])
    dxs = run.model_payload(run.case_results[0])["trajectory_unique_diagnoses"]
    lines = [
        f"a1,agent-alpha,demo-001,{t},,2,"
        for t in ("diagnosis", "localization", "differential_list")
    ]
    lines += [f'a1,agent-alpha,demo-001,trajectory,"{d}",1,U' for d in dxs]
    path.write_text(HEADER + "\n".join(lines) + "\n")
    report = import_scores_csv(team, "cu", path)
    assert report.submitted == 1
    ratings, _, physicians = judge_review.all_ratings(team, "cu")
    assert physicians == ["a1"]
    assert ratings["human"][("agent-alpha", "demo-001")]["diagnosis"] == 2


def test_cli_agreement_writes_json_csv_html(
    team: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["--project", team.location, "--as", "cu"]
    assert main([*base, "judge-import", *map(str, RUNS)]) == 0
    assert main([*base, "judge-agreement", "--json", "--out", str(tmp_path / "o")]) == 0
    out = capsys.readouterr().out
    report = json.loads(out[out.index("{") :])
    assert report["raters"] == ["llm", "rule"]
    pair = report["pairs"][0]
    assert pair["n_items"] == 8 and pair["targets"]["diagnosis"]["n"] == 8
    assert set(report) == {"raters", "pairs"}
    assert set(pair) == {"a", "b", "n_items", "targets", "macro_binary"}
    assert set(pair["targets"]["diagnosis"]) == {"binary", "n", "ci", "exact", "within_one", "qwk"}
    folder = tmp_path / "o"
    assert {p.name for p in folder.iterdir()} == {
        "judge-agreement.json",
        "judge-agreement.csv",
        "judge-agreement.html",
        "judge-agreement-extras.json",
    }
    assert json.loads((folder / "judge-agreement.json").read_text()) == report
    assert set(json.loads((folder / "judge-agreement-extras.json").read_text())) == {
        "macro_ci",
        "run_means",
        "big_differences",
    }


def test_demo_scoring_disagrees_and_adjudicates(team: Any) -> None:
    from annotator.services.judging.demo import demo_judge_scoring

    demo_judge_scoring(team, "cu", "adj", seed=7)
    found = judge_review.list_conflicts(team, "adj")
    assert found, "the simulated physicians should disagree somewhere"
    assert sum(c.decided is not None for c in found) == 1
    report = judge_agreement(team, "cu")
    assert report["raters"][:2] == ["llm", "rule"] and report["raters"][-1] == "human"
    assert report["run_means"]


def test_an_item_whose_case_is_in_the_project_links_to_it(team: Any) -> None:
    from annotator.resources import demo_cases_dir
    from annotator.services.imports import import_cases

    import_cases(team, "cu", [demo_cases_dir() / "demo-001.json"])
    import_runs(team, "cu", RUNS[:1])
    judge_scoring.assign(team, "cu", 3)
    views = [judge_scoring.view(team, "a1", i) for i, _, _ in judge_scoring.my_items(team, "a1")]
    linked = {v.case_id: v.linked_images for v in views}
    assert linked["demo-002"] is None
    assert (linked["demo-001"] or 0) > 0


def test_conflicts_and_agreement_are_for_seniors_and_curators_only(
    team: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    # They show other physicians' scores, the judges' scores and the runs' model names: a
    # physician (or a name that is not a user) reading them would be unblinded.
    from annotator.errors import PermissionDenied
    from annotator.services.judging.demo import demo_judge_scoring

    demo_judge_scoring(team, "cu", "adj", seed=7)
    for who in ("a1", "nobody", ""):
        with pytest.raises(PermissionDenied):
            judge_review.list_conflicts(team, who)
        with pytest.raises(PermissionDenied):
            judge_agreement(team, who)
        with pytest.raises(PermissionDenied):
            judge_review.all_ratings(team, who)
    assert judge_review.list_conflicts(team, "adj") and judge_agreement(team, "cu")["pairs"]
    base = ["--project", team.location, "--as", "a1"]
    for command in (["judge-conflicts"], ["judge-agreement", "--json"]):
        assert main([*base, *command]) != 0
        captured = capsys.readouterr()
        assert "agent-alpha" not in captured.out and "adjudicator" in captured.err
