"""Python's cycle collector runs on the GUI thread only.

CPython collects cycles in whichever thread happens to allocate when a generation's threshold
is crossed. When that is a worker thread (a store read in ``run_in_background``) and the
garbage holds a Qt object (a page dropped by a theme rebuild), its C++ destructor runs off
the GUI thread and the process can crash (seen in CI: a segmentation fault inside a worker's
query compilation while "Garbage-collecting"). As pyqtgraph's ``GarbageCollector`` does,
automatic collection is switched off while the GUI runs and a timer on the GUI thread
collects with the interpreter's own thresholds.
"""

from __future__ import annotations

import gc

from PySide6.QtCore import QCoreApplication, QObject, QThread, QTimer
from shiboken6 import isValid

INTERVAL_MS = 500


class GuiThreadCollector(QObject):
    """Owns the collection while it lives: ``gc`` is disabled, its timer collects."""

    def __init__(self, app: QCoreApplication) -> None:
        super().__init__(app)
        self.thresholds = gc.get_threshold()
        self.timer = QTimer(self)
        self.timer.timeout.connect(self.check)
        self.timer.start(INTERVAL_MS)
        gc.disable()

    def check(self) -> None:
        """Collect the oldest generation whose count crossed its threshold, as CPython would."""
        counts = gc.get_count()
        generation = -1
        for level in range(3):
            if counts[level] > self.thresholds[level]:
                generation = level
        if generation >= 0:
            gc.collect(generation)

    def stop(self) -> None:
        self.timer.stop()
        gc.enable()
        gc.collect()


_collector: GuiThreadCollector | None = None


def collect_on_gui_thread() -> None:
    """Switch collection to the GUI thread (idempotent; call it from the GUI thread)."""
    global _collector
    app = QCoreApplication.instance()
    if app is None or QThread.currentThread() is not app.thread():
        return
    if _collector is None or not isValid(_collector):
        _collector = GuiThreadCollector(app)


def restore_automatic_collection() -> None:
    """Give collection back to the interpreter (tests, between GUI tests)."""
    global _collector
    if _collector is not None and isValid(_collector):
        _collector.stop()
        _collector.deleteLater()
    _collector = None
    gc.enable()
