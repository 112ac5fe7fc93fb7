"""Cases whose agreement statistics are stale, marked by the writes themselves (issue 27).

``agreement_stale`` holds one row per marked case (``case_pk`` -> ``token``). Every write
session records which cases its flushes touched in a way that changes what the case's
statistics are computed from (the case's id, state, reason or current draft; a new
revision; an annotation's rater, state, submitted labels and time, withdrawal, repeat link
or case) and marks them just before the commit, in the same transaction, with one token
for the whole commit. So ``services.agreement.point_estimates`` reads the stored sum and
the marked cases, never every case. A label draft saved but not submitted marks nothing:
the statistics see submitted labels only.

Marking too much costs one case recomputed; marking too little would leave a wrong sum, so
a rolled-back savepoint keeps its marks. A reader clears a mark only if its token is still
the one it read (:func:`clear`): a case marked again meanwhile stays marked.

Writers that bypass the ORM (the bench's clone, a migration) call :func:`mark` themselves.
On PostgreSQL the app roles mark through ``annotator_agreement_stale`` (SECURITY DEFINER,
migration ``0020_agreement_stale``): an annotator marks a case without seeing any mark;
seniors read the marks and curators clear them.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Connection, bindparam, delete, event, inspect, select, text
from sqlalchemy.orm import Session, sessionmaker

from annotator.store.bulk import chunks, upsert
from annotator.store.schema import AgreementStale, Annotation, Case, CaseRevision

_CHUNK = 5_000
_MARKED = "agreement_stale.cases"  # case ids this transaction has touched so far
# Columns whose change changes a case's statistics (or the report's basis); others do not.
_WATCHED: dict[type, tuple[str, ...]] = {
    Case: ("case_id", "state", "state_reason", "current_revision_id"),
    CaseRevision: ("case_pk", "content_hash"),
    Annotation: ("kind", "rater_id", "state", "submitted", "submitted_at", "withdrawn_at",
                 "repeat_of", "case_pk"),
}


def mark(conn: Connection, case_ids: Iterable[uuid.UUID]) -> None:
    """Mark ``case_ids`` stale (in sorted order: two writers never wait in opposite orders)."""
    ids = sorted(set(case_ids), key=str)
    token = uuid.uuid4()
    for chunk in chunks(ids, _CHUNK):
        if conn.dialect.name == "postgresql":
            conn.execute(text("SELECT annotator_agreement_stale(CAST(:ids AS uuid[]),"
                              " CAST(:token AS uuid))"),
                         {"ids": [str(i) for i in chunk], "token": str(token)})
            continue
        insert = upsert(conn, AgreementStale)
        conn.execute(insert.on_conflict_do_update(
            index_elements=[AgreementStale.case_pk], set_={"token": insert.excluded.token}),
            [{"case_pk": i, "token": token} for i in chunk])


def marked(conn: Connection, case_ids: Iterable[uuid.UUID] | None = None,
           limit: int | None = None) -> dict[uuid.UUID, uuid.UUID]:
    """The marks (of ``case_ids``, else all, or the first ``limit`` by case id): case id ->
    token."""
    query = select(AgreementStale.case_pk, AgreementStale.token)
    if case_ids is None:
        if limit is not None:
            query = query.order_by(AgreementStale.case_pk).limit(limit)
        return {pk: token for pk, token in conn.execute(query)}
    out: dict[uuid.UUID, uuid.UUID] = {}
    for chunk in chunks(case_ids, _CHUNK):
        out.update((pk, token) for pk, token in conn.execute(
            query.where(AgreementStale.case_pk.in_(chunk))))
    return out


def clear(conn: Connection, seen: dict[uuid.UUID, uuid.UUID]) -> None:
    """Clear the marks in ``seen`` that still hold the token read."""
    if not seen:
        return
    conn.execute(delete(AgreementStale).where(AgreementStale.case_pk == bindparam("pk"),
                                              AgreementStale.token == bindparam("tok")),
                 [{"pk": pk, "tok": token} for pk, token in seen.items()])


# -- the session hooks ------------------------------------------------------------------------

def keep_marks(factory: sessionmaker[Session]) -> None:
    """Mark the cases every write session of the factory touches."""
    event.listen(factory, "after_flush", _after_flush)
    event.listen(factory, "before_commit", _before_commit)
    event.listen(factory, "after_rollback", _after_rollback)


def _cases(obj: Any, *, check: bool) -> set[uuid.UUID]:
    """The case ids ``obj`` changes, before and after (``check``: only if a watched column
    changed)."""
    kind = next((k for k in _WATCHED if isinstance(obj, k)), None)
    if kind is None:
        return set()
    state = inspect(obj)
    if kind is Annotation and state.dict.get("repeat_of") is not None and not (
            state.attrs["repeat_of"].history.deleted):
        return set()  # a hidden repeat, and still one: it counts in no statistic
    histories = [state.attrs[c].history for c in _WATCHED[kind]]
    if check and not any(h.has_changes() for h in histories):
        return set()
    column = "id" if kind is Case else "case_pk"
    now = state.dict.get(column)  # never loads: a deleted row cannot be read back
    if now is None and kind is Case and state.identity:
        now = state.identity[0]
    return {pk for pk in (*state.attrs[column].history.sum(), now) if pk is not None}


def _after_flush(session: Session, _context: Any) -> None:
    # The lists still hold what this flush wrote; new rows have their ids by now.
    found: set[uuid.UUID] = set()
    for objects, check in ((session.new, False), (session.deleted, False),
                           (session.dirty, True)):
        for obj in objects:
            found |= _cases(obj, check=check)
    if found:
        session.info.setdefault(_MARKED, set()).update(found)


def _before_commit(session: Session) -> None:
    session.flush()  # the commit's own flush comes after this hook: take its cases first
    found = session.info.pop(_MARKED, None)
    if found:
        mark(session.connection(), found)


def _after_rollback(session: Session) -> None:
    """The whole transaction rolled back: nothing to mark. A savepoint keeps its marks."""
    if session.get_nested_transaction() is None:
        session.info.pop(_MARKED, None)
