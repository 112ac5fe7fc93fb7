"""Long work off the GUI thread with a progress dialog and Cancel (the GUI side of ``tasks``).

``run_task_in_background(parent, title, work, on_done, on_error)`` runs ``work(state)`` (a
service call taking the core's :class:`~annotator.tasks.TaskState`) on Qt's thread pool
through ``workers.run_in_background``. The state's progress reaches a window-modal
``QProgressDialog`` through a queued signal; the dialog's Cancel asks the work to stop at
its next safe point, which then fails with ``Cancelled`` (handed to ``on_error`` like any
refusal). The dialog appears only for work that lasts (``SHOW_AFTER_MS``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject, Qt, Signal, Slot
from PySide6.QtWidgets import QProgressDialog, QWidget

from annotator.gui.workers import run_in_background
from annotator.tasks import TaskState, run_task

STEPS = 1000
SHOW_AFTER_MS = 400


class TaskProgress(QObject):
    """The dialog of one task; ``progressed`` repeats the state's reports on the GUI thread."""

    progressed = Signal(float, str)
    """(fraction, message), on the GUI thread."""
    _reported = Signal(float, str)  # emitted on the worker thread, delivered queued

    def __init__(self, parent: QWidget, title: str) -> None:
        super().__init__(parent)
        self.state = TaskState(self._report)
        self.dialog = QProgressDialog(title, "Cancel", 0, STEPS, parent)
        self.dialog.setWindowTitle(title)
        self.dialog.setWindowModality(Qt.WindowModality.WindowModal)
        self.dialog.setMinimumDuration(SHOW_AFTER_MS)
        self.dialog.setAutoReset(False)
        self.dialog.setAutoClose(False)
        self.dialog.canceled.connect(self.cancel)
        self._reported.connect(self._show, Qt.ConnectionType.QueuedConnection)
        self.dialog.setValue(0)

    def _report(self, fraction: float, message: str) -> None:
        """On the worker thread: pass the report on (dropped once the page is gone)."""
        try:
            self._reported.emit(fraction, message)
        except RuntimeError:
            pass  # the dialog's window closed while the work ran; the work goes on unheard

    @Slot(float, str)
    def _show(self, fraction: float, message: str) -> None:
        # Passed on first: a modal dialog's setValue processes events, which may deliver
        # the task's end, and a report passed on after it would show an earlier step.
        self.progressed.emit(fraction, message)
        if not self.state.cancelled:
            self.dialog.setValue(round(fraction * STEPS))
            self.dialog.setLabelText(message)

    def cancel(self) -> None:
        """Ask the work to stop; it stops at its next safe point."""
        self.state.cancel()
        self.dialog.setLabelText("Cancelling: finishing the step under way...")

    def finish(self) -> None:
        try:
            self.dialog.reset()
            self.dialog.hide()
            self.dialog.deleteLater()
            self.deleteLater()
        except RuntimeError:
            pass  # the window that held the dialog is gone already


def run_task_in_background(
    parent: QWidget,
    title: str,
    work: Callable[[TaskState], Any],
    on_done: Callable[[Any], None],
    on_error: Callable[[BaseException], None],
) -> TaskProgress:
    """Run ``work(state)`` on a worker thread with a progress dialog; results on the GUI thread."""
    progress = TaskProgress(parent, title)

    def done(result: Any) -> None:
        progress.finish()
        on_done(result)

    def fail(exc: BaseException) -> None:
        progress.finish()
        on_error(exc)

    run_in_background(lambda: run_task(work, progress.state), done, fail)
    return progress
