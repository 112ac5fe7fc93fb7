"""Conversions between store rows and the round-trip records, in both directions.

Only the annotator's own history travels: entries on their annotation whose actor is the
annotator. Entries written by the curator about the annotation ("assigned", "withdrawn")
name other people and stay home.
"""

from __future__ import annotations

import uuid

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.store.schema import Annotation, HistoryEntry
from annotator.sync.formats import AnnotationRecord, HistoryItem


def own_history(session: Session, annotation: Annotation, annotator: str) -> list[HistoryEntry]:
    """The annotator's own history entries on ``annotation``, oldest first."""
    return list(
        session.scalars(
            select(HistoryEntry)
            .where(HistoryEntry.annotation_id == annotation.id, HistoryEntry.actor == annotator)
            .order_by(HistoryEntry.at, HistoryEntry.id)
        )
    )


def annotation_record(session: Session, annotation: Annotation, annotator: str) -> AnnotationRecord:
    """The record of one annotation with the annotator's own history."""
    return AnnotationRecord(
        id=annotation.id,
        state=annotation.state,  # type: ignore[arg-type]  # CHECK-constrained in the store
        labels=dict(annotation.labels),
        submitted_labels=(
            dict(annotation.submitted_labels) if annotation.submitted_labels is not None else None
        ),
        submitted_at=annotation.submitted_at,
        needs_recheck=annotation.needs_recheck,
        created_at=annotation.created_at,
        updated_at=annotation.updated_at,
        history=[
            HistoryItem(
                id=entry.id,
                at=entry.at,
                actor=entry.actor,
                action=entry.action,
                key=entry.key,
                before=entry.before,
                after=entry.after,
                detail=dict(entry.detail or {}),
            )
            for entry in own_history(session, annotation, annotator)
        ],
    )


def history_row(item: HistoryItem, case_pk: uuid.UUID, annotation_id: uuid.UUID) -> HistoryEntry:
    """A history row for ``item`` keeping its id, time and actor (appended, never merged)."""
    return HistoryEntry(
        id=item.id,
        at=item.at,
        actor=item.actor,
        action=item.action,
        case_pk=case_pk,
        annotation_id=annotation_id,
        key=item.key,
        before=item.before,
        after=item.after,
        detail=dict(item.detail),
    )


def foreign_actors(record: AnnotationRecord, annotator: str) -> set[str]:
    """Actors other than ``annotator`` in a record's history (a sound file has none)."""
    return {item.actor for item in record.history if item.actor != annotator}


def own_change_count(session: Session, annotator: str) -> int:
    """How many history entries the annotator wrote on annotations (what packages carry)."""
    return int(
        session.scalar(
            select(func.count())
            .select_from(HistoryEntry)
            .where(HistoryEntry.actor == annotator, HistoryEntry.annotation_id.is_not(None))
        )
        or 0
    )
