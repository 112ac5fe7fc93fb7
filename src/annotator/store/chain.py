"""The history's hash chain: every row hashes its content and the hash of the row before it.

Rows join the chain when they are flushed, in the order the session was given them, right
after the chain head (the one row of ``history_chain``), which the writing transaction
holds until it commits: ``SELECT ... FOR UPDATE`` on PostgreSQL, while on SQLite the write
lock of ``BEGIN IMMEDIATE`` already serialises writers. So the order is the database's, never
a client's clock, and ``seq`` numbers it without gaps. Rows of an imported package join in
import order like any other.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import inspect, select, update
from sqlalchemy.orm import Session

from annotator.domain.json_tree import map_leaves
from annotator.store.schema import ChainHead, HistoryEntry, utcnow

GENESIS = "0" * 64  # the "previous hash" of the first row
HEAD_ID = 1


class HistoryContent(Protocol):
    """What a history row's hash covers (an ORM entry or a plain row of the table)."""

    id: uuid.UUID
    at: datetime
    actor: str
    action: str
    case_pk: uuid.UUID | None
    annotation_id: uuid.UUID | None
    key: str | None
    before: Any
    after: Any
    detail: Any


def _uuid(value: uuid.UUID | None) -> str | None:
    return None if value is None else str(value)


def _as_stored(value: Any) -> Any:
    """A JSON value as any back end reads it back: through ``json`` once (tuples become
    lists), and a whole float as an int, since SQLite's NUMERIC affinity stores the JSON text
    ``676.0`` as the integer 676."""
    return map_leaves(value, lambda v: int(v) if isinstance(v, float) and v.is_integer() else v)


def canonical(row: HistoryContent) -> bytes:
    """The row's content as canonical JSON: sorted keys, no spaces, UTF-8.

    JSON values are first normalised to what the store gives back (:func:`_as_stored`), so
    the hash of a row as written equals the hash of the row read back.
    """
    content = {
        "id": _uuid(row.id), "at": row.at.isoformat(), "actor": row.actor,
        "action": row.action, "case_pk": _uuid(row.case_pk),
        "annotation_id": _uuid(row.annotation_id), "key": row.key,
        "before": _as_stored(json.loads(json.dumps(row.before))),
        "after": _as_stored(json.loads(json.dumps(row.after))),
        "detail": _as_stored(json.loads(json.dumps(row.detail))),
    }
    return json.dumps(content, sort_keys=True, separators=(",", ":"),
                      ensure_ascii=False).encode("utf-8")


def row_hash(prev_hash: str, row: HistoryContent) -> str:
    """SHA-256 (hex) over the previous row's hash and this row's canonical content."""
    return hashlib.sha256(prev_hash.encode("ascii") + b"\n" + canonical(row)).hexdigest()


def naive_utc(at: datetime) -> datetime:
    """The stored form of a time: naive UTC, as both back ends return it."""
    return at if at.tzinfo is None else at.astimezone(UTC).replace(tzinfo=None)


def head(session: Session, *, lock: bool = False) -> tuple[int, str]:
    """The chain's last ``(seq, hash)``; ``lock`` holds it until the transaction ends."""
    query = select(ChainHead.seq, ChainHead.hash).where(ChainHead.id == HEAD_ID)
    found = session.execute(query.with_for_update() if lock else query).first()
    return (0, GENESIS) if found is None else (int(found[0]), str(found[1]))


def chain_new_entries(session: Session, _context: Any, _instances: Any) -> None:
    """Before a flush: give new history rows their place and hashes after the locked head."""
    new = [obj for obj in session.new if isinstance(obj, HistoryEntry)]
    if not new:
        return
    new.sort(key=lambda entry: inspect(entry).insert_order or 0)
    seq, last = head(session, lock=True)
    for entry in new:
        # Column defaults would only be filled in at insert: the hash needs them now.
        entry.id = entry.id or uuid.uuid4()
        entry.at = naive_utc(entry.at or utcnow())
        entry.detail = {} if entry.detail is None else entry.detail
        seq += 1
        entry.seq, entry.prev_hash = seq, last
        entry.row_hash = last = row_hash(last, entry)
    session.execute(update(ChainHead).where(ChainHead.id == HEAD_ID).values(seq=seq, hash=last))
