"""SME review through the services on SQLite and PostgreSQL: import, assignment, blinding,
autosave and undo, submit, conflicts and adjudication, re-check after a changed benchmark,
results, and the command line."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from annotator.cli import main
from annotator.errors import NotFound, PermissionDenied, StateError, ValidationError
from annotator.services import kinds
from annotator.services.sme import adjudication as sme_adjudication
from annotator.services.sme import review as sme_review
from annotator.services.sme.imports import ImportRejected, import_benchmarks, import_items
from annotator.services.sme.results import compare, results, systems
from annotator.store.history import entries
from annotator.store.schema import SmeBenchmark, SmeItem, SmeTask, SmeVerdict

from .reviews import give as _give
from .reviews import item as _item
from .reviews import jsonl as _jsonl
from .reviews import review_two_systems
from .reviews import reviewers as _reviewers
from .reviews import task as _task
from .specs import ANEG1, benchmark, valid_set, write


@pytest.fixture
def sme(team: Any, tmp_path: Path) -> Any:
    """The team's project with A-NEG1 (hybrid) and A-NEG2 (manual) and 6 items, assigned."""
    import_benchmarks(team, "cu", valid_set(tmp_path))
    items = [_item(n) for n in range(1, 5)] + [_item(n, "A-NEG1") for n in range(5, 7)]
    import_items(team, "cu", [_jsonl(tmp_path, "items.jsonl", items)])
    assert sme_review.assign(team, "cu", per_item=2) == 12
    return team


def _count(project: Any, table: Any) -> int:
    with project.tx() as s:
        return int(s.scalar(select(func.count()).select_from(table)) or 0)


PASS = {"applicability": "applicable", "outcome": "pass", "score": 4}


def test_import_reimport_and_assignment_balance(sme: Any, tmp_path: Path) -> None:
    assert (_count(sme, SmeBenchmark), _count(sme, SmeItem), _count(sme, SmeTask)) == (2, 6, 6)
    again = import_benchmarks(sme, "cu", valid_set(tmp_path))
    assert again.unchanged == ["A-NEG1", "A-NEG2"] and not again.added
    report = import_items(sme, "cu", [tmp_path / "items.jsonl"])
    assert (report.added, report.unchanged) == (0, 6)
    loads = Counter(e.state for n in ("a1", "a2", "a3") for e in sme_review.queue(sme, n))
    assert loads == {"assigned": 12}
    assert sorted(len(sme_review.queue(sme, n)) for n in ("a1", "a2", "a3")) == [4, 4, 4]
    assert sme_review.assign(sme, "cu", per_item=2) == 0  # idempotent
    assert [c for c, _ in sme_review.my_benchmarks(sme, "a1")] == ["A-NEG1", "A-NEG2"]
    assert {e.benchmark for e in sme_review.queue(sme, "a1", "A-NEG1")} <= {"A-NEG1"}


def test_item_import_errors_name_file_line_and_reason_and_write_nothing(
    sme: Any, tmp_path: Path
) -> None:
    bad = [
        _item(10),
        _item(11, output=None),
        _item(12, "A-ZZZ9"),
        _item(13, automated={"score": 0.5}),  # A-NEG2 is manual_sme
        _item(14, "A-NEG1", automated={"score": 7}),
        _item(10),
    ]
    path = _jsonl(tmp_path, "bad.jsonl", bad)
    with path.open("a") as handle:
        handle.write("{not json\n")
    with pytest.raises(ImportRejected) as caught:
        import_items(sme, "cu", [path])
    text = "\n".join(caught.value.lines)
    assert f"{path}:7: not valid JSON" in text
    assert f"{path}:2: item it-11:" in text and "output" in text
    assert f"{path}:3: item it-12: unknown benchmark A-ZZZ9" in text
    assert f"{path}:4: item it-13: automated verdict for A-NEG2, which is not hybrid" in text
    assert f"{path}:5: item it-14: automated score 7 is outside A-NEG1's scale 0..1" in text
    assert f"{path}:6: item it-10: item id also used at {path}:1" in text
    assert _count(sme, SmeItem) == 6  # it-10 was good, but nothing half-applies


def test_benchmark_errors_write_nothing(team: Any, tmp_path: Path) -> None:
    paths = [write(tmp_path, "a.yaml", ANEG1), write(tmp_path, "b.yaml", benchmark(weight=0.5))]
    with pytest.raises(ImportRejected, match="E-WEIGHT-SUM"):
        import_benchmarks(team, "cu", paths)
    assert _count(team, SmeBenchmark) == 0
    with pytest.raises(PermissionDenied):
        import_benchmarks(team, "a1", valid_set(tmp_path))


def test_blinding_in_the_service_layer(sme: Any) -> None:
    task = _task(sme, "it-05", "A-NEG1")
    first, second = _reviewers(sme, task)
    outsider = ({"a1", "a2", "a3"} - {first, second}).pop()
    view = sme_review.view(sme, first, task)
    assert view.automated is None and "copilot" not in repr(view)  # no system name either
    with pytest.raises(StateError, match="submit your verdict"):
        kinds.SME.reveal(sme, first, task)
    with pytest.raises(NotFound):
        sme_review.view(sme, outsider, task)  # not assigned: cannot read the item's verdicts
    _give(sme, second, task, applicability="applicable", outcome="pass", score=0.9)
    assert "score" not in sme_review.view(sme, first, task).fields  # never the other SME's
    with pytest.raises(PermissionDenied):
        sme_adjudication.list_conflicts(sme, first)
    with pytest.raises(PermissionDenied):
        results(sme, first)
    _give(sme, first, task, applicability="applicable", outcome="pass", score=1.0)
    after = sme_review.view(sme, first, task)
    assert after.submitted and after.automated == {"score": 0.9, "outcome": "pass", "judge": "llm"}
    assert kinds.SME.reveal(sme, first, task) == after.automated


def test_view_shows_json_pretty_and_field_diff(sme: Any) -> None:
    task = _task(sme, "it-01")
    who = _reviewers(sme, task)[0]
    view = sme_review.view(sme, who, task)
    assert view.output.is_json and view.output.text.startswith("{\n  ")
    assert [(d.path, d.kind, d.ground_truth, d.output) for d in view.diff or []] == [
        ("chest_pain", "changed", True, False)
    ]
    card = view.benchmark
    assert card.flag_choices[-1] == "other" and len(card.flag_choices) == 3
    assert [lv.value for lv in card.levels] == [4.0, 3.0, 2.0, 0.0]
    neg1 = sme_review.view(
        sme, _reviewers(sme, _task(sme, "it-05", "A-NEG1"))[0], _task(sme, "it-05", "A-NEG1")
    )
    assert neg1.benchmark.flag_if is None and neg1.benchmark.flag_choices == []


def test_autosave_undo_submit_and_history(sme: Any) -> None:
    task = _task(sme, "it-02")
    who = _reviewers(sme, task)[0]
    assert kinds.SME.set_field(sme, who, task, "applicability", "excluded") is None
    assert kinds.SME.set_field(sme, who, task, "applicability", "applicable") == "excluded"
    previous = kinds.SME.set_field(sme, who, task, "score", 3)
    kinds.SME.set_field(sme, who, task, "score", previous)  # undo
    assert "score" not in sme_review.view(sme, who, task).fields
    assert sme_review.queue(sme, who, "A-NEG2")[0].state in ("in_progress", "assigned")
    with pytest.raises(ValidationError, match="not given yet: outcome, score"):
        kinds.SME.submit(sme, who, task)
    kinds.SME.set_field(sme, who, task, "outcome", "flag")
    kinds.SME.set_field(sme, who, task, "score", 1)
    with pytest.raises(ValidationError, match="flag_condition, rationale"):
        kinds.SME.submit(sme, who, task)
    choice = sme_review.view(sme, who, task).benchmark.flag_choices[0]
    kinds.SME.set_field(sme, who, task, "flag_condition", choice)
    kinds.SME.set_field(sme, who, task, "rationale", "polarity inverted")
    kinds.SME.submit(sme, who, task)
    with pytest.raises(StateError):
        kinds.SME.set_field(sme, who, task, "score", 2)
    with sme.tx() as s:
        sets = [e for e in entries(s, action="sme_field_set") if e.actor == who]
        assert [(e.key, e.before, e.after) for e in sets[:4]] == [
            ("applicability", None, "excluded"),
            ("applicability", "excluded", "applicable"),
            ("score", None, 3.0),
            ("score", 3.0, None),
        ]
        assert len(entries(s, action="sme_submitted")) == 1


def test_conflict_routing_and_adjudication(sme: Any) -> None:
    task = _task(sme, "it-03")
    a, b = _reviewers(sme, task)
    _give(sme, a, task, **PASS)
    flag = sme_review.view(sme, b, task).benchmark.flag_choices[1]
    _give(sme, b, task, applicability="applicable", outcome="flag", score=1, flag_condition=flag,
          rationale="finding dropped")  # fmt: skip
    found = sme_adjudication.list_conflicts(sme, "adj")
    assert [(c.item_id, c.key) for c in found] == [("it-03", "outcome"), ("it-03", "score")]
    assert set(found[0].by_letter) == {"A", "B"} and "a1" not in repr(found[0].by_letter)
    view = sme_adjudication.conflict_view(sme, "adj", task)
    assert set(view.conflicts) == {"outcome", "score"}
    with pytest.raises(ValidationError, match="needs a reason"):
        kinds.SME.adjudicate(sme, "adj", task, "outcome", "flag", "  ")
    with pytest.raises(PermissionDenied):
        kinds.SME.adjudicate(sme, a, task, "outcome", "flag", "mine is right")
    with pytest.raises(ValidationError, match="not in conflict"):
        kinds.SME.adjudicate(sme, "adj", task, "applicability", "excluded", "why not")
    # The undecided conflict and the items nobody has submitted yet are counted apart.
    pending = next(r for r in results(sme, "adj").benchmarks if r.code == "A-NEG2")
    assert (pending.items, pending.undecided) == (0, 1) and pending.unsubmitted > 0
    kinds.SME.adjudicate(sme, "adj", task, "outcome", "flag", "the finding is dropped")
    assert [c.key for c in sme_adjudication.list_conflicts(sme, "adj", open_only=True)] == ["score"]
    kinds.SME.adjudicate(sme, "adj", task, "score", 1, "dropped finding: level 1")
    assert sme_adjudication.list_conflicts(sme, "adj", open_only=True) == []
    neg2 = next(r for r in results(sme, "adj").benchmarks if r.code == "A-NEG2")
    assert (neg2.items, neg2.applicable, neg2.pass_rate, neg2.score) == (1, 1, 0.0, 0.25)
    assert (neg2.undecided, neg2.unsubmitted) == (0, pending.unsubmitted)


def test_changed_benchmark_marks_verdicts_for_recheck(sme: Any, tmp_path: Path) -> None:
    task = _task(sme, "it-04")
    a, b = _reviewers(sme, task)
    _give(sme, a, task, **PASS)
    kinds.SME.set_field(sme, b, task, "applicability", "applicable")  # in progress
    # A label-only change: a new version, nothing to re-check.
    write(tmp_path, "a-neg2.yaml", benchmark(label="Double negation (v2)"))
    report = import_benchmarks(sme, "cu", [tmp_path / "a-neg1.yaml", tmp_path / "a-neg2.yaml"])
    assert report.changed == ["A-NEG2 v2"] and report.rechecks == 0
    # New criteria: both touched verdicts go back, keeping their fields.
    inclusion = benchmark()["inclusion_criteria"].replace("entirely", "or invents one")
    write(
        tmp_path,
        "a-neg2.yaml",
        benchmark(label="Double negation (v2)", inclusion_criteria=inclusion),
    )
    report = import_benchmarks(sme, "cu", [tmp_path / "a-neg2.yaml", tmp_path / "a-neg1.yaml"])
    assert report.changed == ["A-NEG2 v3"] and report.rechecks == 2
    entry = next(e for e in sme_review.queue(sme, a) if e.task_id == task)
    assert entry.state == "needs_recheck"
    assert sme_review.view(sme, a, task).fields["score"] == 4.0
    assert sme_review.view(sme, a, task).benchmark.version == 3
    with sme.tx() as s:
        changed = entries(s, action="sme_benchmark_changed")
        assert [e.after["version"] for e in changed] == [2, 3]
        assert changed[-1].detail["criteria_or_scale_changed"] is True
        assert len(entries(s, action="sme_recheck")) == 2
        row = s.scalars(select(SmeVerdict).where(SmeVerdict.task_id == task)).first()
        assert row is not None
    # Not counted until resubmitted; resubmitting clears the flag.
    assert next(r for r in results(sme, "adj").benchmarks if r.code == "A-NEG2").items == 0
    kinds.SME.submit(sme, a, task)
    assert next(e for e in sme_review.queue(sme, a) if e.task_id == task).state == "submitted"


def test_command_line_drives_a_verdict(
    sme: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    location = sme.location
    task = _task(sme, "it-01")
    who = _reviewers(sme, task)[0]
    base = ["--project", location, "--as", who]
    args = [*base, "sme-verdict", "it-01", "A-NEG2", "--set", "applicability=applicable",
            "--set", "outcome=pass", "--set", "score=4", "--submit"]  # fmt: skip
    assert main(args) == 0
    assert "submitted it-01 A-NEG2" in capsys.readouterr().out
    out = tmp_path / "report"
    assert main(["--project", location, "--as", "adj", "sme-results", "--out", str(out)]) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "sme-results.csv", "sme-results.html", "sme-results.json", "sme-results.svg",
    ]  # fmt: skip
    data = json.loads((out / "sme-results.json").read_text())
    assert {b["code"] for b in data["benchmarks"]} == {"A-NEG1", "A-NEG2"}


def test_json_array_items_report_their_own_lines(sme: Any, tmp_path: Path) -> None:
    path = tmp_path / "items.json"
    good, bad = _item(30), _item(31, benchmark="A-NOPE1")
    path.write_text('{"items": [\n' + json.dumps(good) + ",\n\n" + json.dumps(bad) + "\n]}\n")
    with pytest.raises(ImportRejected) as caught:
        import_items(sme, "cu", [path])
    assert caught.value.lines == [f"{path}:4: item it-31: unknown benchmark A-NOPE1"]
    path.write_text(json.dumps([good]))
    assert import_items(sme, "cu", [path]).added == 1


def test_changed_criteria_supersede_decisions(sme: Any, tmp_path: Path) -> None:
    task = _task(sme, "it-03")
    a, b = _reviewers(sme, task)
    _give(sme, a, task, applicability="applicable", outcome="pass", score=4)
    _give(sme, b, task, applicability="excluded", rationale="template",
          exclusion_clause="the narrative is a template")  # fmt: skip
    kinds.SME.adjudicate(sme, "adj", task, "applicability", "applicable", "real text")
    scale = {"min_value": 0, "max_value": 4, "descriptions": {4: "correct", 0: "wrong"}}
    write(tmp_path, "a-neg2.yaml", benchmark(scoring_scale=scale))
    import_benchmarks(sme, "cu", [tmp_path / "a-neg1.yaml", tmp_path / "a-neg2.yaml"])
    with sme.tx() as s:
        assert len(entries(s, action="sme_adjudication_superseded")) == 1
    for who in (a, b):
        kinds.SME.submit(sme, who, task)
    (open_,) = sme_adjudication.list_conflicts(sme, "adj", open_only=True)
    assert (open_.item_id, open_.key) == ("it-03", "applicability")


def test_cli_import_and_review(
    sme: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = write(tmp_path, "bad.yaml", benchmark("A-NEG3", weight=0.1))
    assert main(["--project", sme.location, "--as", "cu", "sme-import", str(bad)]) == 1
    assert "E-WEIGHT-SUM" in capsys.readouterr().out
    task = _task(sme, "it-01")
    a, b = _reviewers(sme, task)
    _give(sme, a, task, **PASS)
    _give(sme, b, task, applicability="applicable", outcome="pass", score=0)
    base = ["--project", sme.location, "--as", "adj", "sme-review"]
    assert main([*base, "--open", "--json"]) == 0
    (conflict,) = json.loads(capsys.readouterr().out)
    assert (conflict["item"], conflict["field"]) == ("it-01", "score")
    assert main([*base, "--decide", "it-01", "A-NEG2", "score", "3"]) == 2  # no --reason
    assert main([*base, "--decide", "it-01", "A-NEG2", "score", "3", "--reason", "level 3"]) == 0
    assert main([*base, "--open"]) == 0
    assert "no conflicts" in capsys.readouterr().out


def test_recheck_after_a_smaller_scale_asks_for_the_score_again(sme: Any, tmp_path: Path) -> None:
    task = _task(sme, "it-02")
    a, _b = _reviewers(sme, task)
    _give(sme, a, task, **PASS)  # score 4
    scale = {"min_value": 0, "max_value": 3, "descriptions": {3: "correct", 0: "wrong"}}
    write(tmp_path, "a-neg2.yaml", benchmark(scoring_scale=scale, threshold=2,
                                            concept="Double negatives. Threshold: 2."))  # fmt: skip
    assert (
        import_benchmarks(sme, "cu", [tmp_path / "a-neg1.yaml", tmp_path / "a-neg2.yaml"]).rechecks
        == 1
    )
    assert sme_review.view(sme, a, task).stale == ["score 4 is outside A-NEG2's scale 0..3"]
    with pytest.raises(ValidationError, match="score 4 is outside A-NEG2's scale 0..3"):
        kinds.SME.submit(sme, a, task)
    assert kinds.SME.set_field(sme, a, task, "score", 3) == 4.0
    kinds.SME.submit(sme, a, task)


def test_compare_two_systems_through_the_command_line(
    team: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    review_two_systems(team, tmp_path)
    assert systems(team, "adj") == systems(team, "cu") == ["copilot@1.3", "copilot@1.4"]
    for refused in (lambda: systems(team, "a1"),
                    lambda: compare(team, "a1", "copilot@1.3", "copilot@1.4")):
        with pytest.raises(PermissionDenied, match="adjudicator or curator"):
            refused()  # SMEs review blind to the systems
    base = ["--project", team.location, "--as", "adj", "sme-results"]
    assert main([*base, "--compare", "copilot@1.3", "copilot@1.4", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    (neg2,) = report["benchmarks"]
    assert (neg2["code"], neg2["method"], neg2["pairs"]) == ("A-NEG2", "paired t", 12)
    assert neg2["difference"] == pytest.approx(8 / 12 * 0.25)
    low, high = neg2["ci"]
    assert 0 < low < neg2["difference"] < high and neg2["conclusion"] == "B better"
    assert neg2["p_holm"] == neg2["p"] < 0.05  # one benchmark tested
    worst = neg2["worst_of_k_b"]
    assert (worst["k"], worst["cases"], neg2["worst_of_k_a"]) == (2, 2, None)
    assert [c["case_id"] for c in worst["per_case"]] == ["case-01", "case-02"]
    assert main([*base, "--compare", "copilot@1.3", "copilot@1.4", "--out",
                 str(tmp_path / "cmp")]) == 0
    assert "A-NEG2" in capsys.readouterr().out
    page = (tmp_path / "cmp" / "sme-compare.html").read_text()
    assert "B better" in page and "<svg" in page and "Holm p" in page
    assert json.loads((tmp_path / "cmp" / "sme-compare.json").read_text())["b"] == "copilot@1.4"
    # --html FILE: the same page alone, wherever the user names it (no JSON, CSV or SVG).
    html_file = tmp_path / "pages" / "b-vs-a.html"
    assert main([*base, "--compare", "copilot@1.3", "copilot@1.4", "--html",
                 str(html_file)]) == 0
    assert f"wrote {html_file}" in capsys.readouterr().out
    assert html_file.read_text() == page and sorted(html_file.parent.iterdir()) == [html_file]
    assert main([*base, "--html", str(tmp_path / "results.html")]) == 0
    assert "SME review results" in (tmp_path / "results.html").read_text()
    capsys.readouterr()
    assert main([*base, "--compare", "copilot@1.3", "nobody@0"]) != 0
    assert "no SME items of system 'nobody@0'" in capsys.readouterr().err
