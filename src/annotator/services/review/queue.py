"""The meta-review queue: conflicts in order of benchmark impact, per item and per case.

Reading the queue first records any detection that is missing (a case that entered review
since), so the queue, ``review --list`` and the page always show stored detections with
their stored reviewer letters.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.domain.labels import split_key
from annotator.domain.permissions import Action
from annotator.domain.states import CaseState
from annotator.review.conflicts import item_label, item_status
from annotator.review.disagreement import bulk_resolvable, impact
from annotator.services.review.base import decision_rows, get_case, review_of
from annotator.services.review.bulk import Decided, Detected, QueueRows, Scope, load_rows
from annotator.services.review.detect import detected_items
from annotator.services.users import require_user
from annotator.store.project import Project
from annotator.store.schema import Adjudication, Case, DetectedItem

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
QueueKey = tuple[int, int, str]
_CLOSED = ((3, CaseState.GREEN_LIT.value), (4, CaseState.EXCLUDED.value))


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

    Only the cases in review are ranked (their open conflicts read, and the drafts of those
    without any, which decide ready or blocked); green-lit and excluded cases follow in case
    id order, read a page at a time through the (state, case id) index. The full entry
    (draft, image hashes, decisions) is read for the page's cases only.
    """
    def read(session: Session) -> QueuePage:
        require_user(session, reader, Action.READ_OTHERS_WORK)
        ranked = _ranked_in_review(session)
        closed = {state: _closed_count(session, state) for _, state in _CLOSED}
        page = [(key, pk) for key, pk, _ in ranked if after is None or key > after][:limit]
        if limit is None or len(page) < limit:
            page += _closed_page(session, after, None if limit is None else limit - len(page))
        if limit is None:  # everything: read by state, not by a list of every id
            scope: Scope = select(Case.id).where(Case.state.in_(REVIEWED_STATES))
        else:
            scope = [pk for _, pk in page]
        cases = {c.id: c for c in session.scalars(select(Case).where(Case.id.in_(scope)))}
        rows = load_rows(session, list(cases.values()), scope, with_reviews=True)
        more = limit is not None and len(page) == limit
        return QueuePage(
            # A case that changed between these statements (each reads the latest commit on
            # PostgreSQL) is left out of this read; the next one shows it.
            entries=[_entry(cases[pk], rows) for _, pk in page
                     if pk in cases and _read_whole(cases[pk], rows)],
            after=page[-1][0] if more and page else None,
            cases=len(ranked) + sum(closed.values()),
            open_conflicts=sum(count for _, _, count in ranked),
            ready=sum(1 for key, _, _ in ranked if key[0] == 1),
            green_lit=closed[CaseState.GREEN_LIT.value],
        )

    return project.read_healing(read)


_CHUNK = 500  # ids per IN list


def _read_whole(case: Case, rows: QueueRows) -> bool:
    """Whether ``rows`` hold the draft an entry of ``case`` reads."""
    return case.state not in (CaseState.IN_REVIEW.value, CaseState.GREEN_LIT.value) or (
        case.current_revision_id in rows.contents)


def _ranked_in_review(session: Session) -> list[tuple[QueueKey, uuid.UUID, int]]:
    """The key, primary key and open conflicts of every case in review with a detection,
    in queue order.

    What ranks a case is read for the cases in review only: their annotations and detection
    (re-detecting a stale one), decisions, and the draft and image hashes of those without
    an open conflict (ready or blocked).
    """
    in_review = Case.state == CaseState.IN_REVIEW.value
    cases = list(session.scalars(select(Case).where(in_review)))
    rows = load_rows(session, cases, select(Case.id).where(in_review), with_reviews=False)
    # After ``load_rows``: it records the first detection of a case new in review.
    detected = set(session.scalars(select(Case.id).where(in_review, _detected(Case.id))))
    ranked: list[tuple[QueueKey, uuid.UUID, int]] = []
    settled: list[Case] = []
    for case in cases:
        if case.id not in detected:
            continue
        items = items_of(case, rows.detected[case.id], rows.decided[case.id])
        open_items = [i for i in items if i.state == "open"]
        if open_items:
            ranked.append(((0, open_items[0].impact, case.case_id), case.id, len(open_items)))
        else:
            settled.append(case)
    for start in range(0, len(settled), _CHUNK):  # ready or blocked: the release checks say
        chunk = settled[start:start + _CHUNK]
        full = load_rows(session, chunk, [c.id for c in chunk], with_reviews=True)
        for case in chunk:
            group = 1 if _entry(case, full).ready else 2
            ranked.append(((group, 0, case.case_id), case.id, 0))
    return sorted(ranked)


def _detected(pk: Any) -> Any:
    return select(DetectedItem.id).where(DetectedItem.case_pk == pk).exists()


def _closed_count(session: Session, state: str) -> int:
    query = select(func.count()).select_from(Case).where(Case.state == state, _detected(Case.id))
    return int(session.scalar(query) or 0)


def _closed_page(
    session: Session, after: QueueKey | None, limit: int | None
) -> list[tuple[QueueKey, uuid.UUID]]:
    """Green-lit then excluded cases with a detection after ``after``, in case id order."""
    page: list[tuple[QueueKey, uuid.UUID]] = []
    for group, state in _CLOSED:
        if after is not None and after[0] > group:
            continue
        query = select(Case.case_id, Case.id).where(Case.state == state, _detected(Case.id))
        if after is not None and after[0] == group:
            query = query.where(Case.case_id > after[2])
        if limit is not None:
            query = query.limit(limit - len(page))
        page += [((group, 0, case_id), pk)
                 for case_id, pk in session.execute(query.order_by(Case.case_id))]
        if limit is not None and len(page) >= limit:
            break
    return page


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
