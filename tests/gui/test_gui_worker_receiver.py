"""A background result whose page was destroyed meanwhile (rebuilt in a new theme, or dropped
on a user switch) is dropped, not delivered to a deleted widget."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLabel, QWidget

pytestmark = pytest.mark.gui


class _Page(QWidget):
    def __init__(self) -> None:
        super().__init__()
        self.label = QLabel(self)

    def show_result(self, text: str) -> None:
        self.label.setText(text)  # RuntimeError on a deleted page


def test_a_result_for_a_destroyed_page_is_dropped(qtbot) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QThreadPool
    from shiboken6 import delete

    from annotator.gui.workers import run_in_background

    alive, gone = _Page(), _Page()
    qtbot.addWidget(alive)
    pool = QThreadPool()
    run_in_background(lambda: "kept", alive.show_result, pool=pool)
    run_in_background(lambda: "dropped", gone.show_result, pool=pool)
    delete(gone)
    pool.waitForDone(5_000)
    qtbot.waitUntil(lambda: alive.label.text() == "kept")


def test_a_result_for_a_closure_over_a_destroyed_page_is_dropped(qtbot) -> None:  # type: ignore[no-untyped-def]
    """Pages pass nested functions (``def loaded(found): self.queue...``), not bound methods:
    the result is dropped when the page the closure holds is gone."""
    from PySide6.QtCore import QThreadPool
    from shiboken6 import delete

    from annotator.gui.workers import run_in_background

    alive, gone = _Page(), _Page()
    qtbot.addWidget(alive)

    def closure_of(page: _Page):  # type: ignore[no-untyped-def]
        def loaded(text: str) -> None:
            page.label.setText(text)
        return loaded

    pool = QThreadPool()
    run_in_background(lambda: "kept", closure_of(alive), pool=pool)
    run_in_background(lambda: "dropped", closure_of(gone), pool=pool)
    delete(gone)
    pool.waitForDone(5_000)
    qtbot.waitUntil(lambda: alive.label.text() == "kept")


def test_many_background_results_leave_the_count_of_true_alone(qtbot) -> None:  # type: ignore[no-untyped-def]
    """PySide6 6.12.0's ``SignalInstance.emit`` (and ``disconnect``) steal a reference to True
    on each call: after a few thousand emits the interpreter aborts ("bool_dealloc"), at exit
    or mid-session. pyproject.toml keeps PySide6 below 6.12, and relays are released by
    deletion, not ``disconnect``; each result here is one emit and one release."""
    import sys

    from PySide6.QtCore import QThreadPool

    from annotator.gui.workers import run_in_background

    page = _Page()
    qtbot.addWidget(page)
    got: list[int] = []
    pool = QThreadPool()
    before = sys.getrefcount(True)
    for n in range(2000):
        run_in_background(lambda n=n: n, got.append, pool=pool)
    pool.waitForDone(30_000)
    qtbot.waitUntil(lambda: len(got) == 2000, timeout=30_000)
    assert sys.getrefcount(True) > before - 1000  # two stolen per result would be -4000
