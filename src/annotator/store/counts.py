"""Project counters kept by the writes: ``status`` and the desk read a few rows, not every case.

``project_counts`` holds one row per counted figure (``key`` -> ``n``). Every write
transaction keeps it exact: before a flush the counted rows it touches (cases, their current
revision and images, rated work) are measured as they stand in the store, after the flush
they are measured again, and the difference is added to the counters just before the
commit, in the same transaction, in sorted key order (two writers never wait on each other's
counters in opposite orders, so they cannot deadlock on them, and a counter row stays locked
only for the commit itself). A savepoint rolled back takes its differences with it.

Writers that bypass the ORM (the bench's clone, a migration) call :func:`recount` and
:func:`apply` themselves; ``repair`` compares the counters with a full recount
(:func:`drift`) and adds the difference.

Keys (uuids as 32 hex digits):

- ``cases:<state>`` cases in each state; ``exams`` the exams of every case's current draft;
  ``images:<media type>`` their images; ``needs_fix`` open cases whose draft has problems;
- ``work:<kind>:<state>`` rated work not withdrawn (hidden repeats never count);
- ``rater:<user id>:<state>`` the same per annotator, case work only;
- ``day:<YYYY-MM-DD>`` case submissions by the day they were submitted;
- ``active:<user id>:<seconds>`` an annotator's submitted cases by their measured active time
  (the ``active_seconds`` label, to the nearest 6 seconds: the desk shows tenths of a
  minute): the desk's median time per case is read from these rows, about a hundred per
  annotator, not from every submitted annotation's labels;
- ``active:~stamp`` changes whenever an ``active:`` counter does (see :func:`apply`): a
  process keeps the medians it last computed and reads the rows again only when the stamp
  moved (302 annotators at the bench's 100,000 cases: 33,000 rows).

On PostgreSQL every app role reads the project-wide counters, seniors the per-rater,
per-day and active-time ones too (row-level security, migration ``0024_active_time``); they change
them only through ``annotator_count_add`` (migration ``0018_counts``).
"""

from __future__ import annotations

import secrets
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import date, datetime
from math import floor
from typing import Any

from sqlalchemy import Connection, and_, event, func, inspect, or_, select, text
from sqlalchemy import case as sql_case
from sqlalchemy.orm import Session, SessionTransaction, sessionmaker

from annotator.domain.states import CaseState
from annotator.store.bulk import chunks
from annotator.store.schema import (
    RATED_WORK_STATES,
    Case,
    CaseImage,
    CaseRevision,
    ProjectCount,
    RatedWork,
)

OPEN_STATES = (CaseState.ANNOTATING.value, CaseState.IN_REVIEW.value)
_PENDING = "counts.pending"  # this flush: (case ids, work ids, counts before)
_DELTAS = "counts.deltas"  # SessionTransaction -> Counter not yet applied
# Columns whose change can move a counter; other edits (labels, notes) cost nothing here.
_WATCHED: dict[type, tuple[str, ...]] = {
    Case: ("state", "current_revision_id"),
    CaseRevision: ("problems", "exams", "case_pk"),
    CaseImage: ("revision_id", "media_type"),
    RatedWork: ("kind", "rater_id", "state", "withdrawn_at", "repeat_of", "submitted_at"),
}
# A submitted row's labels can move its active-time counter (a bundle brings them back); an
# unsubmitted row's label edits, the common write, cost nothing here.
_SUBMITTED_VALUES = ("values",)


def hexid(value: uuid.UUID | str) -> str:
    return value.hex if isinstance(value, uuid.UUID) else uuid.UUID(str(value)).hex


def day_key(value: date | datetime | str) -> str:
    return "day:" + (value if isinstance(value, str) else value.isoformat())[:10]


ACTIVE_STEP = 6  # seconds: the desk shows the median in tenths of a minute


def active_key(rater: uuid.UUID | str, seconds: float) -> str:
    """The active-time counter of one submitted case: its seconds to the nearest 6."""
    return f"active:{hexid(rater)}:{ACTIVE_STEP * floor(seconds / ACTIVE_STEP + 0.5)}"


ACTIVE_STAMP = "active:~stamp"  # sorts after every active:<user id>:<seconds> key
_MEDIANS: dict[str, tuple[int, dict[str, float]]] = {}  # store -> (stamp, medians) last read


def active_medians(conn: Connection) -> dict[str, float]:
    """Each annotator's (hex id) median active seconds per submitted case, from their
    ``active:`` counters (about a hundred rows each). Read whole and counted here: a
    running total in SQL (a window per annotator) measured slower on both back ends.
    Read again only when :data:`ACTIVE_STAMP` moved since this process last read them
    (the caller's snapshot holds the stamp and the rows alike)."""
    stamp = int(conn.execute(select(ProjectCount.n).where(
        ProjectCount.key == ACTIVE_STAMP)).scalar() or 0)
    store = conn.engine.url.render_as_string(hide_password=True)
    kept = _MEDIANS.get(store)
    if kept is not None and kept[0] == stamp:
        return dict(kept[1])
    histograms: dict[str, dict[int, int]] = {}
    # Fetched whole (``all``): row by row costs twice as much at 30,000 rows.
    for key, n in conn.execute(select(ProjectCount.key, ProjectCount.n).where(
            *_range("active:"), ProjectCount.key != ACTIVE_STAMP, ProjectCount.n > 0)).all():
        rater, _, seconds = key[len("active:"):].partition(":")
        histograms.setdefault(rater, {})[int(seconds)] = int(n)
    medians = {rater: _median(histogram) for rater, histogram in histograms.items()}
    _MEDIANS[store] = (stamp, medians)
    return dict(medians)


def _median(histogram: dict[int, int]) -> float:
    """The median of values given as value -> how many times (``statistics.median`` of the
    values repeated, without repeating them)."""
    total = sum(histogram.values())
    wanted = ((total - 1) // 2, total // 2)  # the middle position(s), counted from 0
    found: list[int] = []
    seen = 0
    for value in sorted(histogram):
        seen += histogram[value]
        while len(found) < 2 and wanted[len(found)] < seen:
            found.append(value)
        if len(found) == 2:
            break
    return (found[0] + found[1]) / 2


def project_wide(conn: Connection) -> dict[str, int]:
    """The counters every role reads (``status``): cases, exams, images, needs_fix, work;
    read by their key ranges, never past the per-person ones."""
    query = select(ProjectCount.key, ProjectCount.n).where(or_(
        *(and_(*_range(prefix)) for prefix in ("cases:", "images:", "work:")),
        ProjectCount.key.in_(("exams", "needs_fix"))))
    return {key: int(n) for key, n in conn.execute(query).all()}  # whole: 2x row by row


def _active_seconds() -> Any:
    return RatedWork.values["active_seconds"].as_float()


# -- measuring rows ---------------------------------------------------------------------------

def case_counts(conn: Connection, case_ids: Iterable[uuid.UUID] | None = None) -> Counter[str]:
    """What the given cases (every case: ``None``) add to the case counters."""
    out: Counter[str] = Counter()
    current = CaseRevision.id == Case.current_revision_id
    fixes = func.json_array_length(CaseRevision.problems) > 0
    base = select(Case.state, func.count(), func.coalesce(func.sum(CaseRevision.exams), 0),
                  func.sum(sql_case((and_(Case.state.in_(OPEN_STATES), fixes), 1), else_=0)))
    images = select(CaseImage.media_type, func.count()).join(
        Case, CaseImage.revision_id == Case.current_revision_id)
    for where in _filters(case_ids):
        for state, n, exams, needs_fix in conn.execute(
            base.outerjoin(CaseRevision, current).where(*where).group_by(Case.state)
        ):
            out[f"cases:{state}"] += int(n)
            out["exams"] += int(exams or 0)
            out["needs_fix"] += int(needs_fix or 0)
        for media_type, n in conn.execute(
            images.where(*where).group_by(CaseImage.media_type)
        ):
            out[f"images:{media_type}"] += int(n)
    return out


def _filters(case_ids: Iterable[uuid.UUID] | None) -> Iterable[tuple[Any, ...]]:
    if case_ids is None:
        yield ()
        return
    for chunk in chunks(case_ids):
        yield (Case.id.in_(chunk),)


def work_counts(conn: Connection, work_ids: Iterable[uuid.UUID] | None = None) -> Counter[str]:
    """What the given rated work (all of it: ``None``) adds to the work counters."""
    out: Counter[str] = Counter()
    counted = (RatedWork.withdrawn_at.is_(None), RatedWork.repeat_of.is_(None))
    case_work = RatedWork.kind == "case"
    if work_ids is None:
        for kind, state, n in conn.execute(
            select(RatedWork.kind, RatedWork.state, func.count()).where(*counted)
            .group_by(RatedWork.kind, RatedWork.state)
        ):
            out[f"work:{kind}:{state}"] += int(n)
        for rater, state, n in conn.execute(
            select(RatedWork.rater_id, RatedWork.state, func.count()).where(*counted, case_work)
            .group_by(RatedWork.rater_id, RatedWork.state)
        ):
            out[f"rater:{hexid(rater)}:{state}"] += int(n)
        day = func.date(RatedWork.submitted_at)
        for when, n in conn.execute(
            select(day, func.count()).where(*counted, case_work, RatedWork.state == "submitted",
                                            RatedWork.submitted_at.is_not(None)).group_by(day)
        ):
            out[day_key(str(when))] += int(n)
        seconds = _active_seconds()
        for rater, value in conn.execute(
            select(RatedWork.rater_id, seconds).where(*counted, case_work,
                                                      RatedWork.state == "submitted", seconds > 0)
        ):
            out[active_key(rater, float(value))] += 1
        return out
    for chunk in chunks(work_ids):
        for kind, rater, state, submitted_at, active in conn.execute(
            select(RatedWork.kind, RatedWork.rater_id, RatedWork.state, RatedWork.submitted_at,
                   _active_seconds())
            .where(RatedWork.id.in_(chunk), *counted)
        ):
            out[f"work:{kind}:{state}"] += 1
            if kind == "case":
                out[f"rater:{hexid(rater)}:{state}"] += 1
                if state == "submitted" and submitted_at is not None:
                    out[day_key(submitted_at)] += 1
                if state == "submitted" and active is not None and float(active) > 0:
                    out[active_key(rater, float(active))] += 1
    return out


def recount(conn: Connection) -> Counter[str]:
    """Every counter computed from the rows (``repair``, the clone, the migration)."""
    return case_counts(conn) + work_counts(conn)


# -- reading and writing the counters ---------------------------------------------------------

def read(conn: Connection, prefix: str | tuple[str, ...] | None = None,
         skip: tuple[str, ...] = ()) -> dict[str, int]:
    """The stored counters: those whose key starts with ``prefix`` (or one of several),
    without those starting with one of ``skip``. The table holds a few rows per annotator
    and per day, none per case, but about a hundred ``active:`` rows per annotator: name the
    prefixes wanted (ranges of the key read through its index) rather than skip those
    (302 annotators: 33,000 rows scanned, 12 ms)."""
    query = select(ProjectCount.key, ProjectCount.n)
    if isinstance(prefix, str):
        query = query.where(*_range(prefix))
    elif prefix is not None:
        query = query.where(or_(*(and_(*_range(p)) for p in prefix)))
    for other in skip:
        low, high = _range(other)
        query = query.where(~(low & high))
    return {key: int(n) for key, n in conn.execute(query).all()}  # whole: 2x row by row


def rater_states(counters: Mapping[str, int]) -> dict[str, dict[str, int]]:
    """The ``rater:<id>:<state>`` counters among ``counters``: rater (hex id) -> state ->
    case work (first ratings), zeros left out."""
    out: dict[str, dict[str, int]] = {}
    for key, n in counters.items():
        if n and key.startswith("rater:"):
            _head, rater, state = key.split(":", 2)
            states = out.setdefault(rater, {})
            states[state] = states.get(state, 0) + n
    return out


def rater_counters(conn: Connection, raters: Iterable[uuid.UUID | str]
                   ) -> dict[str, dict[str, int]]:
    """The ``rater:`` counters of ``raters`` only, as :func:`rater_states` gives them,
    read by their exact keys through the primary key (a page of the desk's annotator
    table). Not ranges: SQLite read the table whole for an OR of 50 of them (31 ms)."""
    keys = [f"rater:{hexid(rater)}:{state}" for rater in raters for state in RATED_WORK_STATES]
    found: dict[str, int] = {}
    for chunk in chunks(keys):
        found.update((key, int(n)) for key, n in conn.execute(
            select(ProjectCount.key, ProjectCount.n).where(ProjectCount.key.in_(chunk))).all())
    return rater_states(found)


def _range(prefix: str) -> tuple[Any, Any]:
    # Keys are ASCII: every key starting with ``prefix`` sorts below prefix + "\x7f".
    return ProjectCount.key >= prefix, ProjectCount.key < prefix + "\x7f"


def apply(conn: Connection, deltas: Counter[str] | dict[str, int]) -> None:
    """Add ``deltas`` to the counters, in key order (see the module docstring).

    A change to any ``active:`` counter also adds a random 40-bit number to
    :data:`ACTIVE_STAMP`, in the same transaction: a stamp, not a count, so that two stores
    at one address (a test database made again, a store restored from a backup) never show
    the same stamp over different counters, and concurrent writers' additions commute."""
    if any(v and k.startswith("active:") and k != ACTIVE_STAMP for k, v in deltas.items()):
        deltas = {**deltas, ACTIVE_STAMP: int(deltas.get(ACTIVE_STAMP, 0))
                  + 1 + secrets.randbits(40)}
    keys = sorted(k for k, v in deltas.items() if v)
    if not keys:
        return
    if conn.dialect.name == "postgresql":
        conn.execute(text(
            "SELECT annotator_count_add(CAST(:keys AS text[]), CAST(:deltas AS bigint[]))"),
                     {"keys": keys, "deltas": [int(deltas[k]) for k in keys]})
        return
    conn.execute(text(
        "INSERT INTO project_counts (key, n) VALUES (:key, :n)"
        " ON CONFLICT (key) DO UPDATE SET n = project_counts.n + excluded.n"
    ), [{"key": k, "n": int(deltas[k])} for k in keys])


def drift(conn: Connection) -> dict[str, tuple[int, int]]:
    """Counters that differ from a full recount: key -> (stored, actual)."""
    stored, actual = read(conn), recount(conn)
    stored.pop(ACTIVE_STAMP, None)  # a stamp, not a count of rows
    return {k: (stored.get(k, 0), actual.get(k, 0)) for k in sorted(set(stored) | set(actual))
            if stored.get(k, 0) != actual.get(k, 0)}


# -- the session hooks ------------------------------------------------------------------------

def keep_counts(factory: sessionmaker[Session]) -> None:
    """Keep the counters on every write session the factory makes."""
    event.listen(factory, "before_flush", _before_flush)
    event.listen(factory, "after_flush", _after_flush)
    event.listen(factory, "before_commit", _before_commit)
    event.listen(factory, "after_rollback", _after_rollback)
    event.listen(factory, "after_transaction_end", _after_transaction_end)


def _changed(obj: Any, columns: tuple[str, ...]) -> bool:
    attrs = inspect(obj).attrs
    return any(attrs[c].history.has_changes() for c in columns if c in attrs)


def _touched(session: Session, objects: Iterable[Any], *, check: bool
             ) -> tuple[set[Any], set[Any], set[Any]]:
    """Case ids, revision ids (their case found by query) and work ids among ``objects``."""
    cases: set[Any] = set()
    revisions: set[Any] = set()
    works: set[Any] = set()
    for obj in objects:
        kind = next((k for k in _WATCHED if isinstance(obj, k)), None)
        if kind is None or (check and not _changed(obj, _WATCHED[kind]) and not (
                kind is RatedWork and obj.state == "submitted"
                and _changed(obj, _SUBMITTED_VALUES))):
            continue
        if isinstance(obj, Case) and obj.id is not None:
            cases.add(obj.id)
        elif isinstance(obj, CaseRevision) and obj.case_pk is not None:
            cases.add(obj.case_pk)
        elif isinstance(obj, CaseImage) and obj.revision_id is not None:
            revisions.add(obj.revision_id)
        elif isinstance(obj, RatedWork) and obj.id is not None:
            works.add(obj.id)
    return cases, revisions, works


def _cases_of(conn: Connection, revisions: set[Any]) -> set[Any]:
    found: set[Any] = set()
    for chunk in chunks(revisions):
        found.update(conn.execute(select(CaseRevision.case_pk).where(
            CaseRevision.id.in_(chunk))).scalars())
    return found


def _measure(conn: Connection, cases: set[Any], works: set[Any]) -> Counter[str]:
    out: Counter[str] = Counter()
    if cases:
        out.update(case_counts(conn, cases))
    if works:
        out.update(work_counts(conn, works))
    return out


def _before_flush(session: Session, _context: Any, _instances: Any) -> None:
    # New rows count too: a new revision or image changes what its (existing) case adds.
    cases, revisions, works = _touched(session, session.dirty, check=True)
    for found in (_touched(session, session.deleted, check=False),
                  _touched(session, session.new, check=False)):
        cases |= found[0]
        revisions |= found[1]
        works |= found[2]
    if not (cases or revisions or works or session.new):
        session.info.pop(_PENDING, None)
        return
    conn = session.connection()
    cases |= _cases_of(conn, revisions)
    session.info[_PENDING] = (cases, works, _measure(conn, cases, works))


def _after_flush(session: Session, _context: Any) -> None:
    pending = session.info.pop(_PENDING, None)
    if pending is None:
        return
    cases, works, before = pending
    new_cases, new_revisions, new_works = _touched(session, session.new, check=False)
    conn = session.connection()
    cases = cases | new_cases | _cases_of(conn, new_revisions)
    works = works | new_works
    after = _measure(conn, cases, works)
    delta: Counter[str] = Counter()
    for key in set(before) | set(after):
        if after.get(key, 0) != before.get(key, 0):
            delta[key] = after.get(key, 0) - before.get(key, 0)
    owner = session.get_nested_transaction() or session.get_transaction()
    if delta and owner is not None:
        kept: dict[SessionTransaction, Counter[str]] = session.info.setdefault(_DELTAS, {})
        kept.setdefault(owner, Counter()).update(delta)


def _after_rollback(session: Session) -> None:
    """A savepoint rolled back (the innermost still open) or the whole transaction."""
    session.info.pop(_PENDING, None)
    nested = session.get_nested_transaction()
    if nested is None:
        session.info.pop(_DELTAS, None)
    elif session.info.get(_DELTAS):
        session.info[_DELTAS].pop(nested, None)


def _after_transaction_end(session: Session, transaction: SessionTransaction) -> None:
    """A savepoint released: its differences belong to the enclosing transaction now."""
    deltas = session.info.get(_DELTAS)
    if not deltas or transaction not in deltas:
        return
    moved = deltas.pop(transaction)
    if transaction.nested and transaction.parent is not None:
        deltas.setdefault(transaction.parent, Counter()).update(moved)


def _before_commit(session: Session) -> None:
    session.flush()  # the commit's own flush comes after this hook: count it first
    deltas = session.info.pop(_DELTAS, None)
    if not deltas:
        return
    total: Counter[str] = Counter()
    for counter in deltas.values():
        total.update(counter)
    apply(session.connection(), total)
