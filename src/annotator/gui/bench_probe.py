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


def _spin_until(app: Any, done: Any, turns: list[float]) -> None:
    """Process events until ``done()``, recording how long each loop turn held the GUI
    thread (the probe's own checks, paints and pauses between turns are not the app's)."""
    deadline = time.monotonic() + TIMEOUT_S
    while not done():
        start = time.perf_counter()
        app.processEvents()
        turns.append(time.perf_counter() - start)
        if time.monotonic() > deadline:
            raise SystemExit("timed out waiting for the GUI")
        time.sleep(0.0005)


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
    turns: list[float] = []
    _spin_until(app, window.ready, turns)
    window.grab()
    first_image_at = time.time()
    switches: dict[str, list[float]] = {"image": [], "first": [], "thumbs": [], "blocked": [],
                                        "list": [], "list_gui": []}
    # The first switch comes, as every later one, once the page has settled (the next case
    # read ahead): a physician reads the first case before moving on. Those turns count as
    # GUI-thread blocks too.
    turns = []
    _spin_until(app, getattr(page, "settled", lambda: True), turns)
    settle_block = max(turns, default=0.0)
    rows = [r.case_id for r in page.case_list.model.rows]
    for case_id in rows[1 : 1 + SWITCHES]:
        # A click on the case's row in the list, as the physician's (a case not read ahead
        # is read on a worker first, in versions with ``choose_case``).
        table = page.case_list.table
        index = page.case_list.model.index(page.case_list.model.row_of(case_id), 0)
        table.scrollTo(index)
        app.processEvents()  # scrolled before the switch is timed
        start = time.perf_counter()
        QTest.mouseClick(table.viewport(), Qt.MouseButton.LeftButton,
                         pos=table.visualRect(index).center())
        turns = [time.perf_counter() - start]  # the click's own handling is a turn
        # The case's first image painted: the figure the physician waits for. The rest of
        # the case (board, text, hidden tabs) follows in later turns; "first" is all of it.
        # The probe's grabs paint the viewer once more to be sure it is on screen: they
        # count in the times from the click, not as turns of the app's.
        _spin_until(app, lambda c=case_id: page.session.case_id == c and page.viewer.ready(),
                    turns)
        page.viewer.grab()
        switches["image"].append(time.perf_counter() - start)
        _spin_until(app, page.ready, turns)
        page.viewer.grab()
        switches["first"].append(time.perf_counter() - start)
        _spin_until(app, lambda: all(c.thumbnail is not None or not c.images
                                     for c in page.strip_model.cards), turns)
        switches["thumbs"].append(time.perf_counter() - start)
        # A physician moves on seconds later: by then the next case has been read ahead
        # (turns that count as GUI-thread blocks too).
        _spin_until(app, getattr(page, "settled", lambda: True), turns)
        switches["blocked"].append(max(turns))
        # What an edit of this case triggers once the list timer fires (the row, or the
        # whole list in versions without row updates).
        if hasattr(page, "_list_changed_cases"):
            page._list_changed_cases.add(case_id)
        start = time.perf_counter()
        page._list_timer.timeout.emit()
        # The timer's own turn on the GUI thread; then the row shown (read on a worker in
        # versions with ``busy``, so the two differ there).
        switches["list_gui"].append(time.perf_counter() - start)
        turns = [switches["list_gui"][-1]]
        _spin_until(app, lambda: not getattr(page.case_list, "busy", lambda: False)(), turns)
        switches["list"].append(time.perf_counter() - start)
        switches["blocked"].append(max(turns))
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
