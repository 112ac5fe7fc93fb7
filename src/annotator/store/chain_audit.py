"""Walking the history's hash chain: the first row changed, removed, inserted or reordered.

What a walk cannot see: someone who rewrites a row and recomputes every hash after it (and
the chain head) leaves a chain that checks. A head hash published before the rewrite (in a
release) no longer appears in it: :func:`contains` answers that.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from sqlalchemy import Text, cast, select
from sqlalchemy.orm import Session

from annotator.store.chain import GENESIS, head, row_hash
from annotator.store.schema import HistoryEntry

Kind = Literal["changed", "removed", "inserted", "reordered", "cut"]


@dataclass(frozen=True)
class ChainProblem:
    kind: Kind
    seq: int | None  # where the walk stopped (None: a row outside the chain)
    row_id: str | None
    message: str


@dataclass(frozen=True)
class ChainReport:
    rows: int
    head_seq: int
    head_hash: str
    problem: ChainProblem | None

    @property
    def intact(self) -> bool:
        return self.problem is None

    def as_json(self) -> dict[str, Any]:
        problem = self.problem
        return {"intact": self.intact, "rows": self.rows,
                "head": {"seq": self.head_seq, "hash": self.head_hash},
                "problem": None if problem is None else {
                    "kind": problem.kind, "seq": problem.seq, "id": problem.row_id,
                    "message": problem.message}}


@dataclass
class ChainRow:
    """One history row as the walk reads it; ``readable`` is False when a value written
    behind the app's back does not even parse (an SQLite column holds any text)."""

    id: Any
    at: Any
    actor: str
    action: str
    case_pk: Any
    annotation_id: Any
    key: str | None
    before: Any
    after: Any
    detail: Any
    seq: int | None
    prev_hash: str | None
    row_hash: str | None
    readable: bool = True


_PARSED = ("id", "at", "case_pk", "annotation_id", "before", "after", "detail")
_PARSERS: dict[str, Any] = {"id": uuid.UUID, "case_pk": uuid.UUID, "annotation_id": uuid.UUID,
                            "at": datetime.fromisoformat, "before": json.loads,
                            "after": json.loads, "detail": json.loads}


def _rows(session: Session) -> list[ChainRow]:
    """Every history row in chain order (rows without a place last).

    PostgreSQL's typed columns hold only valid values; SQLite's are read as text and parsed
    here, so a malformed value is a changed row, not a traceback.
    """
    table = HistoryEntry.__table__
    sqlite = session.get_bind().dialect.name == "sqlite"
    columns = [cast(c, Text).label(c.name) if sqlite and c.name in _PARSED else c
               for c in table.columns]
    query = select(*columns).order_by(table.c.seq.nulls_last())
    rows = []
    for found in session.execute(query).mappings():
        values = dict(found)
        readable = values["at"] is not None
        if sqlite:
            for name in _PARSED:
                try:
                    if values[name] is not None:
                        values[name] = _PARSERS[name](values[name])
                except (ValueError, TypeError):
                    readable = False
        rows.append(ChainRow(**values, readable=readable))
    return rows


def _describe(row: ChainRow) -> str:
    at = row.at.strftime("%Y-%m-%d %H:%M:%S") if isinstance(row.at, datetime) else row.at
    return f"row {row.seq} ({row.action} by {row.actor} at {at}, id {row.id})"


def _problem(kind: Kind, row: ChainRow, message: str) -> ChainProblem:
    return ChainProblem(kind, row.seq, str(row.id), message)


def _content_checks(row: ChainRow) -> bool:
    return (row.readable and row.prev_hash is not None
            and row.row_hash == row_hash(row.prev_hash, row))


def _broken_at(rows: list[ChainRow], i: int, expected_prev: str,
               position: dict[str, int]) -> ChainProblem:
    """Name what happened at ``rows[i]``, the first row whose hash or link does not check."""
    row = rows[i]
    following = rows[i + 1] if i + 1 < len(rows) else None
    if not _content_checks(row):
        if following is not None and following.prev_hash == expected_prev:
            return _problem("inserted", row, f"{_describe(row)} was inserted: the next row"
                            " follows the row before it")
        return _problem("changed", row, f"{_describe(row)} was changed: its content no longer"
                        " matches its hash")
    linked = position.get(row.prev_hash or "")
    if linked is not None and linked > i:
        return _problem("reordered", row, f"{_describe(row)} is out of order: it was written"
                        f" after row {rows[linked].seq}")
    if linked is not None:
        between = rows[linked + 1]
        return _problem("inserted", between, f"{_describe(between)} was inserted: row"
                        f" {row.seq} follows row {rows[linked].seq}")
    previous_seq = rows[i - 1].seq if i else 0
    if row.seq is not None and previous_seq is not None and row.seq > previous_seq + 1:
        gone = (f"row {previous_seq + 1} was" if row.seq == previous_seq + 2
                else f"rows {previous_seq + 1}-{row.seq - 1} were")
        return _problem("removed", row, f"{gone} removed: {_describe(row)} no longer follows"
                        " the row it was written after")
    if i == 0:
        return _problem("changed", row, f"{_describe(row)} does not follow the chain's start")
    # Seq numbers are gap-free: the row before is there but its hash was recomputed.
    return _problem("changed", rows[i - 1], f"{_describe(rows[i - 1])} was changed and its hash"
                    f" recomputed: row {row.seq} no longer follows it")


def walk(session: Session) -> ChainReport:
    """Check every history row against its hash and the row before it, in the chain's order."""
    rows = _rows(session)
    head_seq, head_hash = head(session)
    outside = [row for row in rows if row.seq is None]
    chained = [row for row in rows if row.seq is not None]

    def report(problem: ChainProblem | None) -> ChainReport:
        return ChainReport(len(rows), head_seq, head_hash, problem)

    position = {row.row_hash: i for i, row in enumerate(chained) if row.row_hash}
    expected = GENESIS
    for i, row in enumerate(chained):
        if row.prev_hash != expected or not _content_checks(row):
            return report(_broken_at(chained, i, expected, position))
        expected = str(row.row_hash)
    if outside:
        return report(ChainProblem("inserted", None, str(outside[0].id),
                                   f"history row {outside[0].id} ({outside[0].action} by"
                                   f" {outside[0].actor}) was inserted outside the chain"))
    last_seq = int(chained[-1].seq or 0) if chained else 0
    if last_seq < head_seq:
        return report(ChainProblem("cut", last_seq, None, f"the chain ends at row {last_seq}"
                                   f" but its head is row {head_seq}: the rows after"
                                   f" {last_seq} were removed"))
    if last_seq > head_seq:
        extra = next(row for row in chained if int(row.seq or 0) > head_seq)
        return report(_problem("inserted", extra, f"{_describe(extra)} was inserted after"
                               f" the chain's head (row {head_seq})"))
    if expected != head_hash:
        return report(_problem("changed", chained[-1], f"{_describe(chained[-1])} does not"
                               " match the chain's head"))
    return report(None)


def contains(session: Session, published: str) -> bool:
    """True when a history row carries the hash ``published`` (a release's head)."""
    found = session.scalar(select(HistoryEntry.seq).where(HistoryEntry.row_hash == published))
    return found is not None or published == GENESIS
