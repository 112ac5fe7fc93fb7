"""Migration 0011 (hidden repeats, calibration and gold items) goes down and up again on
both back ends: first ratings are kept, repeats (unknown before 0011) are dropped going down."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import inspect, text

from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.quality import mark_item
from annotator.services.rating.repeats import add_repeats
from annotator.store.db import _alembic_config, head_revision
from factories import make_case, write_case_file


def _columns(engine: Any, table: str) -> set[str]:
    return {c["name"] for c in inspect(engine).get_columns(table)}


def test_quality_migration_down_and_up(team: Any, tmp_path: Path) -> None:
    path = write_case_file(tmp_path / "drafts", [make_case("T1")])
    import_cases(team, "cu", [path])
    assign(team, "cu", 2)

    for name in ("a1", "a2"):
        annotating.accept_suggestions(team, name, "T1")
        kinds.CASES.submit(team, name, "T1")
    assert add_repeats(team, "cu", "case", 1.0, 0).count == 2
    mark_item(team, "cu", "case", "T1", "calibration", {"difficulty": "hard"}, "panel")
    engine = team.engine
    assert {"repeat_of", "repeat_no", "due_at"} <= _columns(engine, "rated_work")

    with engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "0010_burned_text")
    assert not {"repeat_of", "repeat_no", "due_at"} & _columns(engine, "rated_work")
    assert "quality_items" not in inspect(engine).get_table_names()
    with engine.begin() as conn:
        kept = conn.execute(text("SELECT count(*) FROM rated_work WHERE state = 'submitted'"))
        assert kept.scalar() == 2

    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "head")
    with engine.begin() as conn:
        version = conn.execute(text("SELECT version_num FROM alembic_version")).scalar()
        assert version == head_revision()
        rows = conn.execute(text("SELECT repeat_no, repeat_of FROM rated_work")).all()
    assert sorted(rows) == [(0, None), (0, None)]
