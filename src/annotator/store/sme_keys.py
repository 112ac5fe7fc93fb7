"""Each SME task's standing, kept by the writes: the desk's SME progress and open conflicts are
the totals the database keeps from ``sme_task_keys``, not a reading of every verdict
(issue 27).

A task's key (state, open conflicts; see :class:`~annotator.store.schema.SmeTaskKey`) follows
from its submitted verdicts, the seniors' decisions on it and its benchmark's rules. As
:mod:`annotator.store.queue_keys` does for cases, every write session notes the tasks whose
rows of those kinds it touches, and just before the commit, in the same transaction, hands
them to the *computer* the SME services register (:func:`set_computer`). The store cannot
compute a key itself (the rules live in the SME layer above it), so when no computer is
registered, or the connection may not read other reviewers' verdicts (an SME on a walled
PostgreSQL store), the tasks are marked *stale* instead, through the ``SECURITY DEFINER``
function ``annotator_sme_stale`` on PostgreSQL (migration ``0025_sme_task_keys``); the next
senior read recomputes the few stale keys before it counts.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from sqlalchemy import (
    Connection,
    case,
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
from sqlalchemy.orm import Session, sessionmaker

from annotator.store.bulk import chunks, upsert
from annotator.store.chain import hold_head
from annotator.store.db_roles import reads_others
from annotator.store.schema import (
    SmeAdjudication,
    SmeBenchmark,
    SmeTask,
    SmeTaskKey,
    SmeTotal,
    SmeVerdict,
)

# A task's key as the computer finds it: (benchmark, state, open conflicts); None: the task
# is gone.
Key = tuple[uuid.UUID, str, int]
Computer = Callable[[Session, list[uuid.UUID]], None]

STALE_STATE = "unsubmitted"  # a stale row's state until it is recomputed (never counted)
_TOUCHED = "sme_keys.touched"
_BUSY = "sme_keys.busy"
_computer: Computer | None = None


def set_computer(computer: Computer | None) -> None:
    """Register what computes and writes the keys of some tasks (the SME services)."""
    global _computer
    _computer = computer


# -- reading ----------------------------------------------------------------------------------

def stale_tasks(conn: Connection) -> list[uuid.UUID]:
    """The tasks whose key a writer marked stale (read through the index)."""
    return list(conn.execute(select(SmeTaskKey.task_id).where(SmeTaskKey.stale == true()))
                .scalars())


def standing(conn: Connection) -> dict[uuid.UUID, Counter[str]]:
    """Benchmark -> tasks per state, over the fresh keys, as the database keeps them
    (``sme_totals``: see migration ``0033_sme_totals``)."""
    out: dict[uuid.UUID, Counter[str]] = {}
    for bench, state, n in conn.execute(
        select(SmeTotal.benchmark_id, SmeTotal.state, SmeTotal.tasks).where(SmeTotal.tasks > 0)
    ):
        out.setdefault(bench, Counter())[state] += int(n)
    return out


def conflict_totals(conn: Connection) -> tuple[int, int]:
    """(tasks with an open conflict, open conflicts) over the fresh keys (``sme_totals``)."""
    tasks, total = conn.execute(
        select(func.coalesce(func.sum(SmeTotal.conflicted), 0),
               func.coalesce(func.sum(SmeTotal.open_conflicts), 0))
    ).one()
    return int(tasks), int(total)


Totals = dict[tuple[uuid.UUID, str], tuple[int, int, int]]


def totals(conn: Connection) -> Totals:
    """(benchmark, state) -> (tasks, tasks with an open conflict, open conflicts), as kept."""
    query = select(SmeTotal.benchmark_id, SmeTotal.state, SmeTotal.tasks, SmeTotal.conflicted,
                   SmeTotal.open_conflicts).where(SmeTotal.tasks > 0)
    return {(b, s): (int(n), int(c), int(o)) for b, s, n, c, o in conn.execute(query)}


def counted_totals(conn: Connection) -> Totals:
    """:func:`totals` counted from every fresh key (``repair``): a grouped count of the index."""
    conflicted = func.sum(case((SmeTaskKey.open_conflicts > 0, 1), else_=0))
    query = (select(SmeTaskKey.benchmark_id, SmeTaskKey.state, func.count(), conflicted,
                    func.coalesce(func.sum(SmeTaskKey.open_conflicts), 0))
             .where(SmeTaskKey.stale == false())
             .group_by(SmeTaskKey.benchmark_id, SmeTaskKey.state))
    return {(b, s): (int(n), int(c), int(o)) for b, s, n, c, o in conn.execute(query)}


def recount_totals(conn: Connection) -> None:
    """Count :func:`totals` again from the keys (``repair``, after a drift)."""
    hold_head(conn)
    if conn.dialect.name == "postgresql":  # app roles hold no write grant on the totals
        conn.execute(text("SELECT annotator_sme_recount()"))
        return
    conn.execute(delete(SmeTotal))
    conflicted = func.sum(case((SmeTaskKey.open_conflicts > 0, 1), else_=0))
    conn.execute(insert(SmeTotal).from_select(
        ["benchmark_id", "state", "tasks", "conflicted", "open_conflicts"],
        select(SmeTaskKey.benchmark_id, SmeTaskKey.state, func.count(), conflicted,
               func.coalesce(func.sum(SmeTaskKey.open_conflicts), 0))
        .where(SmeTaskKey.stale == false())
        .group_by(SmeTaskKey.benchmark_id, SmeTaskKey.state)))


def stored(conn: Connection) -> dict[uuid.UUID, tuple[Key, bool]]:
    """Every stored key (``repair``): task -> ((benchmark, state, open), stale)."""
    query = select(SmeTaskKey.task_id, SmeTaskKey.benchmark_id, SmeTaskKey.state,
                   SmeTaskKey.open_conflicts, SmeTaskKey.stale)
    return {task: ((bench, state, n), bool(stale))
            for task, bench, state, n, stale in conn.execute(query)}


# -- writing ----------------------------------------------------------------------------------

def write(conn: Connection, keys: Mapping[uuid.UUID, Key | None]) -> None:
    """Store ``task -> key``; a ``None`` key removes the task's row (the task is gone).

    An upsert, not a delete and insert: two writers of one task's key never collide on its
    primary key."""
    if keys:
        hold_head(conn)  # the totals' rows follow (see store.chain.hold_head)
    for chunk in chunks(keys):
        gone = [task for task in chunk if keys[task] is None]
        if gone:
            conn.execute(delete(SmeTaskKey).where(SmeTaskKey.task_id.in_(gone)))
        rows = [{"task_id": task, "benchmark_id": key[0], "state": key[1],
                 "open_conflicts": key[2], "stale": False}
                for task in chunk if (key := keys[task]) is not None]
        if rows:
            statement = upsert(conn, SmeTaskKey)
            conn.execute(statement.on_conflict_do_update(
                index_elements=[SmeTaskKey.task_id],
                set_={c: statement.excluded[c]
                      for c in ("benchmark_id", "state", "open_conflicts", "stale")}), rows)


def mark_stale(conn: Connection, tasks: Iterable[uuid.UUID]) -> None:
    """Mark the keys of ``tasks`` stale: existing rows, and a new row for a task without one."""
    ids = sorted(set(tasks))
    if not ids:
        return
    hold_head(conn)
    if conn.dialect.name == "postgresql":  # app roles hold no write grant on the table
        conn.execute(text("SELECT annotator_sme_stale(CAST(:ids AS uuid[]))"),
                     {"ids": [str(task) for task in ids]})
        return
    for chunk in chunks(ids):
        conn.execute(update(SmeTaskKey).where(SmeTaskKey.task_id.in_(chunk)).values(stale=True))
        known = select(SmeTaskKey.task_id).where(SmeTaskKey.task_id.in_(chunk))
        conn.execute(insert(SmeTaskKey).from_select(
            ["task_id", "benchmark_id", "state", "open_conflicts", "stale"],
            select(SmeTask.id, SmeTask.benchmark_id, literal(STALE_STATE), literal(0),
                   literal(True))
            .where(SmeTask.id.in_(chunk), SmeTask.id.not_in(known))))


# -- the session hooks ------------------------------------------------------------------------

def keep_sme_keys(factory: sessionmaker[Session]) -> None:
    """Keep the keys on every write session the factory makes."""
    event.listen(factory, "before_flush", _before_flush)
    event.listen(factory, "before_commit", _before_commit)
    event.listen(factory, "after_rollback", _after_rollback)


# Columns whose change can move a key; an SME's unsubmitted edits don't.
_WATCHED: dict[type, tuple[str, ...]] = {
    SmeVerdict: ("state", "submitted", "withdrawn_at", "task_id", "repeat_of", "rater_id"),
    SmeAdjudication: ("superseded", "value", "key", "task_id"),
    SmeTask: ("benchmark_id",),
    SmeBenchmark: ("content", "version", "evaluator_type"),
}


def _noted(obj: Any) -> Any:
    if isinstance(obj, SmeTask):
        return obj.id
    if isinstance(obj, SmeBenchmark):
        return ("benchmark", obj.id)
    return getattr(obj, "task_id", None)


def _before_flush(session: Session, _context: Any, _instances: Any) -> None:
    if session.info.get(_BUSY):
        return
    touched: set[Any] | None = session.info.get(_TOUCHED)
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
            found = _noted(obj)
            if found is not None and found != ("benchmark", None):
                if touched is None:
                    touched = session.info.setdefault(_TOUCHED, set())
                touched.add(found)


def _after_rollback(session: Session) -> None:
    # As queue_keys: only a whole rollback forgets the noted tasks (recomputing one that did
    # not change costs a little and changes nothing).
    if session.get_nested_transaction() is None:
        session.info.pop(_TOUCHED, None)


@contextmanager
def computing(session: Session) -> Iterator[None]:
    """Inside: the session's writes are the computer's own."""
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
    benchmarks = [t[1] for t in touched if isinstance(t, tuple)]
    tasks = {t for t in touched if not isinstance(t, tuple)}
    for chunk in chunks(benchmarks):
        tasks.update(conn.execute(select(SmeTask.id).where(SmeTask.benchmark_id.in_(chunk)))
                     .scalars())
    tasks.discard(None)
    if not tasks:
        return
    if _computer is None or not reads_others(session):
        mark_stale(conn, tasks)
        return
    with computing(session):
        _computer(session, sorted(tasks))
