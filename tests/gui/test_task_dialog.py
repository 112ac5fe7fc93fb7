"""Long work on a worker thread with a progress dialog and Cancel (``gui/tasks.py``)."""

from __future__ import annotations

import threading
from typing import Any

from PySide6.QtWidgets import QPushButton, QWidget

from annotator.gui.tasks import run_task_in_background
from annotator.tasks import Cancelled, TaskState

PARENTS: list[QWidget] = []  # the page a dialog opens over lives as long as the test


def _run(qtbot: Any, proceed: threading.Event) -> tuple[Any, list[Any], list[BaseException]]:
    parent = QWidget()
    PARENTS.append(parent)
    qtbot.addWidget(parent)
    done: list[Any] = []
    failed: list[BaseException] = []

    def work(state: TaskState) -> str:
        state.progress(0.5, "half way")
        proceed.wait(10)  # the test decides when the work goes on
        state.check()  # a safe point
        state.progress(1.0, "done")
        return "result"

    progress = run_task_in_background(parent, "Working", work, done.append, failed.append)
    qtbot.waitUntil(lambda: progress.dialog.labelText() == "half way", timeout=5000)
    assert progress.dialog.value() == 500
    return progress, done, failed


def test_the_result_arrives_on_the_gui_thread(qtbot: Any) -> None:
    proceed = threading.Event()
    _progress, done, failed = _run(qtbot, proceed)
    proceed.set()
    qtbot.waitUntil(lambda: bool(done or failed), timeout=5000)
    assert done == ["result"] and failed == []


def test_cancel_stops_the_work_at_its_next_safe_point(qtbot: Any) -> None:
    proceed = threading.Event()
    progress, done, failed = _run(qtbot, proceed)
    progress.dialog.findChild(QPushButton).click()  # the dialog's Cancel button
    assert progress.state.cancelled and progress.dialog.labelText().startswith("Cancelling")
    proceed.set()
    qtbot.waitUntil(lambda: bool(done or failed), timeout=5000)
    assert done == [] and isinstance(failed[0], Cancelled)


def test_a_report_is_passed_on_before_the_dialog_lets_the_end_through(qtbot: Any) -> None:
    """A shown modal progress dialog processes events in ``setValue``: the work's end, queued
    behind a report, may be delivered inside it. The page must hear the report first, so that
    the end (its bar full) is what it is left showing."""
    from PySide6.QtCore import QTimer

    from annotator.gui.tasks import TaskProgress

    parent = QWidget()
    PARENTS.append(parent)
    qtbot.addWidget(parent)
    parent.show()
    progress = TaskProgress(parent, "Working")
    # Shown by its own clock (as after SHOW_AFTER_MS of work): setValue now processes events.
    progress.dialog.setMinimumDuration(0)
    progress.dialog.setValue(1)
    progress.dialog.setValue(2)
    assert progress.dialog.isVisible()
    heard: list[str] = []
    progress.progressed.connect(lambda fraction, _m: heard.append(f"report {fraction}"))
    progress._report(0.4, "step")  # queued, as from the worker thread
    QTimer.singleShot(0, lambda: heard.append("end"))  # queued behind it
    qtbot.waitUntil(lambda: "end" in heard, timeout=5000)
    assert heard == ["report 0.4", "end"]
