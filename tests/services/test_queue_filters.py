"""The case list's open-conflict filter and the SME and judge queues' benchmark and state
filters, in the core (the GUI's combo boxes only pass their choice), on the demo project;
and the chosen filters kept per list and user."""

from __future__ import annotations

import dataclasses
import shutil
from pathlib import Path

import pytest

from annotator.domain.states import QUEUE_STATES
from annotator.errors import PermissionDenied, ValidationError
from annotator.services import annotating, workspace, workspace_state
from annotator.services.demo import CURATOR, PHYSICIANS, SENIOR
from annotator.services.judging import scoring
from annotator.services.review.queue import list_items
from annotator.services.sme import review as sme_review
from annotator.services.users import add_user, roles_of


@pytest.fixture(scope="module")
def demo(demo_template: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from annotator.store.project import open_project

    target = tmp_path_factory.mktemp("filters") / "project"
    shutil.copytree(demo_template, target)
    project = open_project(target, create=False, backup=False)
    yield project
    project.close()


def test_annotators_are_not_offered_the_open_conflict_filter_and_cannot_ask(demo) -> None:  # type: ignore[no-untyped-def]
    physician = PHYSICIANS[0]
    assert "open_conflict" not in workspace.case_filters(roles_of(demo, physician))
    with pytest.raises(PermissionDenied, match="adjudicator or curator"):
        annotating.my_cases(demo, physician, show="open_conflict")
    assert "open_conflict" in workspace.case_filters(["annotator", "adjudicator"])
    assert "open_conflict" in workspace.case_filters(["curator"])


def test_open_conflict_keeps_the_users_cases_with_an_undecided_conflict(demo) -> None:  # type: ignore[no-untyped-def]
    open_cases = {item.case_id for item in list_items(demo, SENIOR, only_open=True)}
    assert open_cases, "the demo has cases with open conflicts"
    found = False
    for physician in PHYSICIANS:
        add_user(demo, CURATOR, physician, ["adjudicator"])  # now also a senior
        mine = {row.case_id for row in annotating.my_cases(demo, physician).rows}
        shown = [row.case_id for row in annotating.my_cases(demo, physician,
                                                             show="open_conflict").rows]
        assert set(shown) == mine & open_cases, physician
        assert shown == sorted(shown, key=workspace.natural_key)
        found = found or bool(shown)
    assert found, "some physician has a case with an open conflict"


def test_the_sme_queue_filters_by_benchmark_and_state_never_by_system(demo) -> None:  # type: ignore[no-untyped-def]
    assert "system" not in {f.name for f in dataclasses.fields(sme_review.QueueEntry)}
    for physician in PHYSICIANS:
        everything = sme_review.queue(demo, physician)
        states = {entry.state for entry in everything}
        for state in QUEUE_STATES:
            assert sme_review.queue(demo, physician, state=state) == [
                e for e in everything if e.state == state]
        for code, _label in sme_review.my_benchmarks(demo, physician):
            for state in states:
                assert sme_review.queue(demo, physician, code, state) == [
                    e for e in everything if e.benchmark == code and e.state == state]
    assert len({e.state for p in PHYSICIANS for e in sme_review.queue(demo, p)}) >= 2
    with pytest.raises(ValidationError, match="unknown queue state"):
        sme_review.queue(demo, PHYSICIANS[0], state="Dr Who")


def test_the_judge_queue_filters_by_benchmark_and_state(demo) -> None:  # type: ignore[no-untyped-def]
    seen_states = set()
    for physician in PHYSICIANS:
        everything = scoring.my_items(demo, physician)
        benchmarks = scoring.my_benchmarks(demo, physician)
        if not everything:
            continue
        assert benchmarks
        assert sorted(i for b in benchmarks for i in scoring.my_items(demo, physician, b)) == \
            sorted(everything)
        submitted = scoring.my_items(demo, physician, state="submitted")
        assert submitted == [entry for entry in everything if entry[2]]
        by_state = [scoring.my_items(demo, physician, state=s) for s in QUEUE_STATES]
        assert sorted(e for part in by_state for e in part) == sorted(everything)
        seen_states |= {s for s, part in zip(QUEUE_STATES, by_state, strict=True) if part}
        # The benchmark names the scored data's schema, never the system under test.
        from annotator.store.schema import JudgedRun

        with demo.read() as session:
            systems = {run.target_model for run in session.query(JudgedRun)}
        assert not systems & set(benchmarks)
    assert seen_states


def test_filters_are_kept_per_list_and_user(demo) -> None:  # type: ignore[no-untyped-def]
    physician = PHYSICIANS[1]
    assert workspace_state.load_filters(demo, physician, "sme") == {}
    workspace_state.save_filters(demo, physician, "sme", {"state": "submitted"})
    workspace_state.save_filters(demo, physician, "cases", {"show": "red_flag"})
    assert workspace_state.load_filters(demo, physician, "sme") == {"state": "submitted"}
    assert workspace_state.load_filters(demo, physician, "cases") == {"show": "red_flag"}
    assert workspace_state.load_filters(demo, PHYSICIANS[2], "sme") == {}
    with pytest.raises(ValidationError, match="no list"):
        workspace_state.save_filters(demo, physician, "desk", {})
