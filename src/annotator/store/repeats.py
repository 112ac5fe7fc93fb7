"""Hidden repeats are invisible to every query that does not ask for them.

A repeat (``RatedWork.repeat_of`` set) is a rater's own earlier item served again to measure
their agreement with themselves (issue 26). It must never count in inter-rater agreement,
conflicts, adjudication, a case's state or the release, and those are computed by many
queries. Rather than trusting each of them to filter, every ORM ``SELECT`` of rated work in
a project session gets ``repeat_of IS NULL`` added (SQLAlchemy's ``with_loader_criteria``
global filter); the few readers that need repeats (serving a rater their work, the quality
report) say so with :data:`WITH_REPEATS`.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, TypeVar

from sqlalchemy import event, select
from sqlalchemy.orm import ORMExecuteState, Session, sessionmaker, with_loader_criteria

from annotator.store.schema import RatedWork, utcnow

INCLUDE_REPEATS = "include_repeats"
# Execution options of a statement that may see repeats: ``select(...).execution_options(
# **WITH_REPEATS)``.
WITH_REPEATS: dict[str, Any] = {INCLUDE_REPEATS: True}


def _hide_repeats(state: ORMExecuteState) -> None:
    if (
        state.is_select
        and not state.is_column_load
        and not state.is_relationship_load
        and not state.execution_options.get(INCLUDE_REPEATS, False)
    ):
        state.statement = state.statement.options(
            with_loader_criteria(
                RatedWork, lambda cls: cls.repeat_of.is_(None), include_aliases=True
            )
        )


def hide_repeats(factory: sessionmaker[Session]) -> None:
    """Install the filter on every session the factory makes."""
    event.listen(factory, "do_orm_execute", _hide_repeats)


W = TypeVar("W", bound=RatedWork)


def served(session: Session, first: W, now: datetime | None = None) -> W:
    """The row the rater works on for ``first``'s item: its latest due repeat, else itself."""
    if first.repeat_of is not None:
        return first
    # Of the base class: a repeat is of its original's kind, and the subclass's ``kind IN``
    # made SQLite walk the kind's index (every row of the kind) instead of ``repeat_of``'s.
    latest = session.scalars(
        select(RatedWork)
        .where(RatedWork.repeat_of == first.id, RatedWork.withdrawn_at.is_(None),
               RatedWork.due_at <= (now or utcnow()))
        .order_by(RatedWork.repeat_no.desc())
        .limit(1)
        .execution_options(**WITH_REPEATS)
    ).first()
    return latest if isinstance(latest, type(first)) else first


def served_all(session: Session, firsts: list[W], now: datetime | None = None) -> list[W]:
    """:func:`served` of every row in ``firsts``, in one query however many there are (a
    rater's case list called ``served`` once per row: a query per assigned case)."""
    originals = [row for row in firsts if row.repeat_of is None]
    if not originals:
        return list(firsts)
    model = type(originals[0])
    latest: dict[Any, W] = {}
    ids = [row.id for row in originals]
    for start in range(0, len(ids), _CHUNK):  # bound the IN list (SQLite's variable limit)
        for row in session.scalars(  # of the base class: see served
            select(RatedWork)
            .where(RatedWork.repeat_of.in_(ids[start:start + _CHUNK]),
                   RatedWork.withdrawn_at.is_(None), RatedWork.due_at <= (now or utcnow()))
            .execution_options(**WITH_REPEATS)
        ):
            if not isinstance(row, model):
                continue
            held = latest.get(row.repeat_of)
            if held is None or row.repeat_no > held.repeat_no:
                latest[row.repeat_of] = row
    return [row if row.repeat_of is not None else latest.get(row.id, row) for row in firsts]


_CHUNK = 500


def case_state_for_rater(case_state: str, row: RatedWork) -> str:
    """The case's state as the rater's own views show it: a repeat is served on a case that
    has long left annotating, and showing that would mark it, so a repeat shows
    ``annotating`` (the state of every case a rater is given to label)."""
    return "annotating" if row.repeat_of is not None else case_state
