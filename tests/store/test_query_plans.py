"""The everyday queries use their indexes, on both stores (what keeps them flat at 100k cases).

Every SELECT the case list, the review and SME queues, one case's history, the status
counts and the curator's desk send is captured and explained: on SQLite no ``SCAN`` of a
table that grows with the project without an index; on PostgreSQL, with ``enable_seqscan``
off (so the planner takes any usable index, however small the tables), no ``Seq Scan`` of
one. So are the agreement
point estimates after one more submission and the cached report's check (issue 27): they
read the marked cases' rows by id; the marks themselves (``agreement_stale``, the cases
changed since the last call) are read whole by design.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from annotator.services import kinds, workspace
from annotator.services.agreement import agreement_report, point_estimates, release_report
from annotator.services.case_history import case_history
from annotator.services.demo import CURATOR, PHYSICIANS, SENIOR, _label_fully, build_demo
from annotator.services.desk import desk_snapshot
from annotator.services.review.queue import case_queue, case_queue_page, open_conflict_totals
from annotator.services.sme import review as sme_review
from annotator.services.status import project_status
from annotator.store.project import Project, open_project

# Tables whose rows grow with cases, items or edits.
GROWING = {"cases", "case_revisions", "case_images", "rated_work", "decisions", "history",
           "detected_items", "review_records", "reviewer_letters", "sme_items", "sme_tasks",
           "judge_items", "agreement_stats", "queue_keys"}
ADA = PHYSICIANS[0]


@pytest.fixture(scope="module", params=["sqlite", pytest.param("postgres",
                                                               marks=pytest.mark.postgres)])
def demo(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
         ) -> Iterator[Project]:
    if request.param == "sqlite":
        location = str(tmp_path_factory.mktemp("plans") / "demo")
        yield from _built(location)
        return
    from pg_roles import create_database, drop_database  # skips (fails in CI) without a server

    name = create_database()
    try:
        yield from _built(f"postgresql://postgres@127.0.0.1:5432/{name}")
    finally:
        drop_database(name)


def _built(location: str) -> Iterator[Project]:
    build_demo(location)
    project = open_project(location if "://" in location else Path(location))
    yield project
    project.close()


def _captured(project: Project, call: Callable[[], Any]) -> list[tuple[str, Any]]:
    seen: list[tuple[str, Any]] = []

    def capture(_conn: Any, _cursor: Any, statement: str, parameters: Any, _context: Any,
                executemany: bool) -> None:
        if statement.lstrip().upper().startswith("SELECT") and not executemany:
            seen.append((statement, parameters))

    event.listen(project.engine, "before_cursor_execute", capture)
    try:
        call()
    finally:
        event.remove(project.engine, "before_cursor_execute", capture)
    assert seen, "the call sent no query"
    return seen


# A search of rated work by kind alone reads every row of that kind: for the reads of a few
# cases' work (the agreement's marked cases) that is a scan too.
BY_KIND = r"SEARCH (rated_work)(?: AS \w+)? USING INDEX ix_rated_work_kind_state \(kind=\?\)"


# A read of some cases' rows that searches an index without the case in it reads the rows of
# every case matching the rest (SQLite without table statistics preferred decisions' (kind,
# superseded) index to its case index for the review queue's page: 21 ms at 100,000 cases).
SEARCH = r"SEARCH (\w+)(?: AS \w+)? USING (?:COVERING )?INDEX \w+ \((.*)\)"


def _not_by_case(statement: str, line: str) -> re.Match[str] | None:
    found = re.fullmatch(SEARCH, line)
    if found is None or f"{found[1]}.case_pk IN" not in statement or "case_pk=" in found[2]:
        return None
    return found


def _full_scans(project: Project, statement: str, parameters: Any, by_kind: bool = False
                ) -> list[str]:
    with project.engine.connect() as conn:
        if project.engine.dialect.name == "sqlite":
            plan = [row[-1] for row in conn.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + statement, parameters)]
            found = [re.fullmatch(r"SCAN (\w+)(?: AS \w+)?", line)
                     or (re.fullmatch(BY_KIND, line) if by_kind else None)
                     or _not_by_case(statement, line) for line in plan]
        else:
            conn.exec_driver_sql("SET enable_seqscan = off")
            plan = [row[0] for row in conn.exec_driver_sql("EXPLAIN " + statement, parameters)]
            found = [re.search(r"Seq Scan on (\w+)", line) for line in plan]
    return [m[1] for m in found if m and m[1] in GROWING]


def _calls(p: Project) -> dict[str, Callable[[], Any]]:
    case_id = workspace.case_list(p, ADA).rows[0].case_id
    return {
        # Its listing built (every query), and kept (the one that says nothing changed).
        "case_list": lambda: (workspace._LISTINGS.clear(), workspace.case_list(p, ADA)),
        "case_list_kept": lambda: workspace.case_list(p, ADA),
        "review_queue": lambda: case_queue(p, SENIOR),
        "review_first_page": lambda: case_queue_page(p, SENIOR, limit=2),
        "review_next_page": lambda: case_queue_page(
            p, SENIOR, after=case_queue_page(p, SENIOR, limit=2).after, limit=2),
        "desk_conflicts": lambda: open_conflict_totals(p, SENIOR),
        "desk": lambda: desk_snapshot(p, CURATOR),
        "sme_queue": lambda: sme_review.queue(p, ADA),
        "case_history": lambda: case_history(p, CURATOR, case_id),
        "status": lambda: project_status(p),
        "agreement_estimates": lambda: point_estimates(p, CURATOR),
        "agreement_cached": lambda: agreement_report(p, CURATOR),
        # What a release of a few cases reads of the agreement (its export's report).
        "agreement_release": lambda: release_report(p, [case_id]),
    }


def _one_more_submission(p: Project) -> None:
    """Warm the agreement figures, then submit one more case (what the curator sees next)."""
    import random

    from sqlalchemy import select

    from annotator.store.schema import Annotation, Case, User

    point_estimates(p, CURATOR)
    agreement_report(p, CURATOR)
    with p.read() as session:
        name, case_id = session.execute(
            select(User.name, Case.case_id).join(Annotation, Annotation.annotator_id == User.id)
            .join(Case, Case.id == Annotation.case_pk)
            .where(Annotation.state.in_(("assigned", "in_progress")), Case.state == "annotating")
            .order_by(Case.case_id)).first() or (None, None)
    assert name is not None and case_id is not None
    _label_fully(p, name, case_id, random.Random(1), disagree=0.3)
    kinds.CASES.submit(p, name, case_id)


@pytest.mark.parametrize("name", ["case_list", "case_list_kept", "review_queue",
                                  "review_first_page", "review_next_page", "desk_conflicts",
                                  "desk",
                                  "sme_queue", "case_history", "status", "agreement_estimates",
                                  "agreement_cached", "agreement_release"])
def test_everyday_queries_use_indexes(demo: Project, name: str) -> None:
    if name == "agreement_estimates":
        _one_more_submission(demo)
    elif name == "agreement_cached":
        agreement_report(demo, CURATOR)  # then a hit: the check alone
    scans = {}
    for statement, parameters in _captured(demo, _calls(demo)[name]):
        tables = _full_scans(demo, statement, parameters,
                             name.startswith(("agreement", "case_list")))
        if tables:
            scans[" ".join(statement.split())[:300]] = tables
    assert scans == {}


def test_a_queue_page_is_read_in_index_order(demo: Project) -> None:
    """The page's keyset read walks the queue-key index in order (no sort of every key), so
    the first page costs its 50 index entries however long the queue is."""
    page = [(st, params) for st, params in _captured(
        demo, lambda: case_queue_page(demo, SENIOR, limit=2)) if "ORDER BY queue_keys" in st]
    assert page
    with demo.engine.connect() as conn:
        for statement, parameters in page:
            if demo.engine.dialect.name == "sqlite":
                plan = " ".join(row[-1] for row in conn.exec_driver_sql(
                    "EXPLAIN QUERY PLAN " + statement, parameters))
                assert "ix_queue_keys_order" in plan and "TEMP B-TREE" not in plan, plan
            else:
                conn.exec_driver_sql("SET enable_seqscan = off")
                plan = " ".join(row[0] for row in conn.exec_driver_sql(
                    "EXPLAIN " + statement, parameters))
                assert "ix_queue_keys_order" in plan and "Sort" not in plan, plan
