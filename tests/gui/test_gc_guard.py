"""Cycle collection happens on the GUI thread while the GUI runs (gui/gc_guard.py)."""

from __future__ import annotations

import gc
import threading
import weakref

from annotator.gui.gc_guard import collect_on_gui_thread, restore_automatic_collection
from annotator.gui.workers import run_in_background


class _Node:
    def __init__(self) -> None:
        self.me = self  # a cycle: only the cycle collector frees it


def test_a_worker_task_switches_collection_to_the_gui_thread(qtbot) -> None:  # type: ignore[no-untyped-def]
    results: list[object] = []
    run_in_background(lambda: threading.current_thread() is threading.main_thread(),
                      results.append)
    assert not gc.isenabled()
    qtbot.waitUntil(lambda: results == [False])
    restore_automatic_collection()
    assert gc.isenabled()


def test_the_gui_thread_timer_frees_cycles_with_the_interpreters_thresholds(qtbot) -> None:  # type: ignore[no-untyped-def]
    collect_on_gui_thread()
    try:
        node = _Node()
        gone = weakref.ref(node)
        del node
        # Enough new objects to cross generation 0's threshold; nothing collects them but the timer.
        keep = [_Node() for _ in range(gc.get_threshold()[0] + 10)]
        assert gone() is not None
        qtbot.waitUntil(lambda: gone() is None, timeout=5_000)
        assert keep
    finally:
        restore_automatic_collection()
