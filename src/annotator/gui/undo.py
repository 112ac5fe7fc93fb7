"""The one undo command of every page: "set a field; undo writes back what the store replaced".

The command knows nothing about cases, SME verdicts or judged outputs: it is given a
``write`` callable that saves a value and returns the value the store replaced. Redo writes
the value, undo writes the replaced value back; both are ordinary saves, so both go to the
history. The replaced value is the store's answer, not what the page last showed, so undo
after someone else's change restores what was really there.

A save the store refuses (``AnnotatorError``) is reported and leaves no undo step. A burst
(typing in one field, moving exams on the board) merges into one step when the commands
share a ``merge_key``: ``combine`` folds two values into one (by default the later wins).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Any, Generic, TypeVar

from PySide6.QtGui import QUndoCommand, QUndoStack

from annotator.errors import AnnotatorError

V = TypeVar("V")

MERGE_ID = 0x4E44  # every command with a merge key shares this id; mergeWith checks the key


def later(_first: V, second: V) -> V:
    """The default ``combine``: a burst ends at its last value."""
    return second


def equal(value: object, replaced: object) -> bool:
    return value == replaced


class SetCommand(QUndoCommand, Generic[V]):
    """Write ``value`` through ``write``; undo writes back what ``write`` said it replaced.

    ``write(value, text)`` saves and returns the replaced value (``text`` names the step for
    the status line and is prefixed with "undo " when undoing); ``report`` shows a refusal.
    ``same(value, replaced)`` says the write changed nothing, so no empty step is kept.
    """

    def __init__(
        self,
        text: str,
        write: Callable[[V, str], V],
        value: V,
        report: Callable[[AnnotatorError], None],
        *,
        merge_key: Hashable | None = None,
        merge_window: float | None = None,
        combine: Callable[[V, V], V] = later,
        same: Callable[[V, V], bool] = equal,
    ) -> None:
        super().__init__(text)
        self.write, self.report = write, report
        self.value = value
        self.replaced: V | None = None
        self.written = False
        self.merge_key, self.merge_window = merge_key, merge_window
        self.combine, self.same = combine, same
        self.last_at = time.monotonic()

    def id(self) -> int:
        return MERGE_ID if self.merge_key is not None else -1

    def _save(self, value: V, text: str) -> V | None:
        try:
            return self.write(value, text)
        except AnnotatorError as exc:
            self.report(exc)
            self.setObsolete(True)
            return None

    def redo(self) -> None:
        replaced = self._save(self.value, self.text())
        if self.isObsolete() or self.written:
            return
        self.replaced, self.written = replaced, True
        if self.same(self.value, replaced):  # type: ignore[arg-type]
            self.setObsolete(True)  # nothing changed: no empty undo step

    def undo(self) -> None:
        self._save(self.replaced, f"undo {self.text()}")  # type: ignore[arg-type]

    def mergeWith(self, other: QUndoCommand) -> bool:  # noqa: N802 - Qt's name
        if not isinstance(other, SetCommand) or other.merge_key != self.merge_key:
            return False
        if not other.written or self.merge_key is None:
            return False
        if self.merge_window is not None and other.last_at - self.last_at > self.merge_window:
            return False
        self.value = self.combine(self.value, other.value)
        # Undo the later command first, then this one: the earliest replaced value wins.
        self.replaced = self.combine(other.replaced, self.replaced)  # type: ignore[arg-type]
        self.last_at = other.last_at
        self.setText(other.text())
        if self.same(self.value, self.replaced):  # type: ignore[arg-type]
            self.setObsolete(True)  # the burst came back to where it started
        return True


def push_field_set(
    stack: QUndoStack,
    item: Hashable,
    key: str,
    value: Any,
    save: Callable[[Any, str, Any], Any],
    report: Callable[[AnnotatorError], None],
    *,
    typed: bool = False,
) -> None:
    """Push the undoable set of field ``key`` of ``item``: ``save(item, key, value)`` writes
    it and returns the value it replaced. A burst of typing (``typed``) is one step."""

    def write(value: Any, _text: str) -> Any:
        return save(item, key, value)

    stack.push(SetCommand(f"{key} = {value}", write, value, report,
                          merge_key=(item, key) if typed else None))
