"""Read-only service calls run in ``project.read()``: none opens a write transaction.

A read in ``project.tx()`` takes SQLite's write lock (BEGIN IMMEDIATE) and makes every
writer wait for it (issue 14: readers never make writers wait). Every read-only call of the
app runs here on the demo project (cases, SME verdicts, judge scores, card settings) under
``write_watch``, which records each write transaction that committed having written
nothing; the list must stay empty.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text

from annotator.services import (
    annotating,
    desk,
    export,
    kinds,
    status,
    users,
    workspace,
    workspace_state,
)
from annotator.services.agreement import agreement_report
from annotator.services.demo import CURATOR, PHYSICIANS, SENIOR, build_demo
from annotator.services.judging import review as judge_review
from annotator.services.judging import scoring as judge_scoring
from annotator.services.judging.agreement import judge_agreement
from annotator.services.release import collect_release
from annotator.services.repair import repair_case_states
from annotator.services.review import base, feedback, queue, view
from annotator.services.sme import adjudication as sme_adjudication
from annotator.services.sme import results as sme_results
from annotator.services.sme import review as sme_review
from annotator.services.sme.view_extra import may_decide, may_see_others
from annotator.services.sync import status as sync_status
from annotator.store.project import open_project
from annotator.store.settings import PACKAGE_SEQUENCE
from write_watch import empty_writes

ADA = PHYSICIANS[0]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("demo") / "p"
    build_demo(str(folder))
    project = open_project(folder)
    yield project
    project.close()


def _calls(p: Any) -> dict[str, Callable[[], Any]]:
    """Every read-only service call, with arguments taken from the demo project."""
    case_id = workspace.case_list(p, ADA).rows[0].case_id
    task = sme_review.queue(p, ADA)[0].task_id
    submitted_task = next(e.task_id for e in sme_review.queue(p, ADA) if e.state == "submitted")
    first = sme_review.queue(p, ADA)[0]
    item = judge_scoring.my_items(p, ADA)[0][0]
    submitted_item = next(i for i, _t, done in judge_scoring.my_items(p, ADA) if done)
    sme_conflicts = sme_adjudication.list_conflicts(p, SENIOR)
    judge_conflicts = judge_review.list_conflicts(p, SENIOR)
    return {
        "status": lambda: status.project_status(p),
        "desk": lambda: desk.desk_snapshot(p, CURATOR),
        "desk_adjudicator": lambda: desk.desk_snapshot(p, SENIOR),
        "users": lambda: users.list_users(p),
        "logins_required": lambda: users.logins_required(p),
        "resolve_actor": lambda: users.resolve_actor(p, ADA),
        "case_list": lambda: workspace.case_list(p, ADA),
        "case_row": lambda: workspace.case_row(p, ADA, case_id),
        "case_images": lambda: workspace.case_images(p, ADA, case_id),
        "annotators": lambda: workspace.annotators(p),
        "default_annotator": lambda: workspace.default_annotator(p),
        "annotation_view": lambda: annotating.view(p, ADA, case_id),
        "resume": lambda: workspace_state.load_resume(p, ADA),
        "review_case": lambda: base.review_case(p, case_id),
        "reason_codes": lambda: base.reason_codes(p),
        "review_items": lambda: queue.list_items(p, SENIOR),
        "case_queue": lambda: queue.case_queue(p, SENIOR),
        "case_entry": lambda: queue.case_entry(p, SENIOR, case_id),
        "review_status": lambda: queue.review_status(p, SENIOR),
        "case_detail": lambda: view.case_detail(p, case_id, SENIOR),
        "review_images": lambda: view.case_images(p, case_id),
        "feedback": lambda: feedback.feedback(p, ADA, case_id),
        "my_feedback": lambda: feedback.my_feedback(p, ADA),
        "agreement": lambda: agreement_report(p, CURATOR),
        "card_settings": lambda: export.card_settings(p),
        "preflight": lambda: export.preflight(p),
        "collect_release": lambda: collect_release(p),
        "roundtrip_status": lambda: sync_status.roundtrip_status(p),
        "sme_queue": lambda: sme_review.queue(p, ADA),
        "sme_benchmarks": lambda: sme_review.my_benchmarks(p, ADA),
        "sme_view": lambda: sme_review.view(p, ADA, task),
        "sme_may_see_others": lambda: may_see_others(p, SENIOR),
        "sme_may_decide": lambda: may_decide(p, SENIOR),
        "sme_conflicts": lambda: sme_adjudication.list_conflicts(p, SENIOR),
        "sme_conflict_view": lambda: sme_adjudication.conflict_view(
            p, SENIOR, sme_conflicts[0].task_id
        ),
        "sme_results": lambda: sme_results.results(p, CURATOR),
        "judge_items": lambda: judge_scoring.my_items(p, ADA),
        "judge_view": lambda: judge_scoring.view(p, ADA, item),
        "judge_reveal": lambda: kinds.JUDGE.reveal(p, ADA, submitted_item),
        "judge_may_see_runs": lambda: judge_scoring.may_see_runs(p, SENIOR),
        "judge_conflicts": lambda: judge_review.list_conflicts(p, SENIOR),
        "judge_ratings": lambda: judge_review.all_ratings(p, SENIOR),
        "judge_item_of": lambda: judge_review.item_of(
            p, judge_conflicts[0].run, judge_conflicts[0].case_id
        ),
        "judge_agreement": lambda: judge_agreement(p, SENIOR),
        "sme_task_of": lambda: sme_review.task_of(p, first.item_id, first.benchmark),
        "sme_reveal": lambda: kinds.SME.reveal(p, ADA, submitted_task),
        "repair_dry_run": lambda: repair_case_states(p, CURATOR, dry_run=True),
    }


def test_read_only_calls_open_no_write_transaction(demo: Any) -> None:
    calls = _calls(demo)
    agreement_report(demo, CURATOR)  # the first report fills its cache (a write); later ones read
    with empty_writes(demo) as found:
        for call in calls.values():
            call()
    assert sorted(set(found)) == [], "\n".join(sorted(set(found)))


def test_the_watch_sees_an_empty_write_transaction(tmp_path: Path) -> None:
    project = open_project(tmp_path / "p")
    with empty_writes(project) as found:
        with project.tx() as session:
            session.execute(text("SELECT 1"))  # a write transaction that only reads
        with project.read() as session:
            session.execute(text("SELECT 1"))
        project.set_setting(PACKAGE_SEQUENCE, 1)  # one that writes
    project.close()
    assert found == ["?"]  # one, opened outside the services


def test_send_my_work_polls_without_a_write_transaction(tmp_path: Path) -> None:
    """The offline project's count of unsent changes is read every few seconds by the app."""
    from annotator.services.assignments import assign
    from annotator.services.imports import import_cases
    from annotator.services.sync.bundle import make_bundle
    from annotator.services.sync.package import unpackaged_changes
    from annotator.services.sync.unbundle import unbundle
    from annotator.services.users import add_user
    from factories import make_case, write_case_file

    project = open_project(tmp_path / "p")
    add_user(project, "(setup)", "cu", ["curator"])
    add_user(project, "cu", "a1", ["annotator"])
    import_cases(project, "cu", [write_case_file(tmp_path / "d", [make_case("C1")])])
    assign(project, "cu", 1)
    bundle = make_bundle(project, "cu", "a1", tmp_path / "a1.annotator-bundle").path
    project.close()
    laptop = open_project(unbundle(bundle, tmp_path / "laptop").folder)
    with empty_writes(laptop) as found:
        assert unpackaged_changes(laptop) == 0
        users.logins_required(laptop)
    laptop.close()
    assert found == []
