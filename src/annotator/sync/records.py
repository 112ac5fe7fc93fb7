"""Conversions between store rows and the round-trip records, in both directions.

Only the annotator's own history travels: entries on their annotation whose actor is the
annotator. Entries written by the curator about the annotation ("assigned", "withdrawn")
name other people and stay home.
"""

from __future__ import annotations

import uuid
from typing import Any

from pydantic import BaseModel
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.store.schema import Annotation, HistoryEntry
from annotator.sync.formats import AnnotationRecord, HistoryItem


def own_history(session: Session, annotation: Annotation, annotator: str) -> list[HistoryEntry]:
    """The annotator's own history entries on ``annotation``, oldest first."""
    return list(
        session.scalars(
            select(HistoryEntry)
            # By the case first: history is indexed by case, not by annotation.
            .where(HistoryEntry.case_pk == annotation.case_pk,
                   HistoryEntry.annotation_id == annotation.id, HistoryEntry.actor == annotator)
            .order_by(HistoryEntry.at, HistoryEntry.id)
        )
    )


def annotation_record(session: Session, annotation: Annotation, annotator: str) -> AnnotationRecord:
    """The record of one annotation with the annotator's own history."""
    history = [
        HistoryItem.model_validate({**_named(entry, HistoryItem), "detail": entry.detail or {}})
        for entry in own_history(session, annotation, annotator)
    ]
    return AnnotationRecord.model_validate(
        {**_named(annotation, AnnotationRecord, "history"), "history": history}
    )


def _named(row: Any, model: type[BaseModel], *skip: str) -> dict[str, Any]:
    """A store row's attributes that ``model`` names as its fields (validated by the model:
    copies, never the row's own dicts)."""
    return {name: getattr(row, name) for name in model.model_fields if name not in skip}


def history_row(item: HistoryItem, case_pk: uuid.UUID, annotation_id: uuid.UUID) -> HistoryEntry:
    """A history row for ``item`` keeping its id, time and actor (appended, never merged)."""
    return HistoryEntry(**item.model_dump(), case_pk=case_pk, annotation_id=annotation_id)


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
