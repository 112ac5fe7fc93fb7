"""The everyday queries use their indexes, on both stores (what keeps them flat at 100k cases).

Every SELECT the case list, the review and SME queues, one case's history and the status
counts send is captured and explained: on SQLite no ``SCAN`` of a table that grows with the
project without an index; on PostgreSQL, with ``enable_seqscan`` off (so the planner takes
any usable index, however small the tables), no ``Seq Scan`` of one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from annotator.services import workspace
from annotator.services.case_history import case_history
from annotator.services.demo import CURATOR, PHYSICIANS, SENIOR, build_demo
from annotator.services.review.queue import case_queue, case_queue_page, open_conflict_totals
from annotator.services.sme import review as sme_review
from annotator.services.status import project_status
from annotator.store.project import Project, open_project

# Tables whose rows grow with cases, items or edits.
GROWING = {"cases", "case_revisions", "case_images", "rated_work", "decisions", "history",
           "detected_items", "review_records", "reviewer_letters", "sme_items", "sme_tasks",
           "judge_items", "queue_keys"}
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


def _full_scans(project: Project, statement: str, parameters: Any) -> list[str]:
    with project.engine.connect() as conn:
        if project.engine.dialect.name == "sqlite":
            plan = [row[-1] for row in conn.exec_driver_sql(
                "EXPLAIN QUERY PLAN " + statement, parameters)]
            found = [re.fullmatch(r"SCAN (\w+)(?: AS \w+)?", line) for line in plan]
        else:
            conn.exec_driver_sql("SET enable_seqscan = off")
            plan = [row[0] for row in conn.exec_driver_sql("EXPLAIN " + statement, parameters)]
            found = [re.search(r"Seq Scan on (\w+)", line) for line in plan]
    return [m[1] for m in found if m and m[1] in GROWING]


def _calls(p: Project) -> dict[str, Callable[[], Any]]:
    case_id = workspace.case_list(p, ADA).rows[0].case_id
    return {
        "case_list": lambda: workspace.case_list(p, ADA),
        "review_queue": lambda: case_queue(p, SENIOR),
        "review_first_page": lambda: case_queue_page(p, SENIOR, limit=2),
        "review_next_page": lambda: case_queue_page(
            p, SENIOR, after=case_queue_page(p, SENIOR, limit=2).after, limit=2),
        "desk_conflicts": lambda: open_conflict_totals(p, SENIOR),
        "sme_queue": lambda: sme_review.queue(p, ADA),
        "case_history": lambda: case_history(p, CURATOR, case_id),
        "status": lambda: project_status(p),
    }


@pytest.mark.parametrize("name", ["case_list", "review_queue", "review_first_page",
                                  "review_next_page", "desk_conflicts", "sme_queue",
                                  "case_history", "status"])
def test_everyday_queries_use_indexes(demo: Project, name: str) -> None:
    scans = {}
    for statement, parameters in _captured(demo, _calls(demo)[name]):
        tables = _full_scans(demo, statement, parameters)
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
