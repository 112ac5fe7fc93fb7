"""Bulk statements the keys and counters kept by the writes share.

``chunks`` keeps ``IN`` lists within every back end's bound-parameter limit; ``upsert`` is
the dialect's ``INSERT ... ON CONFLICT``, imported when first used so that opening a SQLite
project never loads the PostgreSQL dialect (and asyncio with it: about 50 ms of start-up).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from sqlalchemy import Connection

CHUNK = 500  # well under SQLite's 32,766 bound parameters and PostgreSQL's 65,535


def chunks(items: Iterable[Any], size: int = CHUNK) -> Iterator[list[Any]]:
    """``items`` in lists of at most ``size``, in their order."""
    listed = list(items)
    for start in range(0, len(listed), size):
        yield listed[start:start + size]


def upsert(conn: Connection, table: Any) -> Any:
    """``INSERT`` into ``table`` on ``conn``'s dialect, with ``on_conflict_do_update``."""
    if conn.dialect.name == "postgresql":
        from sqlalchemy.dialects import postgresql

        return postgresql.insert(table)
    from sqlalchemy.dialects import sqlite

    return sqlite.insert(table)
