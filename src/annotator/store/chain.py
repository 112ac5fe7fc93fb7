"""The history's hash chain: every row hashes its content and the hash of the row before it.

Rows join the chain when they are flushed, in the order the session was given them, right
after the chain head (the one row of ``history_chain``), which the writing transaction
holds until it commits: ``SELECT ... FOR UPDATE`` on PostgreSQL, while on SQLite the write
lock of ``BEGIN IMMEDIATE`` already serialises writers. So the order is the database's, never
a client's clock, and ``seq`` numbers it without gaps. Rows of an imported package join in
import order like any other.

On PostgreSQL a flush of a few rows (an edit) takes and advances the head in one statement
(:func:`_advance_in_one`): the server computes the new hashes from the head it locks with the
same SHA-256 over the canonical content the client sends, keeps the old hash in
``prev_hash`` and returns it, and the client checks that its own hashes end at the head the
server wrote. That is one round trip instead of two on every edit (issue 23's edit cost).
"""

from __future__ import annotations

import hashlib
import json
import uuid
from datetime import UTC, datetime
from typing import Any, Protocol

from sqlalchemy import Connection, LargeBinary, bindparam, inspect, select, text, update
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


def hold_head(conn: Connection) -> None:
    """PostgreSQL: hold the chain's head until the transaction ends, as every recorded edit
    does. A writer of the rows the database keeps totals of (``queue_keys``,
    ``sme_task_keys``) takes it first, so that one which records no history (a senior's read
    healing stale keys) never takes the totals' rows in another order than an edit's commit
    and deadlocks with it. SQLite's writers are serialised by ``BEGIN IMMEDIATE`` already."""
    if conn.dialect.name == "postgresql":
        conn.execute(select(ChainHead.id).where(ChainHead.id == HEAD_ID).with_for_update())


def chain_new_entries(session: Session, _context: Any, _instances: Any) -> None:
    """Before a flush: give new history rows their place and hashes after the locked head."""
    new = [obj for obj in session.new if isinstance(obj, HistoryEntry)]
    if not new:
        return
    new.sort(key=lambda entry: inspect(entry).insert_order or 0)
    for entry in new:
        # Column defaults would only be filled in at insert: the hash needs them now.
        entry.id = entry.id or uuid.uuid4()
        entry.at = naive_utc(entry.at or utcnow())
        entry.detail = {} if entry.detail is None else entry.detail
    advanced = _advance_in_one(session, new)
    if advanced is not None:
        _place(new, *advanced)
        return
    seq, last = head(session, lock=True)
    seq, last = _place(new, seq, last)
    session.execute(update(ChainHead).where(ChainHead.id == HEAD_ID)
                    .values(seq=seq, hash=last, prev_hash=None))


def _place(entries: list[Any], seq: int, last: str) -> tuple[int, str]:
    """Number and hash ``entries`` after the row ``(seq, last)``; the new last ``(seq, hash)``."""
    for entry in entries:
        seq += 1
        entry.seq, entry.prev_hash = seq, last
        entry.row_hash = last = row_hash(last, entry)
    return seq, last


ONE_STATEMENT_ROWS = 16  # more rows in one flush (an import) lock and update the head apart


def _advance_in_one(session: Session, entries: list[Any]) -> tuple[int, str] | None:
    """PostgreSQL: lock and advance the head in one ``UPDATE ... RETURNING``; the head's
    ``(seq, hash)`` before it, or None where the two-statement way is taken (SQLite, whose
    ``BEGIN IMMEDIATE`` already holds the lock and whose statements cost no round trip; a
    flush of many rows; a store without a head row yet)."""
    if len(entries) > ONE_STATEMENT_ROWS or session.get_bind().dialect.name != "postgresql":
        return None
    digest = "hash"
    params: dict[str, Any] = {"n": len(entries), "id": HEAD_ID}
    binds = []
    for i, entry in enumerate(entries):
        # row_hash, in SQL: sha256(previous hash, a line break, the canonical content).
        digest = (f"encode(sha256(convert_to({digest}, 'UTF8') || '\\x0a'::bytea"
                  f" || :c{i}), 'hex')")
        params[f"c{i}"] = canonical(entry)
        binds.append(bindparam(f"c{i}", type_=LargeBinary))
    found = session.execute(
        text(f"UPDATE history_chain SET prev_hash = hash, seq = seq + :n, hash = {digest}"
             " WHERE id = :id RETURNING seq, prev_hash, hash").bindparams(*binds),
        params,
    ).first()
    if found is None:
        return None
    seq, before, after = int(found[0]), str(found[1]), str(found[2])
    last = before
    for entry in entries:
        last = row_hash(last, entry)
    if last != after:  # the two SHA-256s disagree: never write a chain that would not verify
        raise RuntimeError("the history chain's head hash computed by the server differs from"
                           " the client's; nothing was saved")
    return seq - len(entries), before
