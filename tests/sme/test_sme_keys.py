"""The SME tasks' keys (store.sme_keys) the writes keep, on SQLite and PostgreSQL: equal to a
recomputation after every step of a task's life (verdicts, a conflict, decisions, a changed
benchmark sending verdicts back); the desk's SME progress and open conflicts read from them
equal the full results and the verdict-by-verdict conflicts; a key marked stale is
recomputed by the next senior read; ``repair`` finds and fixes a key, or a total the
database keeps from the keys, written past the app."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import update

from annotator.services import kinds
from annotator.services.repair import TOTALS_ROW, repair_sme_keys
from annotator.services.sme import review as sme_review
from annotator.services.sme.imports import import_benchmarks, import_items
from annotator.services.sme.keys import key_drift
from annotator.services.sme.results import progress, results
from annotator.store import sme_keys
from annotator.store.schema import SmeTaskKey, SmeTotal

from .reviews import give, item, jsonl, reviewers, task
from .specs import benchmark, valid_set, write

PASS = {"applicability": "applicable", "outcome": "pass", "score": 4}


@pytest.fixture
def sme(team: Any, tmp_path: Path) -> Any:
    import_benchmarks(team, "cu", valid_set(tmp_path))
    items = [item(n) for n in range(1, 5)] + [item(n, "A-NEG1") for n in range(5, 7)]
    import_items(team, "cu", [jsonl(tmp_path, "items.jsonl", items)])
    assert sme_review.assign(team, "cu", per_item=2) == 12
    return team


def _agrees(project: Any) -> tuple[int, int]:
    """The keys equal a recomputation, and what the desk reads from them equals the full
    results and the verdict-by-verdict conflicts; returns the open conflict totals."""
    fast = [(p.code, p.resolved, p.undecided, p.unsubmitted) for p in progress(project, "cu")]
    full = [(b.code, b.items, b.undecided, b.unsubmitted)
            for b in results(project, "cu").benchmarks]
    assert fast == full
    totals = kinds.SME.open_conflict_totals(project, "adj")
    found = kinds.SME.open_conflicts(project, "adj")
    assert totals == (len(found), sum(map(len, found.values())))
    with project.read() as session:
        assert sme_keys.stale_tasks(session.connection()) == []  # the reads healed them
        assert key_drift(session) == []
        conn = session.connection()  # what the database's triggers kept equals a count
        assert sme_keys.totals(conn) == sme_keys.counted_totals(conn)
    return totals


def test_keys_follow_a_task_through_conflict_decisions_and_recheck(
    sme: Any, tmp_path: Path
) -> None:
    assert _agrees(sme) == (0, 0)
    it3 = task(sme, "it-03")
    a, b = reviewers(sme, it3)
    give(sme, a, it3, **PASS)
    assert _agrees(sme) == (0, 0)
    flag = sme_review.view(sme, b, it3).benchmark.flag_choices[1]
    give(sme, b, it3, applicability="applicable", outcome="flag", score=1, flag_condition=flag,
         rationale="finding dropped")
    assert _agrees(sme) == (1, 2)  # outcome and score
    undecided = {p.code: p.undecided for p in progress(sme, "cu")}
    assert undecided["A-NEG2"] == 1

    kinds.SME.adjudicate(sme, "adj", it3, "outcome", "flag", "the finding is dropped")
    assert _agrees(sme) == (1, 1)
    kinds.SME.adjudicate(sme, "adj", it3, "score", 1, "dropped finding: level 1")
    assert _agrees(sme) == (0, 0)
    assert {p.code: p.resolved for p in progress(sme, "cu")}["A-NEG2"] == 1

    # New criteria send the submitted verdicts back for re-check: no longer counted.
    inclusion = benchmark()["inclusion_criteria"].replace("entirely", "or invents one")
    write(tmp_path, "a-neg2.yaml", benchmark(label="Double negation (v2)",
                                            inclusion_criteria=inclusion))
    report = import_benchmarks(sme, "cu", [tmp_path / "a-neg2.yaml", tmp_path / "a-neg1.yaml"])
    assert report.rechecks == 2
    _agrees(sme)
    assert {p.code: p.resolved for p in progress(sme, "cu")}["A-NEG2"] == 0


def test_a_stale_key_is_recomputed_by_the_next_senior_read(sme: Any) -> None:
    it1 = task(sme, "it-01")
    for who in reviewers(sme, it1):
        give(sme, who, it1, **PASS)
    with sme.tx() as session:
        sme_keys.mark_stale(session.connection(), [it1])
        assert sme_keys.stale_tasks(session.connection()) == [it1]
    # A stale key is not counted until it is recomputed, and the read recomputes it first.
    assert {p.code: p.resolved for p in progress(sme, "cu")}["A-NEG2"] == 1
    _agrees(sme)


def test_repair_finds_and_fixes_a_key_written_past_the_app(sme: Any) -> None:
    assert repair_sme_keys(sme, "cu", dry_run=True) == []
    it2 = task(sme, "it-02")
    with sme.tx() as session:
        session.execute(update(SmeTaskKey).where(SmeTaskKey.task_id == it2)
                        .values(state="resolved", open_conflicts=3))
    (fix,) = repair_sme_keys(sme, "cu", dry_run=True)
    assert (fix.task_id, fix.stored, fix.actual) == (str(it2), "resolved, 3 open",
                                                     "unsubmitted, 0 open")
    assert len(repair_sme_keys(sme, "cu")) == 1
    assert repair_sme_keys(sme, "cu", dry_run=True) == []
    _agrees(sme)


def test_repair_finds_and_fixes_totals_written_past_the_triggers(sme: Any) -> None:
    it1 = task(sme, "it-01")
    for who in reviewers(sme, it1):
        give(sme, who, it1, **PASS)
    before = [(p.code, p.resolved, p.undecided, p.unsubmitted) for p in progress(sme, "cu")]
    with sme.tx() as session:  # a write past the triggers (a manual edit, an odd restore)
        session.execute(update(SmeTotal).values(tasks=SmeTotal.tasks + 2))
    (fix,) = repair_sme_keys(sme, "cu", dry_run=True)
    assert fix.task_id == TOTALS_ROW and fix.stored != fix.actual
    assert repair_sme_keys(sme, "cu") == [fix]
    assert repair_sme_keys(sme, "cu", dry_run=True) == []
    assert [(p.code, p.resolved, p.undecided, p.unsubmitted)
            for p in progress(sme, "cu")] == before
    _agrees(sme)
