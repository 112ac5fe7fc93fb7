"""Pages dropped by a theme rebuild are freed on the GUI thread, never by a cycle collection
that happens to run on a worker thread (which destroyed their Python-owned Qt objects off
their thread: the rare segmentation fault of CI, gui/collect.py)."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Any

import pytest
from PySide6.QtCore import QThreadPool

from annotator.gui import collect, theme
from annotator.gui.main_window import MainWindow

pytestmark = pytest.mark.gui


def test_pages_dropped_by_theme_rebuilds_die_on_the_gui_thread(  # type: ignore[no-untyped-def]
    qtbot, make_window, qapp, monkeypatch
) -> None:
    on_gui_thread: list[bool] = []
    drop = MainWindow._drop_pages

    def watched_drop(self: Any) -> None:
        for page in self.built.values():
            weakref.finalize(page, lambda: on_gui_thread.append(
                threading.current_thread() is threading.main_thread()))
        drop(self)

    monkeypatch.setattr(MainWindow, "_drop_pages", watched_drop)
    threshold = gc.get_threshold()
    gc.set_threshold(50, 5, 5)  # collections as often as a busy worker would start them
    try:
        window = make_window(user="cu")
        for i in range(8):  # each page loads off the GUI thread while the next rebuild comes
            for page_id in ("desk", "review", "agreement"):
                window.show_page(page_id)
            window.set_theme("dark" if i % 2 == 0 else "light")
            qtbot.wait(10)
        QThreadPool.globalInstance().waitForDone(10_000)
        qtbot.wait(50)
    finally:
        gc.set_threshold(*threshold)
        theme.apply(qapp, "light", 1.0)
    # The app's own collection, on the GUI thread, once more: a page that a worker still held
    # at the last one survived it and was frozen with what lives on, until the next one.
    collect.collect_soon()
    qtbot.waitUntil(lambda: not collect._pending, timeout=5_000)
    assert len(on_gui_thread) >= 8 * 3
    assert all(on_gui_thread), f"{on_gui_thread.count(False)} pages freed on a worker thread"
