"""The history's hash chain shows tampering: edits made behind the app's back, on both stores.

The edits are made the way someone with the database would make them: on SQLite with the
``sqlite3`` module (after dropping the append-only triggers), on PostgreSQL with psycopg
(after disabling the trigger).
"""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from alembic import command
from sqlalchemy import select

import annotator.cli
from annotator.services.history_audit import verify_history
from annotator.services.users import add_user
from annotator.store.chain import GENESIS, row_hash
from annotator.store.chain_audit import ChainReport, contains
from annotator.store.db import _alembic_config, make_engine
from annotator.store.history import record
from annotator.store.project import DB_NAME, Project, open_project
from annotator.store.schema import HistoryEntry
from chain_support import Tamper, rewrite_and_rehash, tamper_with


@pytest.fixture
def six_rows(project_location: str) -> tuple[Project, Tamper]:
    """A store whose history has six rows (seq 1..6), and a way to edit it behind its back."""
    project = open_project(project_location)
    add_user(project, "(setup)", "cu", ["curator"])
    for name in ("a1", "a2", "a3", "a4", "adj"):
        add_user(project, "cu", name, ["annotator"])
    return project, tamper_with(project_location)


def _seqs(project: Project) -> list[int | None]:
    with project.read() as session:
        return list(session.scalars(select(HistoryEntry.seq).order_by(HistoryEntry.seq)))


def _check(project: Project) -> ChainReport:
    return verify_history(project)


def test_an_untouched_history_is_intact_and_numbered_without_gaps(
    six_rows: tuple[Project, Tamper], capsys: pytest.CaptureFixture[str]
) -> None:
    project, _ = six_rows
    report = _check(project)
    assert report.intact and report.rows == 6 and report.head_seq == 6
    assert _seqs(project) == [1, 2, 3, 4, 5, 6]
    with project.read() as session:
        rows = list(session.scalars(select(HistoryEntry).order_by(HistoryEntry.seq)))
    assert rows[0].prev_hash == GENESIS
    for before, row in zip(rows, rows[1:], strict=False):
        assert row.prev_hash == before.row_hash == row_hash(before.prev_hash or "", before)
    assert report.head_hash == rows[-1].row_hash
    assert annotator.cli.main(["--project", project.location, "history-verify"]) == 0
    assert "history intact: 6 row(s)" in capsys.readouterr().out


def _problem(project: Project) -> tuple[str, int | None, str]:
    report = _check(project)
    assert not report.intact and report.problem is not None
    return report.problem.kind, report.problem.seq, report.problem.message


def test_a_changed_row_is_named(six_rows: tuple[Project, Tamper],
                                capsys: pytest.CaptureFixture[str]) -> None:
    project, tamper = six_rows
    tamper("UPDATE history SET after = '{\"name\": \"a2\", \"roles\": [\"curator\"]}'"
           " WHERE seq = 3")
    kind, seq, message = _problem(project)
    assert (kind, seq) == ("changed", 3) and "row 3 (user_added by cu" in message
    code = annotator.cli.main(["--project", project.location, "history-verify", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["intact"] is False
    assert out["problem"]["kind"] == "changed" and out["problem"]["seq"] == 3


def test_a_removed_row_is_named(six_rows: tuple[Project, Tamper]) -> None:
    project, tamper = six_rows
    tamper("DELETE FROM history WHERE seq = 3")
    kind, seq, message = _problem(project)
    assert (kind, seq) == ("removed", 4) and message.startswith("row 3 was removed")


def test_an_inserted_row_is_named(six_rows: tuple[Project, Tamper]) -> None:
    project, tamper = six_rows
    with project.read() as session:
        model = session.scalars(select(HistoryEntry).where(HistoryEntry.seq == 3)).one()
        columns = (model.actor, model.action)
    # Make room at seq 4 (from the top down: seq is unique) and forge a row there.
    tamper(*[f"UPDATE history SET seq = {s + 1} WHERE seq = {s}" for s in (6, 5, 4)],
           "INSERT INTO history (id, at, actor, action, case_pk, key, before, after, detail,"
           f" seq, prev_hash, row_hash) VALUES ('0123456789abcdef0123456789abcdef',"
           f" '2026-01-01 00:00:00', '{columns[0]}', '{columns[1]}', NULL, NULL, 'null',"
           f" '{{\"name\": \"mallory\", \"roles\": [\"curator\"]}}', '{{}}', 4, '{'1' * 64}',"
           f" '{'2' * 64}')")
    kind, seq, message = _problem(project)
    assert (kind, seq) == ("inserted", 4) and "was inserted" in message


def test_a_row_inserted_outside_the_chain_is_named(six_rows: tuple[Project, Tamper]) -> None:
    project, tamper = six_rows
    tamper("INSERT INTO history (id, at, actor, action, before, after, detail) VALUES"
           " ('0123456789abcdef0123456789abcdef', '2026-01-01 00:00:00', 'cu', 'user_added',"
           " 'null', '{\"name\": \"mallory\"}', '{}')")
    kind, seq, message = _problem(project)
    assert (kind, seq) == ("inserted", None) and "outside the chain" in message


def test_reordered_rows_are_named(six_rows: tuple[Project, Tamper]) -> None:
    project, tamper = six_rows
    tamper("UPDATE history SET seq = -1 WHERE seq = 3", "UPDATE history SET seq = 3 WHERE seq = 4",
           "UPDATE history SET seq = 4 WHERE seq = -1")
    kind, seq, message = _problem(project)
    assert (kind, seq) == ("reordered", 3) and "written after row 4" in message


def test_a_cut_tail_is_named(six_rows: tuple[Project, Tamper]) -> None:
    project, tamper = six_rows
    tamper("DELETE FROM history WHERE seq >= 5")
    kind, seq, message = _problem(project)
    assert (kind, seq) == ("cut", 4) and "the rows after 4 were removed" in message


def test_a_rewrite_with_every_hash_recomputed_passes_the_walk(
    six_rows: tuple[Project, Tamper],
) -> None:
    """The documented limit: only a head published before the rewrite reveals it."""
    project, tamper = six_rows
    published = _check(project).head_hash
    rewrite_and_rehash(project, tamper, 3, {"name": "a2", "roles": ["curator"]})
    assert _check(project).intact
    with project.read() as session:
        assert not contains(session, published)


def test_existing_history_is_chained_by_the_migration_in_time_order(
    project_location: str,
) -> None:
    if project_location.startswith("postgresql"):
        url = project_location
    else:
        Path(project_location).mkdir()
        url = f"sqlite:///{Path(project_location) / DB_NAME}"
    engine = make_engine(url)
    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "0006_sme")
        for i, at in enumerate(["2026-03-01 10:00:00", "2026-01-01 10:00:00",
                                "2026-02-01 10:00:00", "2026-02-01 10:00:00"]):
            conn.exec_driver_sql(
                "INSERT INTO history (id, at, actor, action, before, after, detail) VALUES"
                f" ('{i:032x}', '{at}', 'cu', 'old_{i}', 'null', 'null', '{{}}')")
    engine.dispose()
    project = open_project(project_location)
    with project.read() as session:
        order = [e.action for e in session.scalars(select(HistoryEntry)
                                                   .order_by(HistoryEntry.seq))]
    assert order == ["old_1", "old_2", "old_3", "old_0"]  # by time, then id
    assert _check(project).intact
    add_user(project, "(setup)", "cu", ["curator"])  # new rows continue the chain
    report = _check(project)
    assert report.intact and report.head_seq == 5
    project.close()


@pytest.mark.postgres
def test_concurrent_writers_are_serialised_on_the_chain_head(pg_url: str) -> None:
    open_project(pg_url).close()
    errors: list[BaseException] = []

    def writer(n: int) -> None:
        project = open_project(pg_url)
        try:
            for i in range(15):
                add_user(project, f"w{n}", f"u{n}-{i}", ["annotator"])
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)
        finally:
            project.close()

    project = open_project(pg_url)
    add_user(project, "(setup)", "w0", ["curator"])
    add_user(project, "w0", "w1", ["curator"])
    add_user(project, "w0", "w2", ["curator"])
    threads = [threading.Thread(target=writer, args=(n,)) for n in range(3)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    report = _check(project)
    assert report.intact and report.rows == 3 + 45 and report.head_seq == 48
    assert _seqs(project) == list(range(1, 49))
    project.close()


@pytest.mark.postgres
def test_postgres_advances_the_head_in_one_statement_for_an_edit(pg_url: str) -> None:
    """An edit's rows take and advance the head in one UPDATE ... RETURNING (the server
    hashes, the client checks); a flush of many rows locks and updates it apart. Both
    verify, and the head keeps the hash it had before the last one-statement advance."""
    from sqlalchemy import event

    from annotator.store.chain import ONE_STATEMENT_ROWS, head
    from annotator.store.schema import ChainHead

    project = open_project(pg_url)
    add_user(project, "(setup)", "cu", ["curator"])
    on_head: list[str] = []

    def seen(_conn: object, _cursor: object, statement: str, *_args: object) -> None:
        if "history_chain" in statement:
            on_head.append(" ".join(statement.split())[:40])

    with project.read() as session:
        before = head(session)
    event.listen(project.engine, "before_cursor_execute", seen)
    add_user(project, "cu", "a1", ["annotator"])  # one history row
    event.remove(project.engine, "before_cursor_execute", seen)
    assert on_head == ["UPDATE history_chain SET prev_hash = has"]
    with project.read() as session:
        stored = session.get(ChainHead, 1)
        assert stored is not None and stored.prev_hash == before[1] and stored.seq > before[0]
        one_edit = stored.seq
    on_head.clear()
    event.listen(project.engine, "before_cursor_execute", seen)
    with project.tx() as session:
        for i in range(ONE_STATEMENT_ROWS + 1):
            record(session, "cu", "note", i=i)
    assert [s.split()[0] for s in on_head] == ["SELECT", "UPDATE"]
    event.remove(project.engine, "before_cursor_execute", seen)
    report = _check(project)
    assert report.intact and report.head_seq == one_edit + ONE_STATEMENT_ROWS + 1
    project.close()


def test_a_value_that_no_longer_parses_is_a_changed_row(tmp_path: Path) -> None:
    """SQLite's columns take any text: the walk names the row instead of a traceback."""
    project = open_project(tmp_path / "p")
    for i in range(3):
        add_user(project, "(setup)" if i == 0 else "cu", "cu" if i == 0 else f"a{i}",
                 ["curator" if i == 0 else "annotator"])
    tamper_with(str(tmp_path / "p"))("UPDATE history SET after = 'not json' WHERE seq = 2",
                                     "UPDATE history SET at = 'yesterday' WHERE seq = 3")
    kind, seq, message = _problem(project)
    assert (kind, seq) == ("changed", 2) and "was changed" in message
    project.close()


def test_whole_floats_in_values_verify_after_the_store_reads_them_back(
    project_location: str,
) -> None:
    """SQLite's NUMERIC affinity stores the JSON text 676.0 as the integer 676: the hash of a
    row read back must still match (the demo's active time failed validate before)."""
    project = open_project(project_location)
    add_user(project, "(setup)", "cu", ["curator"])
    with project.tx() as session:
        record(session, "cu", "label", key="active_seconds", before=None, after=676.0)
        record(session, "cu", "label", key="nested", before=[1.0, {"x": 2.0}], after=2.5)
    assert _check(project).intact
