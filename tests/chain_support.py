"""Editing a store's history behind the app's back, as someone with the database would.

On SQLite with the ``sqlite3`` module (after dropping the append-only triggers), on
PostgreSQL with psycopg (after disabling the trigger).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.export import layout as L
from annotator.export.manifest import release_files
from annotator.export.validate import release_history_head
from annotator.store.chain import row_hash
from annotator.store.project import DB_NAME, Project
from annotator.store.schema import HistoryEntry

Tamper = Callable[..., None]


def tamper_with(location: str) -> Tamper:
    """Run SQL on the store directly, the append-only triggers out of the way."""

    def run(*statements: str) -> None:
        if location.startswith("postgresql"):
            import psycopg

            with psycopg.connect(location, autocommit=True) as conn:
                conn.execute("ALTER TABLE history DISABLE TRIGGER history_append_only")
                for statement in statements:
                    conn.execute(statement)  # type: ignore[arg-type]
                conn.execute("ALTER TABLE history ENABLE TRIGGER history_append_only")
        else:
            conn = sqlite3.connect(Path(location) / DB_NAME, isolation_level=None)
            conn.execute("DROP TRIGGER IF EXISTS history_no_update")
            conn.execute("DROP TRIGGER IF EXISTS history_no_delete")
            for statement in statements:
                conn.execute(statement)
            conn.close()

    return run


def rewrite_and_rehash(project: Project, tamper: Tamper, seq: int, after: Any) -> None:
    """Change row ``seq``'s ``after`` and recompute every hash from it on, the head too."""
    with project.read() as session:
        rows = list(session.scalars(select(HistoryEntry).order_by(HistoryEntry.seq)))
    rows[seq - 1].after = after
    statements, last = [], rows[seq - 2].row_hash or ""
    for row in rows[seq - 1:]:
        new = row_hash(last, row)
        statements.append(f"UPDATE history SET prev_hash = '{last}', row_hash = '{new}',"
                          f" after = '{json.dumps(row.after)}' WHERE seq = {row.seq}")
        last = new
    statements.append(f"UPDATE history_chain SET hash = '{last}'")
    tamper(*statements)


def _sha(data: bytes) -> bytes:
    return hashlib.sha256(data).hexdigest().encode()


def without_history_head(folder: Path) -> dict[str, bytes]:
    """Every release file's bytes with the history chain head left out: it differs between
    stores (ids and times differ). Replaced by as many x, and the checksums of the two files
    that state it redone, so every other value is still compared."""
    head = release_history_head(folder)
    assert head is not None and len(head) == 64
    files = {rel: (folder / rel).read_bytes() for rel in release_files(folder)}
    changed: dict[bytes, bytes] = {}
    for rel in (L.CARD_MD, L.CROISSANT_JSON):  # croissant.json lists the card's checksum
        data = files[rel].replace(head.encode(), b"x" * 64)
        for old, new in changed.items():
            data = data.replace(old, new)
        changed[_sha(files[rel])] = _sha(data)
        files[rel] = data
    for old, new in changed.items():
        files[L.MANIFEST] = files[L.MANIFEST].replace(old, new)
    return files
