"""Read transactions take no write lock (issue 14); writes still queue behind BEGIN IMMEDIATE."""

from __future__ import annotations

import sqlite3
import time
from pathlib import Path

import pytest
from sqlalchemy import select

from annotator.store.db import ReadOnlyViolation
from annotator.store.project import open_project
from annotator.store.schema import Setting
from annotator.store.settings import PACKAGE_SEQUENCE, PROJECT_NAME


def test_a_writer_is_not_kept_waiting_by_an_open_read(tmp_path: Path) -> None:
    project = open_project(str(tmp_path / "p"))
    project.set_setting(PACKAGE_SEQUENCE, 1)
    other = sqlite3.connect(tmp_path / "p" / "project.sqlite", timeout=0, isolation_level=None)
    try:
        with project.read() as session:
            assert session.get(Setting, "package_sequence").value == 1  # type: ignore[union-attr]
            # Another connection takes the write lock at once (timeout 0: no waiting).
            other.execute("BEGIN IMMEDIATE")
            other.execute("UPDATE settings SET value = '2' WHERE key = 'package_sequence'")
            other.execute("COMMIT")
            # ...and this read still sees its own snapshot.
            key = Setting.key == "package_sequence"
            row = session.scalars(select(Setting.value).where(key)).one()
            assert row == 1
    finally:
        other.close()
    assert project.setting(PACKAGE_SEQUENCE) == 2
    project.close()


def test_a_write_transaction_still_holds_the_write_lock(tmp_path: Path) -> None:
    project = open_project(str(tmp_path / "p"))
    other = sqlite3.connect(tmp_path / "p" / "project.sqlite", timeout=0, isolation_level=None)
    try:
        with project.tx() as session:
            session.get(Setting, "project_id")  # the transaction has begun (IMMEDIATE)
            start = time.monotonic()
            with pytest.raises(sqlite3.OperationalError, match="locked"):
                other.execute("BEGIN IMMEDIATE")
            assert time.monotonic() - start < 5
    finally:
        other.close()
        project.close()


def test_a_read_transaction_refuses_to_write(project) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(ReadOnlyViolation), project.read() as session:
        session.add(Setting(key="project_name", value="sneaky"))
    assert project.setting(PROJECT_NAME) is None


def test_a_healing_read_writes_only_when_it_must(project) -> None:  # type: ignore[no-untyped-def]
    from annotator.store.settings import get_setting, put_setting
    from write_watch import empty_writes

    def read(session):  # type: ignore[no-untyped-def]
        if get_setting(session, PROJECT_NAME) is None:  # derived state to redo
            put_setting(session, PROJECT_NAME, "healed")
        return get_setting(session, PROJECT_NAME)

    with empty_writes(project) as found:
        assert project.read_healing(read) == "healed"  # refused as a read, redone as a write
        assert project.read_healing(read) == "healed"  # now a read only
    assert found == []
    project.close()
