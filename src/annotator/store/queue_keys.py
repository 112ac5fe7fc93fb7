"""The review queue's key per case, kept by the writes: the queue's first page is a range read
of the ``queue_keys`` index, its heading the totals the database keeps from it (issue 27).

A case's key (group, top impact, open conflicts; see :class:`~annotator.store.schema.QueueKey`)
follows from its state, submitted labels, detection, decisions and draft (the release checks
decide ready or blocked). Every write session notes the cases whose rows of those kinds it
touches (flush hooks, like :mod:`annotator.store.counts`), and just before the commit, in the
same transaction, hands them to the *computer* the review services register
(:func:`set_computer`): it re-detects a stale detection and writes their keys. The store
cannot compute a key itself (the rules live in the review layer above it), so when no
computer is registered, or the connection may not read other raters' work (an annotator on a
walled PostgreSQL store, which would see only their own labels), the cases are marked
*stale* instead, through the ``SECURITY DEFINER`` function ``annotator_queue_stale`` on
PostgreSQL (migration ``0021_queue_key``); the queue's next read (a senior's) recomputes the
few stale keys before it pages. Writes past the ORM (the bench's clone, the migration) copy or
compute the keys themselves; ``repair`` compares the keys with a recomputation.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy import (
    Connection,
    delete,
    event,
    false,
    func,
    insert,
    inspect,
    literal,
    select,
    text,
    true,
    update,
)
from sqlalchemy import tuple_ as sql_tuple
from sqlalchemy.orm import Session, sessionmaker

from annotator.domain.states import CaseState
from annotator.store.bulk import chunks, upsert
from annotator.store.chain import hold_head
from annotator.store.db_roles import reads_others
from annotator.store.schema import (
    Adjudication,
    Annotation,
    Case,
    CaseImage,
    CaseRevision,
    DetectedItem,
    QueueKey,
    QueueTotal,
)

# (group, top impact, case id): the order of the queue and of a page's ``after``.
Position = tuple[int, int, str]
# A case's key as the computer finds it: (group, top impact, open conflicts); None: the case
# is not in the queue (not reviewed, or reviewed without a detection).
Key = tuple[int, int, int]
Computer = Callable[[Session, list[uuid.UUID]], None]

STALE_GROUP = 9  # a stale row's group until it is recomputed (never shown)
_TOUCHED = "queue_keys.touched"
_BUSY = "queue_keys.busy"
_computer: Computer | None = None
REVIEWED = tuple(s.value for s in CaseState if s is not CaseState.ANNOTATING)


def set_computer(computer: Computer | None) -> None:
    """Register what computes and writes the keys of some cases (the review services)."""
    global _computer
    _computer = computer


# -- reading ----------------------------------------------------------------------------------

def stale_cases(conn: Connection) -> list[uuid.UUID]:
    """The cases whose key a writer marked stale (read through the index)."""
    query = select(QueueKey.case_pk).where(QueueKey.stale == true())
    return list(conn.execute(query).scalars())


def totals(conn: Connection) -> dict[int, tuple[int, int]]:
    """Group -> (cases, open conflicts) over the fresh keys, as the database keeps them
    (``queue_totals``, one row per group: see migration ``0032_queue_totals``)."""
    query = select(QueueTotal.grp, QueueTotal.cases, QueueTotal.open_conflicts).where(
        QueueTotal.cases > 0)
    return {int(grp): (int(n), int(total)) for grp, n, total in conn.execute(query)}


def counted_totals(conn: Connection) -> dict[int, tuple[int, int]]:
    """:func:`totals` counted from every fresh key (``repair``): a grouped count of the index."""
    query = (select(QueueKey.grp, func.count(), func.coalesce(func.sum(QueueKey.open_conflicts), 0))
             .where(QueueKey.stale == false()).group_by(QueueKey.grp))
    return {int(grp): (int(n), int(total)) for grp, n, total in conn.execute(query)}


def recount_totals(conn: Connection) -> None:
    """Count :func:`totals` again from the keys (``repair``, after a drift)."""
    hold_head(conn)
    if conn.dialect.name == "postgresql":  # app roles hold no write grant on the totals
        conn.execute(text("SELECT annotator_queue_recount()"))
        return
    conn.execute(delete(QueueTotal))
    conn.execute(insert(QueueTotal).from_select(
        ["grp", "cases", "open_conflicts"],
        select(QueueKey.grp, func.count(), func.coalesce(func.sum(QueueKey.open_conflicts), 0))
        .where(QueueKey.stale == false()).group_by(QueueKey.grp)))


def page(conn: Connection, after: Position | None, limit: int | None
         ) -> list[tuple[Position, uuid.UUID]]:
    """The fresh keys after ``after`` in queue order, at most ``limit``: a keyset read."""
    order = (QueueKey.grp, QueueKey.impact, QueueKey.case_id)
    query = select(*order, QueueKey.case_pk).where(QueueKey.stale == false())
    if after is not None:
        query = query.where(sql_tuple(*order) > sql_tuple(*after))
    query = query.order_by(*order)
    if limit is not None:
        query = query.limit(limit)
    return [((grp, impact, case_id), pk) for grp, impact, case_id, pk in conn.execute(query)]


def stored(conn: Connection) -> dict[uuid.UUID, tuple[Key, bool]]:
    """Every stored key (``repair``): case -> ((group, impact, open), stale)."""
    query = select(QueueKey.case_pk, QueueKey.grp, QueueKey.impact, QueueKey.open_conflicts,
                   QueueKey.stale)
    return {pk: ((grp, impact, n), bool(stale))
            for pk, grp, impact, n, stale in conn.execute(query)}


# -- writing ----------------------------------------------------------------------------------

def write(conn: Connection, keys: Mapping[uuid.UUID, tuple[str, Key | None]]) -> None:
    """Store ``case -> (case id, key)``; a ``None`` key takes the case out of the queue.

    An upsert, not a delete and insert: two writers of one case's key (whose commits the
    history chain's lock orders, see :func:`~annotator.store.chain.hold_head`) never collide
    on its primary key."""
    if keys:
        hold_head(conn)
    for chunk in chunks(keys):
        gone = [pk for pk in chunk if keys[pk][1] is None]
        if gone:
            conn.execute(delete(QueueKey).where(QueueKey.case_pk.in_(gone)))
        rows = [{"case_pk": pk, "case_id": keys[pk][0], "grp": key[0], "impact": key[1],
                 "open_conflicts": key[2], "stale": False}
                for pk in chunk if (key := keys[pk][1]) is not None]
        if rows:
            statement = upsert(conn, QueueKey)
            conn.execute(statement.on_conflict_do_update(
                index_elements=[QueueKey.case_pk],
                set_={c: statement.excluded[c] for c in
                      ("case_id", "grp", "impact", "open_conflicts", "stale")}), rows)


def mark_stale(conn: Connection, cases: Iterable[uuid.UUID]) -> None:
    """Mark the keys of ``cases`` stale: existing rows, and a new row for a reviewed case
    without one (a case back in annotating is left to the recomputation to drop)."""
    ids = sorted(set(cases))
    if not ids:
        return
    hold_head(conn)
    if conn.dialect.name == "postgresql":  # app roles hold no write grant on the table
        conn.execute(text("SELECT annotator_queue_stale(CAST(:ids AS uuid[]))"),
                     {"ids": [str(pk) for pk in ids]})
        return
    for chunk in chunks(ids):
        conn.execute(update(QueueKey)
                     .where(QueueKey.case_pk.in_(chunk)).values(stale=True))
        known = select(QueueKey.case_pk).where(QueueKey.case_pk.in_(chunk))
        conn.execute(insert(QueueKey).from_select(
            ["case_pk", "case_id", "grp", "impact", "open_conflicts", "stale"],
            select(Case.id, Case.case_id, literal(STALE_GROUP), literal(0), literal(0),
                   literal(True))
            .where(Case.id.in_(chunk), Case.state.in_(REVIEWED), Case.id.not_in(known))))


# -- the session hooks ------------------------------------------------------------------------

def keep_queue_keys(factory: sessionmaker[Session]) -> None:
    """Keep the keys on every write session the factory makes (before the counters' hook,
    so what the computer flushes is counted too)."""
    event.listen(factory, "before_flush", _before_flush)
    event.listen(factory, "before_commit", _before_commit)
    event.listen(factory, "after_rollback", _after_rollback)


# Columns whose change can move a key; other edits (an annotator's unsubmitted labels) don't.
_WATCHED: dict[type, tuple[str, ...]] = {
    Case: ("state", "current_revision_id", "case_id"),
    Annotation: ("state", "submitted", "withdrawn_at", "case_pk"),
    DetectedItem: ("superseded", "case_pk"),
    Adjudication: ("superseded", "value", "case_pk"),
    CaseRevision: ("case_pk",),
    CaseImage: ("revision_id", "sha256", "draft_path"),
}


def _case_of(obj: Any) -> Any:
    if isinstance(obj, Case):
        return obj.id
    if isinstance(obj, CaseImage):
        return ("revision", obj.revision_id)
    return getattr(obj, "case_pk", None)


def _before_flush(session: Session, _context: Any, _instances: Any) -> None:
    if session.info.get(_BUSY):
        return  # the computer's own writes (a re-detection) touch only the cases it computes
    touched: set[Any] = session.info.setdefault(_TOUCHED, set())
    for objects, check in ((session.new, False), (session.deleted, False), (session.dirty, True)):
        for obj in objects:
            kind = next((k for k in _WATCHED if isinstance(obj, k)), None)
            if kind is None:
                continue
            if check:
                attrs = inspect(obj).attrs
                if not any(attrs[c].history.has_changes() for c in _WATCHED[kind]
                           if c in attrs):
                    continue
            found = _case_of(obj)
            if found is not None and found != ("revision", None):
                touched.add(found)


def _after_rollback(session: Session) -> None:
    # A savepoint rolled back may leave cases noted that did not change: computing their
    # keys again costs a little and changes nothing, so only a whole rollback forgets them.
    if session.get_nested_transaction() is None:
        session.info.pop(_TOUCHED, None)


@contextmanager
def computing(session: Session) -> Iterator[None]:
    """Inside: the session's writes are the computer's own (their cases are being computed)."""
    session.info[_BUSY] = True
    try:
        yield
        session.flush()
    finally:
        session.info.pop(_BUSY, None)


def _before_commit(session: Session) -> None:
    session.flush()  # the commit's own flush comes after this hook: note its rows first
    touched = session.info.pop(_TOUCHED, None)
    if not touched:
        return
    conn = session.connection()
    revisions = [t[1] for t in touched if isinstance(t, tuple)]
    cases = {t for t in touched if not isinstance(t, tuple)}
    for chunk in chunks(revisions):
        cases.update(conn.execute(select(CaseRevision.case_pk).where(
            CaseRevision.id.in_(chunk))).scalars())
    cases.discard(None)
    if not cases:
        return
    if _computer is None or not reads_others(session):
        mark_stale(conn, cases)
        return
    with computing(session):
        _computer(session, sorted(cases))
