"""Measured active time: input events on the page feed an ``ActiveClock``.

Only input while the page is visible and its window is active counts; the measured seconds
go to the store about once a minute and whenever the annotator leaves the case.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from annotator.gui.workspace.session import CaseSession
from annotator.services.workspace_state import ActiveClock

FLUSH_EVERY_MS = 60_000
_INPUT = {
    QEvent.Type.KeyPress,
    QEvent.Type.ShortcutOverride,  # a key that triggers a shortcut never arrives as KeyPress
    QEvent.Type.MouseButtonPress,
    QEvent.Type.MouseMove,
    QEvent.Type.Wheel,
}


class ActivityTracker(QObject):
    """Watches the application's input events and stores active time per case."""

    def __init__(self, page: QWidget, session: CaseSession) -> None:
        super().__init__(page)
        self.page = page
        self.session = session
        self.clock = ActiveClock()
        self.timer = QTimer(self)
        self.timer.setInterval(FLUSH_EVERY_MS)
        self.timer.timeout.connect(self._tick)
        self.timer.start()
        app = QApplication.instance()
        if app is not None:
            # Qt drops a destroyed filter by itself (its filter list holds QPointers).
            app.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() in _INPUT and self.page.isVisible() and self.page.isActiveWindow():
            self.clock.touch(time.monotonic())
        return False

    def pending(self) -> float:
        return self.clock.pending

    def _tick(self) -> None:
        if self.session.case_id is not None and self.clock.pending >= 1.0:
            self.flush(self.session.case_id, leaving=False)

    def flush(self, case_id: str, *, leaving: bool = True) -> None:
        """Store the seconds measured on ``case_id`` (and forget the last input when leaving)."""
        seconds = self.clock.take()
        if leaving:
            self.clock.pause()
        if seconds >= 1.0:
            self.session.add_active_time(case_id, seconds)
