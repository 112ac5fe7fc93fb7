"""The project store on SQLite and PostgreSQL: round trip, migrations, refusals, history."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

import pytest
from sqlalchemy import text

from annotator.errors import ProjectError
from annotator.services.users import add_user, list_users
from annotator.store.db import current_revision, head_revision
from annotator.store.project import backup_to, open_project
from annotator.store.settings import RESUME


def test_round_trip_survives_reopen(project_location: str) -> None:
    project = open_project(project_location)
    add_user(project, "(setup)", "Curator Kim", ["curator", "adjudicator"])
    project_id = project.project_id
    project.close()

    again = open_project(project_location)
    assert again.project_id == project_id
    assert [(u.name, u.roles) for u in list_users(again)] == [
        ("Curator Kim", ["adjudicator", "curator"])
    ]
    assert current_revision(again.engine) == head_revision()
    again.close()


def test_autogenerate_finds_no_difference(project) -> None:  # type: ignore[no-untyped-def]
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    from annotator.store.schema import Base

    with project.engine.connect() as conn:
        diff = compare_metadata(
            MigrationContext.configure(conn, opts={"compare_type": True}), Base.metadata
        )
    assert diff == []


def test_newer_schema_is_refused(project_location: str) -> None:
    project = open_project(project_location)
    with project.engine.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999_from_the_future'"))
    project.close()
    with pytest.raises(ProjectError, match="newer version of annotator"):
        open_project(project_location)


def test_history_is_append_only(project) -> None:  # type: ignore[no-untyped-def]
    add_user(project, "(setup)", "cu", ["curator"])
    for statement in ("UPDATE history SET actor = 'someone else'", "DELETE FROM history"):
        with pytest.raises(Exception, match="append-only"):
            with project.engine.begin() as conn:
                conn.execute(text(statement))
    with project.engine.connect() as conn:
        assert conn.execute(text("SELECT actor FROM history")).scalar_one() == "(setup)"


def test_folder_with_other_content_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ProjectError, match="not empty"):
        open_project(tmp_path)


def test_backup_is_a_consistent_copy(tmp_path: Path) -> None:
    project = open_project(tmp_path / "p")
    add_user(project, "(setup)", "cu", ["curator"])
    target = backup_to(project, tmp_path / "copy.sqlite")
    import sqlite3

    with sqlite3.connect(target) as conn:
        assert conn.execute("SELECT name FROM users").fetchall() == [("cu",)]
    with pytest.raises(ProjectError, match="already exists"):
        backup_to(project, target)


def test_rolling_backup_on_open(tmp_path: Path) -> None:
    project = open_project(tmp_path / "p")
    add_user(project, "(setup)", "cu", ["curator"])
    project.close()
    open_project(tmp_path / "p").close()
    backups = list((tmp_path / "p" / "backups").glob("auto-*.sqlite"))
    assert len(backups) == 1
    open_project(tmp_path / "p").close()  # within the hour: no second copy
    assert len(list((tmp_path / "p" / "backups").glob("auto-*.sqlite"))) == 1


def _writer(location: str, prefix: str, count: int, barrier) -> None:  # type: ignore[no-untyped-def]
    project = open_project(location, backup=False)
    barrier.wait()
    for i in range(count):
        project.set_setting(RESUME, {"i": i}, f"{prefix}-{i}")
        add_user(project, "cu", f"{prefix}-user-{i}", ["annotator"])


def test_two_processes_write_at_once_without_locking_errors(tmp_path: Path) -> None:
    location = str(tmp_path / "p")
    project = open_project(location)
    add_user(project, "(setup)", "cu", ["curator"])
    project.close()
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_writer, args=(location, name, 40, barrier)) for name in "ab"]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
    assert [p.exitcode for p in procs] == [0, 0]
    project = open_project(location)
    names = {u.name for u in list_users(project)}
    assert {f"{x}-user-{i}" for x in "ab" for i in range(40)} <= names
    assert project.setting(RESUME, "a-39") == {"i": 39}
    assert project.setting(RESUME, "b-39") == {"i": 39}


def test_a_failed_automatic_backup_never_blocks_opening(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    import sqlite3

    import annotator.store.project as project_module

    open_project(tmp_path / "p").close()

    def collide(db_file: Path, target: Path) -> None:
        target.write_bytes(b"half")  # what a second process writing the same file left
        raise sqlite3.OperationalError("table alembic_version already exists")

    monkeypatch.setattr(project_module, "BACKUP_EVERY", project_module.timedelta(0))
    monkeypatch.setattr(project_module, "_vacuum_into", collide)
    opened = open_project(tmp_path / "p", create=False)
    opened.close()
    assert not list((tmp_path / "p" / "backups").glob(".partial-*"))


def test_several_images_are_read_at_once_and_a_lost_one_is_named(project) -> None:  # type: ignore[no-untyped-def]
    from annotator.errors import NotFound
    from annotator.store.images import sha256_hex

    payloads = [b"first image", b"second image", b"third image"]
    with project.tx() as session:
        shas = [project.images.put(session, p, "image/png") for p in payloads]
    with project.read() as session:
        found = project.images.get_many(session, [shas[2], shas[0], shas[2]])
        assert found == {shas[2]: payloads[2], shas[0]: payloads[0]}
        assert project.images.get_many(session, []) == {}
        lost = sha256_hex(b"never stored")
        with pytest.raises(NotFound, match=lost[:12]):
            project.images.get_many(session, [shas[1], lost])


@pytest.mark.postgres
def test_a_team_store_sends_image_bytes_in_binary_not_as_hex(pg_url: str) -> None:
    """Hex is decoded holding the GIL (15 ms for 4 MB), so the GUI thread would wait on a
    worker reading images: the bytes must come in binary format, all 256 values intact."""
    from psycopg.adapt import Loader

    from annotator.store.project import open_project

    class NoHex(Loader):
        def load(self, data: object) -> bytes:
            raise AssertionError("an image's bytes were sent as hex text")

    payload, other = bytes(range(256)) * 64, bytes(range(255, -1, -1))
    project = open_project(pg_url)
    try:
        with project.tx() as session:
            sha = project.images.put(session, payload, "application/dicom")
            sha2 = project.images.put(session, other, "image/png")
        with project.read() as session:
            driver = session.connection().connection.driver_connection
            driver.adapters.register_loader("bytea", NoHex)
            assert project.images.get(session, sha) == payload
            assert project.images.get_many(session, [sha]) == {sha: payload}
            assert project.images.get_many(session, [sha2, sha]) == {sha: payload, sha2: other}
    finally:
        project.close()
