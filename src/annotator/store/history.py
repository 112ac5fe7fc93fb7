"""Writing and reading the append-only history (who, when, what)."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.store.schema import HistoryEntry


def record(
    session: Session,
    actor: str,
    action: str,
    *,
    case_pk: uuid.UUID | None = None,
    annotation_id: uuid.UUID | None = None,
    key: str | None = None,
    before: Any = None,
    after: Any = None,
    **detail: Any,
) -> HistoryEntry:
    """Append one entry inside the caller's transaction (so it commits with the change)."""
    entry = HistoryEntry(actor=actor, action=action, case_pk=case_pk, annotation_id=annotation_id,
                         key=key, before=before, after=after, detail=detail)
    session.add(entry)
    return entry


def entries(
    session: Session, *, case_pk: uuid.UUID | None = None, action: str | None = None
) -> list[HistoryEntry]:
    """History entries, oldest first, optionally for one case or one action."""
    query = select(HistoryEntry).order_by(HistoryEntry.at, HistoryEntry.id)
    if case_pk is not None:
        query = query.where(HistoryEntry.case_pk == case_pk)
    if action is not None:
        query = query.where(HistoryEntry.action == action)
    return list(session.scalars(query))
