"""A case's history as people read it: who changed what and when, oldest first.

Read from the append-only history. Blinding holds here too: somebody who may not read other
annotators' work (an annotator) sees only their own entries; adjudicators and curators see
every entry of the case.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import asdict, dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.domain.permissions import Action, may
from annotator.errors import NotFound
from annotator.services.users import get_user
from annotator.store.history import entries
from annotator.store.project import Project
from annotator.store.repeats import served
from annotator.store.schema import Annotation, Case


@dataclass(frozen=True)
class HistoryLine:
    at: datetime
    actor: str
    action: str  # e.g. "label_set", "submitted", "case_imported"
    key: str  # the label or field changed ("" for the whole case)
    before: Any
    after: Any

    @property
    def what(self) -> str:
        """``"label set importance:Figure 1: optional → essential"`` in one line."""
        change = f"{_short(self.before)} → {_short(self.after)}"
        if self.before is None and self.after is None:
            change = ""
        elif self.before is None:
            change = _short(self.after)
        parts = [self.action.replace("_", " "), self.key, change]
        return ": ".join(p for p in parts if p)

    def as_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["at"] = self.at.isoformat()
        return data


def _short(value: Any, width: int = 60) -> str:
    if isinstance(value, dict) and "value" in value:  # a label: its value is what people read
        value = value["value"]
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def case_history(project: Project, viewer: str, case_id: str) -> list[HistoryLine]:
    """The history of ``case_id`` as ``viewer`` may see it (NotFound for an unknown case)."""
    with project.read() as session:
        user = get_user(session, viewer)
        case = session.scalars(select(Case).where(Case.case_id == case_id)).first()
        if case is None:
            raise NotFound(f"no case {case_id!r} in this project")
        everyone = may(user.role_names, Action.READ_OTHERS_WORK)
        working = None if everyone else _working_row(session, case, user.id)
        return [
            HistoryLine(e.at, e.actor, e.action, e.key or "", e.before, e.after)
            for e in entries(session, case_pk=case.id)
            if everyone or (e.actor == viewer and (
                working is None or e.annotation_id in (None, working)))
        ]


def _working_row(session: Session, case: Case, user_id: uuid.UUID) -> uuid.UUID | None:
    """The row a rater works on now when it is a hidden repeat (their history on the case is
    then that row's only: their first labels would give the repeat away); else None."""
    first = session.scalars(select(Annotation).where(
        Annotation.case_pk == case.id, Annotation.annotator_id == user_id,
        Annotation.withdrawn_at.is_(None))).first()
    if first is None:
        return None
    row = served(session, first)
    return row.id if row is not first else None
