"""The review queue read in bulk gives what the case-by-case reading gave, in a fixed number
of queries, and still re-detects a case whose stored detection is stale."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from review_support import chose, submit
from sqlalchemy import event, select
from sqlalchemy.orm import Session

from annotator.domain.states import CaseState
from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.review import decisions, reopen
from annotator.services.review.actions import decide_value, split_cases
from annotator.services.review.base import review_in
from annotator.services.review.detect import sync_all
from annotator.services.review.queue import (
    CaseEntry,
    QueueItem,
    case_entry,
    case_queue,
    case_queue_items,
    case_queue_page,
    list_items,
    review_status,
    sort_key,
)
from annotator.services.users import add_user
from annotator.store.history import entries
from annotator.store.schema import Case, DetectedItem, ReviewRecord
from factories import make_case, write_case_file

BOARD = {"Figure 1": 1, "Figure 2": 2, "Figure 3": 3}


# --- the case-by-case reading the queue did before (the reference) ------------------------

def _per_case_reviewed(session: Session) -> list[Case]:
    sync_all(session)
    with_detection = select(DetectedItem.case_pk).distinct()
    query = select(Case).where(
        Case.id.in_(with_detection), Case.state != CaseState.ANNOTATING.value
    )
    return list(session.scalars(query.order_by(Case.case_id)))


def _per_case_entry(session: Session, case: Case) -> CaseEntry:
    items = case_queue_items(session, case)
    open_items = [i for i in items if i.state == "open"]
    record = session.get(ReviewRecord, case.id)
    title, blockers = "", []
    if case.state in (CaseState.IN_REVIEW.value, CaseState.GREEN_LIT.value):
        review = review_in(session, case)
        blockers = review.blockers
        title = str(review.release.get("case_title") or "")
    return CaseEntry(
        case_id=case.case_id,
        title=title,
        state=case.state,
        open=len(open_items),
        decided=sum(i.state in ("decided", "overridden") for i in items),
        auto_resolved=sum(i.state == "auto_resolved" for i in items),
        top_impact=open_items[0].impact if open_items else None,
        top_disagreement=open_items[0].disagreement if open_items else None,
        adjudicator=record.adjudicator if record is not None else None,
        blockers=blockers,
    )


def _per_case_queue(project: Any) -> list[CaseEntry]:
    with project.tx() as session:
        return [_per_case_entry(session, c) for c in _per_case_reviewed(session)]


def _per_case_items(project: Any) -> list[QueueItem]:
    with project.tx() as session:
        cases = _per_case_reviewed(session)
        items = [i for c in cases for i in case_queue_items(session, c)]
    return sorted(items, key=sort_key)


# --- a project with conflicts of every kind -----------------------------------------------

@pytest.fixture
def mixed(project, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Cases T1..T8 in every queue situation: open, decided, overridden, moot, excluded,
    green-lit, reopened decisions, unanimous, still annotating; cases split between two
    adjudicators."""
    add_user(project, "(setup)", "cu", ["curator"])
    for name in ("a1", "a2"):
        add_user(project, "cu", name, ["annotator"])
    for name in ("adj", "adj2"):
        add_user(project, "cu", name, ["adjudicator"])
    cases = [make_case(f"T{i}") for i in range(1, 9)]
    import_cases(project, "cu", [write_case_file(tmp_path / "drafts", cases)])
    assign(project, "cu", 2)
    # T1: open conflicts of several kinds (importance, order, metadata, difficulty)
    submit(project, "a1", "T1", {"meta:Figure 1/acquisition": "T2"})
    submit(project, "a2", "T1", {
        "importance:Figure 3": chose("essential"),
        "stage:Figure 3": chose(3),
        "meta:Figure 2/contrast": "No contrast",
        "difficulty": chose("normal"),
    })
    # T2: a discard upheld: excluded, its other conflicts moot
    submit(project, "a1", "T2", {"discard": {"reason_code": "leakage", "text": "in the title"}})
    submit(project, "a2", "T2", {"stage:Figure 3": chose(3)})
    letter = next(k for k, v in next(
        i.values for i in list_items(project, "adj", case_ids=["T2"])).items() if v is not None)
    decide_value(project, "adj", "T2", "discard", letter, "protocol", "gives it away")
    # T3: conflict decided, an auto-resolution overridden, green-lit
    submit(project, "a1", "T3")
    submit(project, "a2", "T3", {"stage:Figure 3": chose(3)})
    decisions.decide(project, "adj", "T3", "order", BOARD, "protocol")
    decisions.decide(project, "adj", "T3", "rarity", "extreme_rare", "clinical_judgement", "x")
    decisions.green_light(project, "adj", "T3")
    # T4: excluded as irresolvable
    submit(project, "a1", "T4")
    submit(project, "a2", "T4", {"importance:Figure 2": chose("optional")})
    decisions.exclude(project, "adj", "T4", "contradictory figures")
    # T5: a decision reopened (a superseded decision row), a second one still standing
    submit(project, "a1", "T5", {"difficulty": chose("hard")})
    submit(project, "a2", "T5", {"importance:Figure 3": chose("unnecessary")})
    decisions.decide(project, "adj", "T5", "importance:Figure 3", "optional", "protocol")
    decisions.decide(project, "adj", "T5", "difficulty", "hard", "protocol")
    reopen.reopen_decision(project, "adj", "T5", "importance:Figure 3", "second look")
    # T6: only one annotator submitted: still annotating, not in the queue
    submit(project, "a1", "T6")
    # T7: unanimous, ready for the green light; T8: reopened by an annotator (out of queue)
    submit(project, "a1", "T7")
    submit(project, "a2", "T7")
    submit(project, "a1", "T8")
    submit(project, "a2", "T8", {"importance:Figure 2": chose("optional")})
    list_items(project, "adj")
    annotating.reopen(project, "a2", "T8")
    split_cases(project, "adj")
    return project


def test_bulk_queue_equals_the_case_by_case_reading(mixed) -> None:  # type: ignore[no-untyped-def]
    queue = case_queue(mixed, "adj")
    assert queue == sorted(_per_case_queue(mixed), key=lambda e: (
        (0, e.top_impact or 0, e.case_id) if e.open else
        ({"in_review": 1 if e.ready else 2, "green_lit": 3}.get(e.state, 4), 0, e.case_id)))
    assert {e.case_id: e.state for e in queue} == {
        "T1": "in_review", "T2": "excluded", "T3": "green_lit", "T4": "excluded",
        "T5": "in_review", "T7": "in_review",
    }
    assert {e.adjudicator for e in queue if e.state == "in_review"} == {"adj", "adj2"}
    assert [case_entry(mixed, "adj", e.case_id) for e in queue] == queue
    items = list_items(mixed, "adj", include_auto=True)
    assert items == _per_case_items(mixed)
    assert {i.state for i in items} == {"open", "decided", "overridden", "moot", "auto_resolved"}
    assert {i.disagreement for i in items if i.state == "open"} >= {
        "essential_vs_optional", "tie_vs_strict", "metadata", "normal_vs_hard"}
    named = list_items(mixed, "adj", include_auto=True, case_ids=["T5", "T6", "T8", "T2"])
    assert named == [i for i in items if i.case_id in ("T2", "T5")]
    status = review_status(mixed, "adj")
    assert status["conflicts_open"] == sum(i.state == "open" for i in items)
    assert (status["cases_in_review"], status["green_lit"], status["excluded"]) == (3, 1, 2)


def test_the_queue_read_a_page_at_a_time_is_the_whole_queue(mixed) -> None:  # type: ignore[no-untyped-def]
    whole = case_queue(mixed, "adj")
    for size in (1, 2, 4):
        pages, after = [], None
        while True:
            page = case_queue_page(mixed, "adj", after=after, limit=size)
            assert len(page.entries) <= size
            pages.append(page)
            after = page.after
            if after is None:
                break
        assert [e for page in pages for e in page.entries] == whole
        assert len(pages) >= len(whole) // size
    first = case_queue_page(mixed, "adj", limit=2)
    assert (first.cases, first.open_conflicts, first.ready, first.green_lit) == (
        len(whole), sum(e.open for e in whole), sum(e.ready for e in whole),
        sum(e.state == "green_lit" for e in whole))


def test_a_stale_detection_is_found_and_redone_in_bulk(mixed) -> None:  # type: ignore[no-untyped-def]
    before = list_items(mixed, "adj", include_auto=True)
    with mixed.tx() as session:  # as after an older app: the stored fingerprint differs
        case = session.scalars(select(Case).where(Case.case_id == "T1")).one()
        record = session.get(ReviewRecord, case.id)
        assert record is not None
        record.fingerprint = "0" * 64
        detected = len(entries(session, action="review_detected"))
    assert list_items(mixed, "adj", include_auto=True) == before
    with mixed.tx() as session:
        redone = entries(session, action="review_detected")[detected:]
        superseded = session.scalars(select(DetectedItem).where(
            DetectedItem.case_pk == case.id, DetectedItem.superseded.is_(True))).all()
    assert len(redone) == 1 and redone[0].detail["redetected"] is True
    assert len(superseded) == sum(i.case_id == "T1" for i in before)
    assert list_items(mixed, "adj", include_auto=True) == _per_case_items(mixed)
    with mixed.tx() as session:  # nothing stale any more: nothing detected again
        assert len(entries(session, action="review_detected")) == detected + 1


def test_the_queue_reads_in_a_fixed_number_of_queries(mixed) -> None:  # type: ignore[no-untyped-def]
    def queries(call: Any) -> int:
        count = [0]

        def tick(*_: Any) -> None:
            count[0] += 1

        event.listen(mixed.engine, "before_cursor_execute", tick)
        try:
            call()
        finally:
            event.remove(mixed.engine, "before_cursor_execute", tick)
        return count[0]

    few = queries(lambda: case_queue(mixed, "adj"))
    submit(mixed, "a2", "T6")  # one more case in review, with its own rows everywhere
    kinds.CASES.submit(mixed, "a2", "T8")
    assert len(case_queue(mixed, "adj")) == 8
    assert queries(lambda: case_queue(mixed, "adj")) == few
    assert queries(lambda: list_items(mixed, "adj")) <= few
    assert few < 30  # three bulk reads: the ranking, the drafts of settled cases, the page
