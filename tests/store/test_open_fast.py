"""Opening a project already at the schema head skips Alembic (start-up time, issue 14)."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.store import db
from annotator.store.project import open_project


def test_the_head_read_from_the_files_is_alembics() -> None:
    assert db._head_from_files() == db.head_revision()


def test_a_project_at_the_head_opens_without_alembic(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    open_project(str(tmp_path / "p")).close()  # created through Alembic

    def no_alembic(*_args: object) -> None:
        raise AssertionError("Alembic was asked to upgrade a project at the head")

    monkeypatch.setattr(db, "_alembic_config", no_alembic)
    project = open_project(str(tmp_path / "p"), backup=False)
    assert db.current_revision(project.engine) == db.head_revision()
    project.close()
