"""The desk's SME and judge figures read in bulk equal the item-by-item computation.

The desk (and ``review --status``) counts open SME-verdict conflicts and the SME progress
card from the tasks' keys the writes keep (:mod:`annotator.store.sme_keys`), judge-scoring
conflicts with one read of every submitted row and decision
(:meth:`JudgeKind.open_conflicts_in`); the engine's generic loop (a few queries per item)
and the full ``sme-results`` stay the reference they are checked against, before and after
a senior decides a conflict. The bulk reads are a fixed number of queries, however
many items there are."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from annotator.services.demo import CURATOR, SENIOR, build_demo
from annotator.services.desk import desk_snapshot
from annotator.services.judging.kind import JUDGE
from annotator.services.rating.engine import RatingKind
from annotator.services.sme.adjudication import submitted_by_task
from annotator.services.sme.kind import SME
from annotator.services.sme.results import progress, results
from annotator.store.project import Project, open_project
from annotator.store.schema import PhysicianScore


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Any:
    folder = tmp_path_factory.mktemp("demo") / "p"
    build_demo(str(folder))
    project = open_project(folder)
    yield project
    project.close()


def _both_ways(project: Project, kind: RatingKind) -> dict[Any, list[str]]:
    with project.read() as session:
        fast = kind.open_conflicts_in(session)
        slow = RatingKind.open_conflicts_in(kind, session)  # item by item
    assert fast == slow
    return fast


def _progress_equals_results(project: Project) -> None:
    full = [(b.code, b.label, b.items, b.undecided, b.unsubmitted)
            for b in results(project, CURATOR).benchmarks]
    fast = [(p.code, p.label, p.resolved, p.undecided, p.unsubmitted)
            for p in progress(project, CURATOR)]
    assert fast == full


def test_bulk_counts_equal_the_item_by_item_ones_before_and_after_decisions(
    demo: Project,
) -> None:
    sme = _both_ways(demo, SME)
    judge = _both_ways(demo, JUDGE)
    assert sme and judge  # the demo has open conflicts of both kinds
    _progress_equals_results(demo)
    undecided_before = sum(p.undecided for p in progress(demo, CURATOR))
    assert undecided_before > 0

    # A senior decides every open field of one SME task, and one field of one judged output.
    task, keys = next(iter(sme.items()))
    with demo.read() as session:
        verdicts = submitted_by_task(session, task)[task]
    for key in keys:
        value = next(v[key] for v in verdicts.values() if v.get(key) is not None)
        SME.adjudicate(demo, SENIOR, task, key, value, "read the output again")
    item, (key, *_rest) = next(iter(judge.items()))
    with demo.read() as session:
        value = next(s.scores[key] for s in session.query(PhysicianScore)
                     .filter(PhysicianScore.item_id == item) if s.scores.get(key) is not None)
    JUDGE.adjudicate(demo, SENIOR, item, key, value, "the trajectory names it")

    sme_after, judge_after = _both_ways(demo, SME), _both_ways(demo, JUDGE)
    assert task not in sme_after and len(sme_after) == len(sme) - 1
    assert key not in judge_after.get(item, [])
    _progress_equals_results(demo)
    assert sum(p.undecided for p in progress(demo, CURATOR)) < undecided_before

    snap = desk_snapshot(demo, CURATOR)
    queues = {q.key: q for q in snap.conflicts}
    assert (queues["sme_verdicts"].items, queues["sme_verdicts"].open_conflicts) == (
        len(sme_after), sum(map(len, sme_after.values())))
    assert (queues["judge_scoring"].items, queues["judge_scoring"].open_conflicts) == (
        len(judge_after), sum(map(len, judge_after.values())))


def _queries(project: Project, read: Any) -> int:
    seen: list[str] = []

    def count(*_args: Any) -> None:
        seen.append("q")

    event.listen(project.engine, "before_cursor_execute", count)
    try:
        with project.read() as session:
            read(session)
    finally:
        event.remove(project.engine, "before_cursor_execute", count)
    return len(seen)


def test_bulk_reads_do_not_grow_with_the_items(demo: Project, tmp_path: Path) -> None:
    empty = open_project(tmp_path / "empty")
    try:
        for kind in (SME, JUDGE):
            assert _queries(demo, kind.open_conflicts_in) == _queries(
                empty, kind.open_conflicts_in)
        # The item-by-item loop, for contrast, asks per item.
        assert _queries(demo, lambda s: RatingKind.open_conflicts_in(SME, s)) > _queries(
            demo, SME.open_conflicts_in) + len(_both_ways(demo, SME))
    finally:
        empty.close()
