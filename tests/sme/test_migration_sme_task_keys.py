"""Migration 0025 (the SME tasks' keys) goes down and up again on both back ends; going up,
its backfill computes every task's key from the rows as the writes would have kept it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import inspect

from annotator.services.sme import review as sme_review
from annotator.services.sme.imports import import_benchmarks, import_items
from annotator.services.sme.results import progress
from annotator.store import sme_keys
from annotator.store.db import _alembic_config

from .reviews import give, item, jsonl, reviewers, task
from .specs import valid_set


def _stored(project: Any) -> dict[Any, Any]:
    with project.read() as session:
        return sme_keys.stored(session.connection())


def test_sme_task_keys_migration_down_and_up(team: Any, tmp_path: Path) -> None:
    import_benchmarks(team, "cu", valid_set(tmp_path))
    import_items(team, "cu", [jsonl(tmp_path, "items.jsonl", [item(n) for n in range(1, 4)])])
    sme_review.assign(team, "cu", per_item=2)
    it1, it2 = task(team, "it-01"), task(team, "it-02")
    for who in reviewers(team, it1):
        give(team, who, it1, applicability="applicable", outcome="pass", score=4)
    a, b = reviewers(team, it2)
    give(team, a, it2, applicability="applicable", outcome="pass", score=4)
    give(team, b, it2, applicability="applicable", outcome="pass", score=2)
    progress(team, "cu")  # a senior's read: keys an SME's login could only mark stale, computed
    kept = _stored(team)
    assert not any(stale for _key, stale in kept.values())
    assert sorted((key[1], key[2]) for key, _stale in kept.values()) == [
        ("resolved", 0), ("undecided", 1), ("unsubmitted", 0)]

    with team.engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "0024_active_time")
    assert "sme_task_keys" not in inspect(team.engine).get_table_names()
    with team.engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "head")
    assert _stored(team) == kept
