"""Text fields on every page: their text read and shown (showing never saves), and typed
text saved when the typing pauses or the field loses focus.

:class:`TypingPause` owns the single-shot timer a keystroke restarts and the focus-out
watch; the page's form says what is pending and how to save it (``flush``).
"""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QComboBox, QLineEdit, QPlainTextEdit, QWidget

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


class TypingPause(QObject):
    """Calls ``flush`` once typing has paused for :data:`PAUSE_MS`, or when a watched field
    loses focus while ``pending()`` says something typed is not saved yet."""

    def __init__(self, parent: QObject, flush: Callable[[], None],
                 pending: Callable[[], bool]) -> None:
        super().__init__(parent)
        self.flush = flush
        self.pending = pending
        self.timer = QTimer(self)
        self.timer.setSingleShot(True)
        self.timer.setInterval(PAUSE_MS)
        self.timer.timeout.connect(flush)

    def watch(self, widget: QWidget) -> None:
        widget.installEventFilter(self)

    def typed(self) -> None:
        """A keystroke: the pause starts again."""
        self.timer.start()

    def stop(self) -> None:
        self.timer.stop()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() == QEvent.Type.FocusOut and self.pending():
            self.flush()
        return False
