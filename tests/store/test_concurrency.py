"""Concurrent writers on both stores: no case left behind, no lost update (real processes)."""

from __future__ import annotations

import multiprocessing
from pathlib import Path
from typing import Any

from sqlalchemy import text, update

from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.repair import repair_case_states
from annotator.services.users import add_user
from annotator.store.project import open_project
from annotator.store.schema import Case, HistoryEntry
from factories import make_case, write_case_file

CASES = [f"W{i}" for i in range(8)]


def _submitter(location: str, name: str, barrier: Any) -> None:
    project = open_project(location, create=False)
    try:
        for case_id in CASES:
            barrier.wait(60)
            kinds.CASES.submit(project, name, case_id)
    finally:
        project.close()


def _two_annotators_ready(location: str, drafts: Path) -> None:
    project = open_project(location)
    add_user(project, "(setup)", "cu", ["curator"])
    for name in ("a1", "a2"):
        add_user(project, "cu", name, ["annotator"])
    import_cases(project, "cu", [write_case_file(drafts, [make_case(c) for c in CASES])])
    assign(project, "cu", 2)
    for case_id in CASES:
        for name in ("a1", "a2"):
            annotating.accept_suggestions(project, name, case_id)
    project.close()


def test_two_annotators_submitting_one_case_at_once_never_leave_it_stuck(
    project_location: str, tmp_path: Path
) -> None:
    _two_annotators_ready(project_location, tmp_path / "drafts")
    ctx = multiprocessing.get_context("spawn")
    barrier = ctx.Barrier(2)
    procs = [ctx.Process(target=_submitter, args=(project_location, name, barrier))
             for name in ("a1", "a2")]
    for p in procs:
        p.start()
    for p in procs:
        p.join(180)
    assert [p.exitcode for p in procs] == [0, 0]
    project = open_project(project_location, create=False)
    try:
        with project.tx() as session:
            states = dict(session.query(Case.case_id, Case.state).all())
        assert states == {c: "in_review" for c in CASES}
        assert repair_case_states(project, "cu") == []
    finally:
        project.close()


def test_repair_moves_a_case_left_behind(project_location: str, tmp_path: Path) -> None:
    _two_annotators_ready(project_location, tmp_path / "drafts")
    project = open_project(project_location, create=False)
    try:
        for name in ("a1", "a2"):
            kinds.CASES.submit(project, name, "W0")
        with project.tx() as session:  # what the write skew left behind before row locks
            session.execute(update(Case).where(Case.case_id == "W0").values(state="annotating"))
        fixes = repair_case_states(project, "cu", dry_run=True)
        assert [(f.case_id, f.before, f.after) for f in fixes] == [
            ("W0", "annotating", "in_review")]
        assert repair_case_states(project, "cu") == fixes
        assert repair_case_states(project, "cu") == []
        with project.tx() as session:
            assert session.query(Case.state).filter(Case.case_id == "W0").scalar() == "in_review"
    finally:
        project.close()


def test_sigkill_during_a_burst_of_edits_loses_no_acknowledged_edit(
    project_location: str, tmp_path: Path
) -> None:
    import subprocess
    import sys

    from annotator.store.history import entries

    _two_annotators_ready(project_location, tmp_path / "drafts")
    process = subprocess.Popen(
        [sys.executable, str(Path(__file__).with_name("edit_burst.py")), project_location,
         "a1", "W1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    acked: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:  # blocks until the next ack: no sleeping
            acked.append(line.strip().removeprefix("ack "))
            if len(acked) >= 30:
                break
    finally:
        process.kill()
        process.wait(timeout=60)
    assert len(acked) == 30 and process.returncode == -9
    project = open_project(project_location, create=False)
    try:
        with project.tx() as session:
            saved = [e.after for e in entries(session) if e.action == "label"]
        assert [a for a in acked if a not in saved] == []
        # the label holds the last value the history recorded (nothing half-written)
        assert annotating.view(project, "a1", "W1").labels["comment"] == saved[-1]
        if project.is_sqlite:
            with project.tx() as session:
                assert session.execute(text("PRAGMA integrity_check")).scalar() == "ok"
    finally:
        project.close()


def _annotator_burst(location: str, name: str, rounds: int, out: Any) -> None:
    """Edit, submit and reopen in a loop (submitting last); report the last value saved."""
    from annotator.errors import ConflictError, StateError

    project = open_project(location, create=False)
    last: dict[str, str] = {}
    try:
        for n in range(rounds):
            for case_id in CASES[:4]:
                for _attempt in range(10):  # a collision is reported; the worker retries
                    try:
                        if n and annotating.view(project, name, case_id).state == "submitted":
                            annotating.reopen(project, name, case_id)
                        annotating.set_label(project, name, case_id, "comment", "", f"{name} {n}")
                        last[case_id] = f"{name} {n}"
                        kinds.CASES.submit(project, name, case_id)
                        break
                    except ConflictError:
                        continue
                    except StateError:  # decided by the senior meanwhile: leave it
                        break
    finally:
        project.close()
        out.put((name, last))


def _adjudicator_burst(location: str, rounds: int) -> None:
    from annotator.errors import AnnotatorError
    from annotator.services.review import decisions
    from annotator.services.review.queue import case_queue

    project = open_project(location, create=False)
    try:
        for _ in range(rounds):
            for entry in case_queue(project, "adj"):
                if entry.state == "in_review" and not entry.open and not entry.blockers:
                    try:
                        decisions.green_light(project, "adj", entry.case_id)
                    except AnnotatorError:
                        continue
    finally:
        project.close()


def test_two_annotators_and_an_adjudicator_on_one_store_for_a_burst(
    project_location: str, tmp_path: Path
) -> None:
    _two_annotators_ready(project_location, tmp_path / "drafts")
    project = open_project(project_location, create=False)
    add_user(project, "cu", "adj", ["adjudicator"])
    project.close()
    ctx = multiprocessing.get_context("spawn")
    out = ctx.Queue()
    procs = [ctx.Process(target=_annotator_burst, args=(project_location, n, 6, out))
             for n in ("a1", "a2")]
    procs.append(ctx.Process(target=_adjudicator_burst, args=(project_location, 20)))
    for p in procs:
        p.start()
    results = dict(out.get(timeout=300) for _ in range(2))
    for p in procs:
        p.join(300)
    assert [p.exitcode for p in procs] == [0, 0, 0]
    project = open_project(project_location, create=False)
    try:
        assert repair_case_states(project, "cu") == []  # no case stuck behind its annotations
        for name, last in results.items():
            for case_id, value in last.items():  # no lost update
                assert annotating.view(project, name, case_id).labels["comment"] == value
        with project.tx() as session:
            ids = [e.id for e in session.query(HistoryEntry).all()]
        assert len(ids) == len(set(ids))
    finally:
        project.close()


class _Proxy:
    """A TCP relay on 127.0.0.1 to the PostgreSQL server that the test can cut and restore."""

    def __init__(self) -> None:
        import socket

        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open = True
        self.sockets: list[Any] = []
        import threading

        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if not self.open:
                client.close()
                continue
            server = socket.create_connection(("127.0.0.1", 5432))
            self.sockets += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _pipe(source: Any, target: Any) -> None:
        try:
            while data := source.recv(65536):
                target.sendall(data)
        except OSError:
            pass
        finally:
            for s in (source, target):
                try:
                    s.close()
                except OSError:
                    pass

    def cut(self) -> None:
        """The server 'goes away': new connections refused, open ones dropped."""
        import socket

        self.open = False
        for s in self.sockets:
            try:
                s.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self.sockets.clear()

    def restore(self) -> None:
        self.open = True


def test_a_team_store_that_goes_away_is_reported_and_back_works(pg_url: str,
                                                               tmp_path: Path) -> None:
    import pytest

    from annotator.errors import StoreUnavailable

    _two_annotators_ready(pg_url, tmp_path / "drafts")
    proxy = _Proxy()
    via_proxy = pg_url.replace("127.0.0.1:5432", f"127.0.0.1:{proxy.port}")
    project = open_project(via_proxy, create=False)
    try:
        annotating.set_label(project, "a1", "W2", "comment", "", "before")
        proxy.cut()
        with pytest.raises(StoreUnavailable, match="cannot be reached"):
            annotating.set_label(project, "a1", "W2", "comment", "", "while down")
        proxy.restore()
        annotating.set_label(project, "a1", "W2", "comment", "", "after")  # the retry
        assert annotating.view(project, "a1", "W2").labels["comment"] == "after"
    finally:
        project.close()
        proxy.listener.close()
