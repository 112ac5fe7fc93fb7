"""Migration 0026 (images name their shared notes; unneeded indexes dropped) goes down and up
again on both back ends without changing any image's attribution, removed list or header."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from alembic import command
from sqlalchemy import JSON, column, inspect, select, table

from annotator.services.imports import import_cases
from annotator.services.users import add_user
from annotator.store.db import _alembic_config
from annotator.store.image_record import ImageRecord
from annotator.store.schema import CaseImage, ImageNotes
from factories import make_case, write_case_file


def _records(project: Any) -> dict[tuple[str, str], ImageRecord]:
    with project.read() as session:
        return {(str(row.revision_id), row.draft_path): ImageRecord.from_row(row)
                for row in session.scalars(select(CaseImage))}


def _cases() -> list[dict[str, Any]]:
    cases = [make_case(f"L{i}") for i in range(1, 5)]
    other = copy.deepcopy(cases[3])
    other["case_id"] = "L5"
    other["images"][0]["author"] = "Another author"  # notes of its own
    return [*cases, other]


def test_lean_store_migration_down_and_up(project: Any, tmp_path: Path) -> None:
    add_user(project, "(setup)", "cu", ["curator"])
    import_cases(project, "cu", [write_case_file(tmp_path / "drafts", _cases())])
    before = _records(project)
    assert len(before) == 15
    with project.read() as session:
        notes = session.scalars(select(ImageNotes)).all()
    # The cases' three images (one source each) are the same three notes throughout, but
    # for the last case's first image.
    assert len(notes) == 4
    assert {r.attribution["author"] for r in before.values()} == {"Test", "Another author"}

    with project.engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "0025_sme_task_keys")
    with project.engine.connect() as conn:
        columns = {c["name"] for c in inspect(conn).get_columns("case_images")}
        assert {"attribution", "removed", "dicom_header"} <= columns
        assert "notes_digest" not in columns
        assert not inspect(conn).has_table("image_notes")
        authors = [a["author"] for a in conn.execute(
            select(column("attribution", JSON)).select_from(table("case_images"))).scalars()]
    assert sorted(authors) == ["Another author"] + ["Test"] * 14

    with project.engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "head")
    assert _records(project) == before
    with project.engine.connect() as conn:
        indexes = {i["name"] for i in inspect(conn).get_indexes("history")}
    assert "ix_history_at" not in indexes and "ix_history_case_pk" in indexes


def test_images_sharing_notes_keep_one_copy(project: Any, tmp_path: Path) -> None:
    add_user(project, "(setup)", "cu", ["curator"])
    import_cases(project, "cu", [write_case_file(tmp_path / "a", [make_case("S1")])])
    import_cases(project, "cu", [write_case_file(tmp_path / "b", [make_case("S2")])])
    with project.read() as session:
        images = session.scalars(select(CaseImage)).all()
        notes = session.scalars(select(ImageNotes)).all()
        assert len(images) == 6 and len(notes) == 3
        by_digest = {n.digest: n for n in notes}
        assert all(i.attribution == by_digest[i.notes_digest].attribution
                   and i.attribution["source_url"].endswith(Path(i.draft_path).stem)
                   and (i.removed, i.dicom_header) == ([], {}) for i in images)
