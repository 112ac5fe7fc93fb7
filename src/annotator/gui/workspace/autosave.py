"""Typed text saved after a short pause, not only when leaving the field.

A :class:`TextBinding` connects one text widget to a label: each keystroke restarts a
single-shot timer; when the typing pauses (or the field loses focus, or the session
flushes before a case switch, undo or submit) the text goes to the store as one edit.
Consecutive saves of the same field merge into one undo step (see ``gui.undo.SetCommand``),
so a burst of typing is one step and only a few store writes.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit

from annotator.domain.labels import LabelEdit
from annotator.gui.workspace.session import CaseSession

PAUSE_MS = 700
TextWidget = QLineEdit | QPlainTextEdit | QComboBox


def widget_text(widget: TextWidget) -> str:
    if isinstance(widget, QPlainTextEdit):
        return widget.toPlainText()
    if isinstance(widget, QComboBox):
        return widget.currentText()
    return widget.text()


def set_widget_text(widget: TextWidget, text: str) -> None:
    """Show ``text`` without emitting change signals (so showing never saves)."""
    if widget_text(widget) == text:
        return
    blocked = widget.blockSignals(True)
    try:
        if isinstance(widget, QPlainTextEdit):
            widget.setPlainText(text)
        elif isinstance(widget, QComboBox):
            widget.setEditText(text)
        else:
            widget.setText(text)
            widget.setCursorPosition(0)
    finally:
        widget.blockSignals(blocked)


class TextBinding(QObject):
    """Save a text widget's content through ``build(text) -> edits`` after a pause."""

    def __init__(
        self,
        session: CaseSession,
        widget: TextWidget,
        key: Callable[[], str],
        build: Callable[[str], list[LabelEdit]],
        current: Callable[[], str],
        label: Callable[[], str],
    ) -> None:
        super().__init__(widget)
        self.session = session
        self.widget = widget
        self.key = key  # the label key now (per-exam fields change with the exam)
        self.build = build
        self.current = current  # the value to show (the fix, else the draft's value)
        self.label = label  # for undo texts: "comment", "caption of Figure 2"
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(PAUSE_MS)
        self.timer.timeout.connect(self.flush)
        self.pending = False
        # (key, stored value) right after this field saved: while the store still holds
        # that, the field keeps what was typed (trailing spaces, cursor) untouched.
        self.echo: tuple[str, str] | None = None
        self.saving = False
        if isinstance(widget, QPlainTextEdit):
            widget.textChanged.connect(self._typed)
        elif isinstance(widget, QComboBox):
            widget.editTextChanged.connect(self._typed)
            widget.activated.connect(self._chosen)
        else:
            widget.textEdited.connect(self._typed)
            widget.editingFinished.connect(self.flush)
        widget.installEventFilter(self)
        session.add_flusher(self.flush)
        # Per-case widgets (steps) are rebuilt; a destroyed field must not be flushed.
        widget.destroyed.connect(lambda *_: session.remove_flusher(self.flush))

    def _chosen(self, _index: int) -> None:
        """A spelling picked from the list is saved at once."""
        self._typed()
        self.flush()

    def _typed(self, *_args: object) -> None:
        self.pending = True
        self.timer.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.FocusOut and self.pending:
            self.flush()
        return False

    def flush(self) -> None:
        """Save the pending text now (no-op when nothing was typed)."""
        self.timer.stop()
        if not self.pending:
            return
        self.pending = False
        text = widget_text(self.widget)
        if text == self.current():
            return
        self.saving = True  # the store's echo of this save must not rewrite the field
        try:
            self.session.apply(
                self.build(text), f"edit {self.label()}", merge_key=f"text:{self.key()}"
            )
        finally:
            self.saving = False
        self.echo = (self.key(), self.current())

    def refresh(self) -> None:
        """Show the stored value, unless the annotator is typing or it is their own echo."""
        if self.pending or self.saving:
            return
        if self.echo == (self.key(), self.current()):
            return
        self.echo = None
        set_widget_text(self.widget, self.current())
