"""The meta-review queue: conflicts in order of benchmark impact, per item and per case.

Reading the queue first records any detection that is missing (a case that entered review
since), so the queue, ``review --list`` and the page always show stored detections with
their stored reviewer letters. The case queue's order comes from the keys the writes keep
(``store.queue_keys``; this module registers their computer), so a page reads its own cases
only.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, false, select
from sqlalchemy.orm import Session, sessionmaker

from annotator.domain.labels import split_key
from annotator.domain.permissions import Action
from annotator.domain.states import CaseState
from annotator.review.conflicts import item_label, item_status
from annotator.review.disagreement import bulk_resolvable, impact
from annotator.services.review.base import decision_rows, get_case, review_of
from annotator.services.review.bulk import Decided, Detected, QueueRows, Scope, load_rows
from annotator.services.review.detect import detected_items
from annotator.services.users import require_user
from annotator.store import queue_keys
from annotator.store.db import READ_ONLY, ReadOnlyViolation
from annotator.store.project import Project
from annotator.store.repeats import hide_repeats
from annotator.store.schema import Adjudication, Case, DetectedItem
from annotator.store.schema import QueueKey as QueueKeyRow

_STATUS_RANK = {"open": 0, "decided": 1, "overridden": 2, "moot": 3, "auto_resolved": 4}


@dataclass(frozen=True)
class Decision:
    value: Any
    reason_code: str
    reason_text: str
    adjudicator: str
    decided_at: str  # ISO 8601


@dataclass(frozen=True)
class QueueItem:
    """One detected item of a case as the adjudicator sees it (values by reviewer letter)."""

    case_id: str
    key: str
    family: str
    item: str
    label: str
    values: dict[str, Any]
    disagreement: str | None
    kind: str  # conflict | auto_resolved
    state: str  # open | decided | moot | auto_resolved | overridden
    case_state: str
    impact: int
    bulk: bool
    final: Any  # the decided or agreed value (None while open)
    decision: Decision | None

    def as_json(self) -> dict[str, Any]:
        """The ``review --list --json`` object."""
        return {
            "case_id": self.case_id,
            "key": self.key,
            "family": self.family,
            "item": self.item,
            "values": self.values,
            "disagreement": self.disagreement,
            "state": self.state,
            "case_state": self.case_state,
            "impact": self.impact,
            "bulk": self.bulk,
            "final": self.final,
            "decision": None if self.decision is None else self.decision.__dict__,
        }


def sort_key(item: QueueItem) -> tuple[int, int, str, str]:
    """Open conflicts first, by impact, then decided, moot and auto-resolved items."""
    return (_STATUS_RANK[item.state], item.impact, item.case_id, item.key)


def _decision(row: Adjudication | Decided) -> Decision:
    return Decision(
        row.value, row.reason_code, row.reason_text, row.adjudicator, row.decided_at.isoformat()
    )


def case_queue_items(session: Session, case: Case) -> list[QueueItem]:
    """Every detected item of one case, sorted for the adjudicator."""
    return items_of(case, detected_items(session, case), decision_rows(session, case))


def items_of(
    case: Case,
    rows: Sequence[DetectedItem | Detected],
    decided: Mapping[str, Adjudication | Decided],
) -> list[QueueItem]:
    """:func:`case_queue_items` from the case's detected items and current decisions."""
    discard = decided.get("discard")
    out = (discard is not None and discard.value is not None) or (
        case.state == CaseState.EXCLUDED.value
    )
    items = []
    for row in rows:
        state = item_status(row.kind, row.key, decided, out)
        decision = decided.get(row.key)
        if decision is not None:
            final = decision.value
        elif row.kind == "auto_resolved":
            final = next(iter(row.by_letter.values()), None)
        else:
            final = None
        items.append(
            QueueItem(
                case_id=case.case_id,
                key=row.key,
                family=row.family,
                item=split_key(row.key)[1],
                label=item_label(row.key),
                values=dict(row.by_letter),
                disagreement=row.disagreement,
                kind=row.kind,
                state=state,
                case_state=case.state,
                impact=impact(row.family, row.disagreement) if row.kind == "conflict" else 10,
                bulk=bulk_resolvable(row.disagreement),
                final=final,
                decision=None if decision is None else _decision(decision),
            )
        )
    return sorted(items, key=sort_key)


REVIEWED_STATES = tuple(s.value for s in CaseState if s is not CaseState.ANNOTATING)


def _reviewed(
    session: Session, case_ids: list[str] | None, *, with_reviews: bool
) -> tuple[list[Case], QueueRows]:
    """The reviewed cases (all, or those named) with their rows, read in bulk.

    Cases in review are re-detected first if their labels changed (what ``sync_all`` did);
    a case back in annotating (reopened) keeps its old detection but is not in the queue.
    """
    if case_ids is None:
        # ``IN`` the reviewed states, not ``!=`` annotating: only ``IN`` can use the index.
        scope: Scope = select(Case.id).where(Case.state.in_(REVIEWED_STATES))
        query = select(Case).where(Case.state.in_(REVIEWED_STATES))
    else:  # only these cases: the work grows with them, not with the project
        query = select(Case).where(Case.case_id.in_(case_ids))
    cases = list(session.scalars(query.order_by(Case.case_id)))
    if case_ids is not None:
        scope = [c.id for c in cases]
    rows = load_rows(session, cases, scope, with_reviews=with_reviews)
    with_detection = set(
        session.scalars(
            select(DetectedItem.case_pk).where(DetectedItem.case_pk.in_(scope)).distinct()
        )
    )
    reviewed = [
        c for c in cases if c.id in with_detection and c.state != CaseState.ANNOTATING.value
    ]
    return reviewed, rows


def list_items(
    project: Project,
    reader: str,
    *,
    include_auto: bool = False,
    only_open: bool = False,
    case_ids: list[str] | None = None,
) -> list[QueueItem]:
    """Conflicts of every reviewed case, most important first (``review --list``).

    ``reader`` must be an adjudicator or curator: the items show each annotator's values.
    """
    def read(session: Session) -> list[QueueItem]:
        require_user(session, reader, Action.READ_OTHERS_WORK)
        cases, rows = _reviewed(session, case_ids, with_reviews=False)  # items only
        return [
            item
            for case in cases
            for item in items_of(case, rows.detected[case.id], rows.decided[case.id])
            if (include_auto or item.kind == "conflict") and (not only_open or item.state == "open")
        ]

    # A write only when a case's detection is stale (it is detected again first).
    return sorted(project.read_healing(read), key=sort_key)


@dataclass(frozen=True)
class CaseEntry:
    """One case in the adjudicator's queue."""

    case_id: str
    title: str
    state: str
    open: int
    decided: int
    auto_resolved: int
    top_impact: int | None  # impact group of the most important open conflict
    top_disagreement: str | None
    adjudicator: str | None  # assigned adjudicator, if the cases were split
    blockers: list[str]

    @property
    def ready(self) -> bool:
        return self.state == CaseState.IN_REVIEW.value and not self.blockers


def _entry(case: Case, rows: QueueRows) -> CaseEntry:
    items = items_of(case, rows.detected[case.id], rows.decided[case.id])
    open_items = [i for i in items if i.state == "open"]
    record = rows.records.get(case.id)
    content_title = ""
    blockers: list[str] = []
    if case.state in (CaseState.IN_REVIEW.value, CaseState.GREEN_LIT.value):
        assert case.current_revision_id is not None
        review = review_of(
            case,
            rows.contents[case.current_revision_id],
            rows.submitted.get(case.id, {}),
            {key: row.value for key, row in rows.decided[case.id].items()},
            rows.hashes[case.current_revision_id],
        )
        blockers = review.blockers
        content_title = str(review.release.get("case_title") or "")
    return CaseEntry(
        case_id=case.case_id,
        title=content_title,
        state=case.state,
        open=len(open_items),
        decided=sum(i.state in ("decided", "overridden") for i in items),
        auto_resolved=sum(i.state == "auto_resolved" for i in items),
        top_impact=open_items[0].impact if open_items else None,
        top_disagreement=open_items[0].disagreement if open_items else None,
        adjudicator=record.adjudicator if record is not None else None,
        blockers=blockers,
    )


# The queue's order: a case's group (0 open conflicts, 1 ready, 2 blocked, 3 green-lit,
# 4 excluded), the impact of its top open conflict (0 for the others), its case id.
QueueKey = queue_keys.Position
_GROUPS = {CaseState.GREEN_LIT.value: 3, CaseState.EXCLUDED.value: 4}


@dataclass(frozen=True)
class QueuePage:
    """One page of the queue, with what the queue's heading counts over every case."""

    entries: list[CaseEntry]
    after: QueueKey | None  # the key to ask for the next page from; None: this was the last
    cases: int  # cases in the queue
    open_conflicts: int
    ready: int
    green_lit: int


def case_queue(
    project: Project, reader: str, adjudicator: str | None = None
) -> list[CaseEntry]:
    """Reviewed cases: open conflicts by impact, then ready, blocked, green-lit, excluded.

    With ``adjudicator``, only the cases assigned to them or to nobody. ``reader`` must be
    an adjudicator or curator. Every page of :func:`case_queue_page` at once.
    """
    entries = case_queue_page(project, reader, limit=None).entries
    if adjudicator is not None:
        entries = [e for e in entries if e.adjudicator in (None, adjudicator)]
    return entries


def case_queue_page(
    project: Project, reader: str, *, after: QueueKey | None = None, limit: int | None = 50
) -> QueuePage:
    """The queue's cases after ``after`` (from the start without it), at most ``limit``.

    The order comes from the keys the writes keep (``store.queue_keys``): the page is a
    keyset read of the index, the heading a grouped count of it, and the full entry (draft,
    image hashes, decisions) is read for the page's cases only. Keys a writer could only
    mark stale are recomputed first (a write: the read runs again in a write transaction).
    """
    def read(session: Session) -> QueuePage:
        require_user(session, reader, Action.READ_OTHERS_WORK)
        heal_keys(session)
        conn = session.connection()
        sums = queue_keys.totals(conn)
        page = queue_keys.page(conn, after, limit)
        scope: Scope
        if limit is None:  # everything: read by the index, not by a list of every id
            scope = select(QueueKeyRow.case_pk).where(QueueKeyRow.stale == false())
        else:
            scope = [pk for _, pk in page]
        cases = {c.id: c for c in session.scalars(select(Case).where(Case.id.in_(scope)))}
        rows = load_rows(session, list(cases.values()), scope, with_reviews=True)
        more = limit is not None and len(page) == limit
        return QueuePage(
            entries=[_entry(cases[pk], rows) for _, pk in page
                     if pk in cases and _read_whole(cases[pk], rows)],
            after=page[-1][0] if more and page else None,
            cases=sum(n for n, _ in sums.values()),
            open_conflicts=sums.get(0, (0, 0))[1],
            ready=sums.get(1, (0, 0))[0],
            green_lit=sums.get(3, (0, 0))[0],
        )

    return project.read_healing(read)


def open_conflict_totals(project: Project, reader: str) -> tuple[int, int]:
    """Cases with an open conflict and their open conflicts (the desk), from the kept keys."""
    def read(session: Session) -> tuple[int, int]:
        require_user(session, reader, Action.READ_OTHERS_WORK)
        heal_keys(session)
        sums = queue_keys.totals(session.connection())
        return sums.get(0, (0, 0))[0], sum(total for _, total in sums.values())

    return project.read_healing(read)


def _read_whole(case: Case, rows: QueueRows) -> bool:
    """Whether ``rows`` hold the draft an entry of ``case`` reads."""
    return case.state not in (CaseState.IN_REVIEW.value, CaseState.GREEN_LIT.value) or (
        case.current_revision_id in rows.contents)


# -- the keys ---------------------------------------------------------------------------------

_CHUNK = 500  # cases per bulk read


def key_of(entry: CaseEntry) -> queue_keys.Key:
    """A case's (group, top impact, open conflicts) from its queue entry."""
    group = _GROUPS.get(entry.state)
    if group is None:  # in review
        group = 0 if entry.open else (1 if entry.ready else 2)
    impact = entry.top_impact if group == 0 and entry.top_impact is not None else 0
    return group, impact, entry.open


KeyedCases = dict[uuid.UUID, tuple[str, queue_keys.Key | None]]


def compute_keys(session: Session, case_pks: list[uuid.UUID], *, heal: bool = True
                 ) -> tuple[KeyedCases, set[uuid.UUID]]:
    """The keys of the given cases (``None``: not in the queue), and without ``heal`` the
    cases whose detection is stale (their key waits for it: they are left out).

    A case is in the queue when it is reviewed (not annotating) and has a detection.
    """
    keys: KeyedCases = {}
    stale: set[uuid.UUID] = set()
    for start in range(0, len(case_pks), _CHUNK):
        chunk = case_pks[start:start + _CHUNK]
        cases = list(session.scalars(select(Case).where(Case.id.in_(chunk))))
        reviewed = [c for c in cases if c.state in REVIEWED_STATES]
        keys.update((c.id, (c.case_id, None)) for c in cases if c.state not in REVIEWED_STATES)
        keys.update((pk, ("", None)) for pk in set(chunk) - {c.id for c in cases})  # deleted
        if not reviewed:
            continue
        scope = [c.id for c in reviewed]
        rows = load_rows(session, reviewed, scope, with_reviews=True, heal=heal)
        detected = set(session.scalars(  # after ``load_rows``: it may detect a case first
            select(DetectedItem.case_pk).where(DetectedItem.case_pk.in_(scope)).distinct()))
        for case in reviewed:
            if case.id in rows.stale:
                stale.add(case.id)
            elif case.id not in detected:
                keys[case.id] = (case.case_id, None)
            else:
                keys[case.id] = (case.case_id, key_of(_entry(case, rows)))
    return keys, stale


def keep_keys(session: Session, case_pks: list[uuid.UUID]) -> None:
    """The writes' computer (``store.queue_keys``): detect again if stale, store the keys."""
    keys, _ = compute_keys(session, case_pks)
    queue_keys.write(session.connection(), keys)


def heal_keys(session: Session) -> None:
    """Recompute the keys writers marked stale (in a read transaction: ask for a write one)."""
    conn = session.connection()
    stale = queue_keys.stale_cases(conn)
    if not stale:
        return
    if conn.get_execution_options().get(READ_ONLY):
        raise ReadOnlyViolation("stale review queue keys: recompute them in a write transaction")
    with queue_keys.computing(session):
        keep_keys(session, sorted(stale))


queue_keys.set_computer(keep_keys)


def recompute_all(session: Session) -> tuple[KeyedCases, set[uuid.UUID]]:
    """Every reviewed or keyed case's key from the stored rows, nothing detected again."""
    pks = list(session.scalars(select(Case.id).where(Case.state.in_(REVIEWED_STATES))))
    known = set(pks)
    pks += [pk for pk in queue_keys.stored(session.connection()) if pk not in known]
    return compute_keys(session, pks, heal=False)


def backfill_keys(conn: Connection) -> None:
    """Store every case's key (the migration; a case with a stale detection: marked stale)."""
    factory = sessionmaker(bind=conn)
    hide_repeats(factory)  # as the app's sessions do: hidden repeats never count
    with factory() as session:
        keys, stale = recompute_all(session)
    queue_keys.write(conn, keys)
    queue_keys.mark_stale(conn, stale)


@dataclass(frozen=True)
class KeyDrift:
    """A stored queue key that differs from a recomputation (``repair``)."""

    case_pk: uuid.UUID
    case_id: str
    stored: queue_keys.Key | None  # None: no key stored
    actual: queue_keys.Key | None  # None: not in the queue; see ``stale``
    stale: bool = False  # the detection is stale: the key should be marked for recomputing


def key_drift(session: Session) -> list[KeyDrift]:
    """The stored keys that differ from the rows (a key already marked stale is pending,
    not drift)."""
    keys, stale = recompute_all(session)
    stored = queue_keys.stored(session.connection())
    out = []
    for pk, (case_id, actual) in keys.items():
        held = stored.get(pk)
        if held is not None and held[1]:
            continue
        if (None if held is None else held[0]) != actual:
            out.append(KeyDrift(pk, case_id, None if held is None else held[0], actual))
    ids = dict(session.execute(select(Case.id, Case.case_id).where(Case.id.in_(stale))).all()
               ) if stale else {}
    for pk in stale:
        held = stored.get(pk)
        if held is None or not held[1]:
            out.append(KeyDrift(pk, ids.get(pk, ""), None if held is None else held[0], None,
                                stale=True))
    return sorted(out, key=lambda d: d.case_id)


def fix_keys(session: Session, drifted: list[KeyDrift]) -> None:
    """Store the recomputed keys of ``drifted`` (mark the stale ones)."""
    conn = session.connection()
    queue_keys.write(conn, {d.case_pk: (d.case_id, d.actual) for d in drifted if not d.stale})
    queue_keys.mark_stale(conn, [d.case_pk for d in drifted if d.stale])


def case_entry(project: Project, reader: str, case_id: str) -> CaseEntry:
    """One case's queue entry (the page updates a row after a decision without a reload)."""
    def read(session: Session) -> CaseEntry:
        require_user(session, reader, Action.READ_OTHERS_WORK)
        case = get_case(session, case_id)
        rows = load_rows(session, [case], [case.id], with_reviews=True)
        return _entry(case, rows)

    return project.read_healing(read)


def review_status(project: Project, reader: str) -> dict[str, Any]:
    """Counts for ``review --status``: conflicts by state, cases by state, open by type."""
    items = list_items(project, reader, include_auto=True)
    with project.read() as session:
        states = list(session.scalars(select(Case.state)))
    by_type: dict[str, int] = {}
    for item in items:
        if item.state == "open" and item.disagreement:
            by_type[item.disagreement] = by_type.get(item.disagreement, 0) + 1
    count = {s: sum(1 for i in items if i.state == s) for s in _STATUS_RANK}
    return {
        "conflicts_open": count["open"],
        "conflicts_resolved": count["decided"],
        "conflicts_moot": count["moot"],
        "auto_resolved": count["auto_resolved"],
        "overridden": count["overridden"],
        "bulk_resolvable_open": sum(1 for i in items if i.state == "open" and i.bulk),
        "cases_in_review": states.count(CaseState.IN_REVIEW.value),
        "green_lit": states.count(CaseState.GREEN_LIT.value),
        "excluded": states.count(CaseState.EXCLUDED.value),
        "open_by_type": dict(sorted(by_type.items(), key=lambda kv: (-kv[1], kv[0]))),
    }
