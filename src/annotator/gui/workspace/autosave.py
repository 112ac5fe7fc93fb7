"""Typed text saved after a short pause, not only when leaving the field.

A :class:`TextBinding` connects one text widget to a label: each keystroke restarts a
single-shot timer; when the typing pauses (or the field loses focus, or the session
flushes before a case switch, undo or submit) the text goes to the store as one edit.
Consecutive saves of the same field merge into one undo step (see ``gui.undo.SetCommand``),
so a burst of typing is one step and only a few store writes.
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject
from PySide6.QtWidgets import QComboBox, QPlainTextEdit

from annotator.domain.labels import LabelEdit
from annotator.gui.text_fields import TextWidget, TypingPause, set_widget_text, widget_text
from annotator.gui.workspace.session import CaseSession


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
        self.pause = TypingPause(self, self.flush, lambda: self.pending)
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
        self.pause.watch(widget)
        session.add_flusher(self.flush)
        # Per-case widgets (steps) are rebuilt; a destroyed field must not be flushed.
        widget.destroyed.connect(lambda *_: session.remove_flusher(self.flush))

    def _chosen(self, _index: int) -> None:
        """A spelling picked from the list is saved at once."""
        self._typed()
        self.flush()

    def _typed(self, *_args: object) -> None:
        self.pending = True
        self.pause.typed()

    def flush(self) -> None:
        """Save the pending text now (no-op when nothing was typed)."""
        self.pause.stop()
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
