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
