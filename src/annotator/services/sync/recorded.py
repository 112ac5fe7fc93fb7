"""An annotation taken whole as another copy of the project recorded it (a bundle's, a
package's), through the rating engine, with the history entries that made it."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime

from sqlalchemy.orm import Session

from annotator.services.rating import Recorded, apply_recorded
from annotator.store.schema import Annotation
from annotator.sync.formats import AnnotationRecord, HistoryItem
from annotator.sync.records import history_row


def take_recorded(
    session: Session,
    annotation: Annotation,
    record: AnnotationRecord,
    history: list[HistoryItem],
    *,
    updated_at: datetime | None = None,
) -> None:
    """Give ``annotation`` the labels and submission of ``record`` and append ``history``
    (each entry keeping its id, time and actor); ``updated_at`` None stamps it now."""
    a = record
    recorded = Recorded(a.labels, a.state, a.submitted_labels, a.submitted_at, a.needs_recheck)
    apply_recorded(annotation, replace(recorded, updated_at=updated_at))
    session.add(annotation)
    session.flush()
    for item in history:
        session.add(history_row(item, annotation.case_pk, annotation.id))
