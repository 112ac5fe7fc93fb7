"""GUI figures for ``annotator bench``, run offscreen in a child process.

``python -m annotator.gui.bench_probe --empty`` shows an empty QMainWindow (the baseline);
``--project DIR --as NAME`` opens the annotate page, waits for the first image, then switches
cases. Prints one JSON line with wall-clock instants (``time.time()``, so the parent can
subtract its own start) and per-switch durations.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Any

SWITCHES = 12
TIMEOUT_S = 60.0  # a guard against a hang, not a target: CI machines are slow under load


def _spin_until(app: Any, done: Any, ticks: list[float]) -> None:
    """Process events until ``done()``, recording the time of every loop turn."""
    deadline = time.monotonic() + TIMEOUT_S
    while not done():
        app.processEvents()
        ticks.append(time.perf_counter())
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the GUI")
        time.sleep(0.0005)


def _longest_turn(ticks: list[float]) -> float:
    """The longest time between two recorded instants (0 when there is none)."""
    return max([0.0] + [b - a for a, b in zip(ticks, ticks[1:], strict=False)])


def _empty() -> dict[str, Any]:
    from PySide6.QtWidgets import QApplication, QMainWindow

    app = QApplication(sys.argv[:1])
    window = QMainWindow()
    window.resize(1280, 800)
    window.show()
    app.processEvents()
    window.grab()  # painted
    return {"shown_at": time.time()}


def _workspace(project_dir: str, user: str) -> dict[str, Any]:
    from annotator.gui.collect import pause_for_start

    pause_for_start()  # as the app starts (gui/app.py)
    from PySide6.QtCore import Qt
    from PySide6.QtTest import QTest
    from PySide6.QtWidgets import QApplication

    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow
    from annotator.gui.workers import prefer_the_gui_thread
    from annotator.store.project import open_project

    prefer_the_gui_thread()  # as the app does

    app = QApplication(sys.argv[:1])
    app.setStyle("Fusion")
    # A team store's login password as the command line takes it (``ANNOTATOR_PASSWORD``).
    project = open_project(project_dir, create=False, backup=False,
                           password=os.environ.get("ANNOTATOR_PASSWORD"))
    window = MainWindow(GuiContext(project, user))
    window.resize(1280, 800)
    window.show_page("annotate")
    window.show()
    page = window.page("annotate")
    ticks: list[float] = []
    _spin_until(app, window.ready, ticks)
    window.grab()
    first_image_at = time.time()
    switches: dict[str, list[float]] = {"image": [], "first": [], "thumbs": [], "blocked": [],
                                        "list": [], "list_gui": []}
    # The first switch comes, as every later one, once the page has settled (the next case
    # read ahead): a physician reads the first case before moving on. Those turns count as
    # GUI-thread blocks too.
    ticks = [time.perf_counter()]
    _spin_until(app, getattr(page, "settled", lambda: True), ticks)
    settle_block = _longest_turn(ticks)
    rows = [r.case_id for r in page.case_list.model.rows]
    for case_id in rows[1 : 1 + SWITCHES]:
        # A click on the case's row in the list, as the physician's (a case not read ahead
        # is read on a worker first, in versions with ``choose_case``).
        table = page.case_list.table
        index = page.case_list.model.index(page.case_list.model.row_of(case_id), 0)
        table.scrollTo(index)
        app.processEvents()  # scrolled before the switch is timed
        ticks = [time.perf_counter()]
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                         pos=table.visualRect(index).center())
        ticks.append(time.perf_counter())  # the call itself blocks the GUI thread
        # The case's first image painted: the figure the physician waits for. The rest of
        # the case (board, text, hidden tabs) follows in later turns; "first" is all of it.
        _spin_until(app, lambda c=case_id: page.session.case_id == c and page.viewer.ready(),
                    ticks)
        page.viewer.grab()
        switches["image"].append(time.perf_counter() - ticks[0])
        ticks.append(time.perf_counter())  # the probe's own paint is no turn of the app's
        _spin_until(app, page.ready, ticks)
        page.viewer.grab()
        switches["first"].append(time.perf_counter() - ticks[0])
        _spin_until(app, lambda: all(c.thumbnail is not None or not c.images
                                     for c in page.strip_model.cards), ticks)
        switches["thumbs"].append(time.perf_counter() - ticks[0])
        # A physician moves on seconds later: by then the next case has been read ahead
        # (turns that count as GUI-thread blocks too).
        _spin_until(app, getattr(page, "settled", lambda: True), ticks)
        switches["blocked"].append(_longest_turn(ticks))
        # What an edit of this case triggers once the list timer fires (the row, or the
        # whole list in versions without row updates).
        if hasattr(page, "_list_changed_cases"):
            page._list_changed_cases.add(case_id)
        start = time.perf_counter()
        page._list_timer.timeout.emit()
        # The timer's own turn on the GUI thread; then the row shown (read on a worker in
        # versions with ``busy``, so the two differ there).
        switches["list_gui"].append(time.perf_counter() - start)
        ticks = [time.perf_counter()]
        _spin_until(app, lambda: not getattr(page.case_list, "busy", lambda: False)(), ticks)
        switches["list"].append(time.perf_counter() - start)
        switches["blocked"].append(max(switches["list_gui"][-1], _longest_turn(ticks)))
    switches["blocked"].append(settle_block)
    window.close()
    return {"first_image_at": first_image_at, "switches": switches}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--empty", action="store_true")
    parser.add_argument("--project")
    parser.add_argument("--as", dest="user")
    args = parser.parse_args()
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    answer = _empty() if args.empty else _workspace(args.project, args.user)
    print(json.dumps(answer))
    return 0


if __name__ == "__main__":
    sys.exit(main())
