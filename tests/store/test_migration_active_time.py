"""Migration 0024 (the desk's active-time counters) goes down and up again on both back ends;
going up, its backfill counts every submitted case's active time as the writes keep it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command

from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.users import add_user
from annotator.services.workspace_state import add_active_time
from annotator.store import counts
from annotator.store.db import _alembic_config
from factories import make_case, write_case_file


def _active(project: Any) -> dict[str, int]:
    with project.read() as session:
        return {k: n for k, n in counts.read(session.connection(), prefix="active:").items()
                if n and k != counts.ACTIVE_STAMP}


def test_active_time_migration_down_and_up(project: Any, tmp_path: Path) -> None:
    add_user(project, "(setup)", "cu", ["curator"])
    for name in ("a1", "a2"):
        add_user(project, "cu", name, ["annotator"])
    import_cases(project, "cu", [write_case_file(tmp_path / "drafts",
                                                 [make_case(f"M{i}") for i in range(1, 4)])])
    assign(project, "cu", 2)
    for seconds, case_id in ((61.0, "M1"), (240.6, "M2")):
        for name in ("a1", "a2"):
            add_active_time(project, name, case_id, seconds)
            annotating.accept_suggestions(project, name, case_id)
            kinds.CASES.submit(project, name, case_id)
    kept = _active(project)
    assert sorted(kept.values()) == [1, 1, 1, 1]
    assert sorted(k.rsplit(":", 1)[1] for k in kept) == ["240", "240", "60", "60"]

    with project.engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "0023_rated_work_rater_kind")
    assert _active(project) == {}
    with project.engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "head")
    assert _active(project) == kept
    with project.read() as session:
        assert counts.drift(session.connection()) == {}
