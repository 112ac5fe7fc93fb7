"""Instrument a project's engine: every write transaction that commits having written nothing.

A read-only call made in ``project.tx()`` takes SQLite's write lock (BEGIN IMMEDIATE) and
makes every writer wait for a read. SQLAlchemy's connection events see each transaction
begin, each statement and each commit; a committed write transaction without an INSERT,
UPDATE or DELETE is recorded with the service function that opened it.
"""

from __future__ import annotations

import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import event

from annotator.store.db import READ_ONLY

WRITES = ("INSERT", "UPDATE", "DELETE")


def _caller() -> str:
    """The outermost frame inside annotator/services: the service call that was made."""
    frames = [f for f in traceback.extract_stack() if "/annotator/services/" in f.filename]
    return f"{frames[0].filename.split('/annotator/')[-1]}:{frames[0].name}" if frames else "?"


@contextmanager
def empty_writes(project: Any) -> Iterator[list[str]]:
    """Yield the list the empty write transactions are appended to (by opening caller)."""
    engine = project.engine
    found: list[str] = []
    open_: dict[int, list[Any]] = {}  # connection -> [opened by, statements that wrote]

    def begin(conn: Any) -> None:
        if not conn.get_execution_options().get(READ_ONLY):
            open_[id(conn)] = [_caller(), 0]

    def statement(conn: Any, _cursor: Any, sql: str, *_args: Any) -> None:
        if id(conn) in open_ and sql.lstrip().upper().startswith(WRITES):
            open_[id(conn)][1] += 1

    def commit(conn: Any) -> None:
        opened = open_.pop(id(conn), None)
        if opened is not None and opened[1] == 0:
            found.append(opened[0])

    def rollback(conn: Any) -> None:
        open_.pop(id(conn), None)

    listeners = (("begin", begin), ("before_cursor_execute", statement),
                 ("commit", commit), ("rollback", rollback))
    for name, fn in listeners:
        event.listen(engine, name, fn)
    try:
        yield found
    finally:
        for name, fn in listeners:
            event.remove(engine, name, fn)
