"""Measured active time on any page of rated work: input events feed an ``ActiveClock``.

Only input while the page is visible and its window is active counts; the measured seconds
go to the store about once a minute and whenever the rater leaves the item. The Annotate page
stores them on the case (``workspace.activity``); the SME and judge pages through the rating
engine's ``add_active_time`` (issue 26: time on task on all three pages).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QEvent, QObject, QTimer
from PySide6.QtWidgets import QApplication, QWidget

from annotator.services.workspace_state import ActiveClock

FLUSH_EVERY_MS = 60_000
# After an input the application's events are not looked at for this long: the filter is a
# Python call for every event of every object (about 900 in a case switch's turns, 4-5 ms
# of the longest turn on a team store). At most this much of a burst's end goes uncounted.
DEAF_AFTER_INPUT_MS = 500
_INPUT = {
    QEvent.Type.KeyPress,
    QEvent.Type.ShortcutOverride,  # a key that triggers a shortcut never arrives as KeyPress
    QEvent.Type.MouseButtonPress,
    QEvent.Type.MouseMove,
    QEvent.Type.Wheel,
}


class ItemActivity(QObject):
    """Watches the application's input events and stores active time per item.

    ``current`` names the item on screen (None: none); ``store(item, seconds)`` saves it.
    """

    def __init__(
        self, page: QWidget, current: Callable[[], Any], store: Callable[[Any, float], Any]
    ) -> None:
        super().__init__(page)
        self.page = page
        self.current = current
        self.store = store
        self.clock = ActiveClock()
        self.timer = QTimer(self)
        self.timer.setInterval(FLUSH_EVERY_MS)
        self.timer.timeout.connect(self._tick)
        self.timer.start()
        self._deaf = QTimer(self)
        self._deaf.setSingleShot(True)
        self._deaf.setInterval(DEAF_AFTER_INPUT_MS)
        self._deaf.timeout.connect(lambda: self._listen(True))
        self._listen(True)

    def _listen(self, on: bool) -> None:
        app = QApplication.instance()
        if app is None:
            return
        if on:  # Qt drops a destroyed filter by itself (its filter list holds QPointers)
            app.installEventFilter(self)
        else:  # safe from within eventFilter (QObject::removeEventFilter)
            app.removeEventFilter(self)
            self._deaf.start()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # noqa: N802 - Qt's name
        if event.type() in _INPUT and self.page.isVisible() and self.page.isActiveWindow():
            self.clock.touch(time.monotonic())
            self._listen(False)
        return False

    def pending(self) -> float:
        return self.clock.pending

    def _tick(self) -> None:
        item = self.current()
        if item is not None and self.clock.pending >= 1.0:
            self.flush(item, leaving=False)

    def flush(self, item: Any, *, leaving: bool = True) -> None:
        """Store the seconds measured on ``item`` (and forget the last input when leaving)."""
        seconds = self.clock.take()
        if leaving:
            self.clock.pause()
        if seconds >= 1.0 and item is not None:
            self.store(item, seconds)
