"""Migration 0021 (the review queue's keys) goes down and up again on both back ends; going
up, its backfill computes every case's key from the rows as the writes would have kept it.
Migration 0032 (their totals per group, kept by triggers) likewise, counted from the keys."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import inspect

from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.review import decisions
from annotator.services.review.queue import case_queue, recompute_all
from annotator.services.users import add_user
from annotator.store import queue_keys
from annotator.store.db import _alembic_config
from factories import make_case, write_case_file


def _stored(project: Any) -> dict[Any, Any]:
    with project.read() as session:
        return queue_keys.stored(session.connection())


def _totals(project: Any) -> dict[int, tuple[int, int]]:
    with project.read() as session:
        return queue_keys.totals(session.connection())


def test_queue_key_migration_down_and_up(project: Any, tmp_path: Path) -> None:
    add_user(project, "(setup)", "cu", ["curator"])
    for name in ("a1", "a2"):
        add_user(project, "cu", name, ["annotator"])
    add_user(project, "cu", "adj", ["adjudicator"])
    cases = [make_case(f"M{i}") for i in range(1, 5)]
    import_cases(project, "cu", [write_case_file(tmp_path / "drafts", cases)])
    assign(project, "cu", 2)
    for case_id in ("M1", "M2", "M3"):
        for name in ("a1", "a2"):
            annotating.accept_suggestions(project, name, case_id)
            kinds.CASES.submit(project, name, case_id)
    decisions.exclude(project, "adj", "M2", "contradictory figures")
    kept = _stored(project)
    assert len(kept) == 3  # M4 is still annotating
    queue = case_queue(project, "adj")
    totals = _totals(project)
    assert sum(n for n, _ in totals.values()) == 3

    with project.engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "0031_agreement_sum_uncompressed")
    assert "queue_totals" not in inspect(project.engine).get_table_names()
    with project.engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "head")
    assert _totals(project) == totals

    with project.engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "0020_agreement_stale")
    assert "queue_keys" not in inspect(project.engine).get_table_names()
    with project.engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "head")
    assert _stored(project) == kept
    assert _totals(project) == totals
    with project.read() as session:
        keys, stale = recompute_all(session)
    assert not stale
    assert {pk: k for pk, (_, k) in keys.items() if k is not None} == {
        pk: k for pk, (k, _) in kept.items()}
    assert case_queue(project, "adj") == queue
