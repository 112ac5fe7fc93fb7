"""The review queue's reads for many cases at once: one query per table, grouped in Python.

Reading the queue case by case cost about nine queries per case (issue 14). Here each table
the queue needs (annotations, review records, detected items, decisions, draft revisions,
image hashes) is read once for every case in scope; the per-case functions of
:mod:`annotator.services.review.base` and :mod:`annotator.services.review.queue` then work on
these rows, so both paths give the same results.

Stale detections are found without re-reading each case: the fingerprint a detection would
record (draft revision + submitted labels) is computed from the bulk-read annotations and
compared with the stored one; only the cases whose labels changed are detected again.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from dataclasses import fields as fields_of
from datetime import datetime
from typing import Any, cast

from sqlalchemy import Select, Table, select
from sqlalchemy.orm import Session

from annotator.review.conflicts import Detection, fingerprint
from annotator.services.review.base import REVIEW_STATES
from annotator.services.review.detect import sync_case
from annotator.store.schema import (
    Adjudication,
    Case,
    CaseImage,
    CaseRevision,
    DetectedItem,
    RatedWork,
    ReviewRecord,
)

# The fields of a :class:`DetectedItem` the queue shows are a detection's (plain rows load
# ~5x faster than the mapped ones).
Detected = Detection


@dataclass(frozen=True)
class Decided:
    """The fields of a current :class:`Adjudication` the queue shows."""

    key: str
    value: Any
    reason_code: str
    reason_text: str
    adjudicator: str
    decided_at: datetime


# The cases a bulk read covers: their primary keys, as a list or as a subquery.
Scope = list[uuid.UUID] | Select[Any]


@dataclass(frozen=True)
class QueueRows:
    """Everything the queue reads about the cases in scope, keyed by case (or revision)."""

    submitted: dict[uuid.UUID, dict[str, dict[str, Any]]]  # case -> annotator id -> labels
    records: dict[uuid.UUID, ReviewRecord]
    detected: dict[uuid.UUID, list[Detected]]  # current round, by key
    decided: dict[uuid.UUID, dict[str, Decided]]  # current decision of each key
    contents: dict[uuid.UUID, dict[str, Any]]  # revision -> draft content
    hashes: dict[uuid.UUID, dict[str, str]]  # revision -> image path -> SHA-256
    stale: set[uuid.UUID] = field(default_factory=set)  # detection stale, not healed


def submitted_by_case(session: Session, scope: Scope) -> dict[uuid.UUID, dict[str, Any]]:
    """:func:`~annotator.services.review.base.submitted_labels` of every case in scope."""
    # Only the case goes to SQL, the rest is checked here: SQLite without statistics would
    # otherwise read the (kind, state) index, every submitted annotation of the project, to
    # find the few of a page's cases (issue 27). Hidden repeats are left out here too.
    work = cast(Table, RatedWork.__table__).c
    rows = session.execute(
        select(work.case_pk, work.rater_id, work.submitted, work.kind, work.state,
               work.withdrawn_at, work.repeat_of)
        .where(work.case_pk.in_(scope))
        .order_by(work.id)
    )
    out: dict[uuid.UUID, dict[str, Any]] = defaultdict(dict)
    for case_pk, annotator_id, labels, kind, state, withdrawn_at, repeat_of in rows:
        if kind == "case" and state == "submitted" and withdrawn_at is None and repeat_of is None:
            out[case_pk][str(annotator_id)] = dict(labels or {})
    return out


def records_by_case(session: Session, scope: Scope) -> dict[uuid.UUID, ReviewRecord]:
    query = select(ReviewRecord).where(ReviewRecord.case_pk.in_(scope))
    return {row.case_pk: row for row in session.scalars(query)}


def stale_of(
    cases: Iterable[Case],
    submitted: dict[uuid.UUID, dict[str, Any]],
    records: dict[uuid.UUID, ReviewRecord],
) -> list[Case]:
    """The cases whose stored detection is missing or stale (as ``sync_case`` would find)."""
    out = []
    for case in cases:
        labels = submitted.get(case.id)
        if case.state not in REVIEW_STATES or case.current_revision_id is None or not labels:
            continue
        record = records.get(case.id)
        if record is not None and record.fingerprint == fingerprint(
            str(case.current_revision_id), labels
        ):
            continue
        out.append(case)
    return out


def sync_stale(
    session: Session,
    cases: Iterable[Case],
    submitted: dict[uuid.UUID, dict[str, Any]],
    records: dict[uuid.UUID, ReviewRecord],
) -> int:
    """Detect the cases whose stored detection is missing or stale (as ``sync_case`` would).

    Returns how many were detected again; the others cost no query.
    """
    return sum(sync_case(session, case) for case in stale_of(cases, submitted, records))


def load_rows(
    session: Session, cases: list[Case], scope: Scope, *, with_reviews: bool, heal: bool = True
) -> QueueRows:
    """Re-detect the stale ``cases`` (all in ``scope``), then read the queue's rows of them.

    ``with_reviews`` also reads what a case's review needs (draft content, image hashes).
    Without ``heal`` nothing is detected again: the rows are what is stored (``repair``'s
    dry run, the migration's backfill).
    """
    submitted = submitted_by_case(session, scope)
    records = records_by_case(session, scope)
    if heal and sync_stale(session, cases, submitted, records):
        records = records_by_case(session, scope)  # new cases got their first record
    detected: dict[uuid.UUID, list[Detected]] = defaultdict(list)
    for case_pk, *found in session.execute(
        select(DetectedItem.case_pk, *(getattr(DetectedItem, f.name) for f in fields_of(Detection)))
        .where(DetectedItem.case_pk.in_(scope), DetectedItem.superseded.is_(False))
        .order_by(DetectedItem.key)
    ):
        detected[case_pk].append(Detected(*found))
    decided: dict[uuid.UUID, dict[str, Decided]] = defaultdict(dict)
    for case_pk, *fields in session.execute(
        select(
            Adjudication.case_pk,
            Adjudication.key,
            Adjudication.value,
            Adjudication.reason_code,
            Adjudication.reason_text,
            Adjudication.adjudicator,
            Adjudication.decided_at,
        )
        .where(Adjudication.case_pk.in_(scope), Adjudication.superseded.is_(False))
        .order_by(Adjudication.decided_at)
    ):
        decision = Decided(*fields)
        decided[case_pk][decision.key] = decision
    contents: dict[uuid.UUID, dict[str, Any]] = {}
    hashes: dict[uuid.UUID, dict[str, str]] = defaultdict(dict)
    if with_reviews:
        revisions = select(Case.current_revision_id).where(Case.id.in_(scope))
        contents = {
            revision_id: content
            for revision_id, content in session.execute(
                select(CaseRevision.id, CaseRevision.content).where(
                    CaseRevision.id.in_(revisions)
                )
            )
        }
        for revision_id, path, sha in session.execute(
            select(CaseImage.revision_id, CaseImage.draft_path, CaseImage.sha256).where(
                CaseImage.revision_id.in_(revisions)
            )
        ):
            hashes[revision_id][path] = sha
    return QueueRows(submitted, records, detected, decided, contents, hashes,
                     {c.id for c in stale_of(cases, submitted, records)} if not heal else set())
