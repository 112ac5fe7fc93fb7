"""Undo over core edits: a QUndoCommand only adapts ``rating.CASES.set_fields`` and its inverse.

Each command stores the edits it applied and the inverse edits the core returned, so undo
is "apply the inverse" and redo is "apply the edits again", both as one transaction with
history rows. A burst (typing in one field, or moving exams on the board within a few
seconds) merges into one command and therefore one undo step (``mergeWith``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from PySide6.QtGui import QUndoCommand

from annotator.domain.labels import LabelEdit
from annotator.errors import AnnotatorError

if TYPE_CHECKING:
    from annotator.gui.workspace.session import CaseSession

MERGE_ID = 0x4E44  # any command with a merge key shares this id; mergeWith checks the key
MERGE_WINDOW_SECONDS = 8.0


def collapse(edits: list[LabelEdit]) -> list[LabelEdit]:
    """One edit per key with the last value, in the order keys first appear."""
    last: dict[str, LabelEdit] = {}
    order: list[str] = []
    for edit in edits:
        if edit.key not in last:
            order.append(edit.key)
        last[edit.key] = edit
    return [last[key] for key in order]


class EditCommand(QUndoCommand):
    """Apply label edits to one case's annotation; undo applies their inverse."""

    def __init__(
        self,
        session: CaseSession,
        case_id: str,
        edits: list[LabelEdit],
        text: str,
        merge_key: str | None = None,
    ) -> None:
        super().__init__(text)
        self.session = session
        self.case_id = case_id
        self.edits = list(edits)
        self.inverse: list[LabelEdit] | None = None
        self.merge_key = merge_key
        self.last_at = time.monotonic()

    def id(self) -> int:
        return MERGE_ID if self.merge_key else -1

    def redo(self) -> None:
        try:
            result = self.session.store(self.case_id, self.edits, self.text())
        except AnnotatorError as exc:
            self.session.report(exc)
            self.setObsolete(True)
            return
        if self.inverse is None:
            self.inverse = result.inverse
            if not result.changed:  # nothing changed: no empty undo step
                self.setObsolete(True)

    def undo(self) -> None:
        try:
            self.session.store(self.case_id, self.inverse or [], f"undo {self.text()}")
        except AnnotatorError as exc:
            self.session.report(exc)
            self.setObsolete(True)

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt's name
        if not isinstance(other, EditCommand) or other.case_id != self.case_id:
            return False
        if other.merge_key != self.merge_key or other.inverse is None:
            return False
        if other.last_at - self.last_at > MERGE_WINDOW_SECONDS:
            return False
        self.edits = collapse(self.edits + other.edits)
        # Undo the later command first, then this one: the earliest old value wins.
        self.inverse = collapse(other.inverse + (self.inverse or []))
        self.last_at = other.last_at
        self.setText(other.text())
        if {e.key: e.value for e in self.edits} == {e.key: e.value for e in self.inverse}:
            self.setObsolete(True)  # the burst came back to where it started
        return True
