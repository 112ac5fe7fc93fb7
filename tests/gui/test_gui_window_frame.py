"""The window itself: its size and page survive a restart, a first start fits the screen,
Ctrl+Q quits, and the page bar shows every page in full (no scroll buttons)."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest
from PySide6.QtCore import QPoint, QSize, Qt
from PySide6.QtWidgets import QToolButton

pytestmark = pytest.mark.gui

PAGE_IDS = ["desk", "annotate", "sme", "review", "agreement", "judge", "export"]


def _gui_args(project_dir: Path, **given: object) -> argparse.Namespace:
    """What ``annotator --project DIR --as a1 gui`` parses to (with ``given`` options)."""
    from annotator.cli import build_parser

    args = build_parser().parse_args(["--project", str(project_dir), "--as", "a1", "gui"])
    for key, value in given.items():
        setattr(args, key, value)
    return args


def _open(qtbot, args: argparse.Namespace):  # type: ignore[no-untyped-def]
    from annotator.gui.app import open_window

    window = open_window(args)
    qtbot.addWidget(window)
    return window


def test_the_saved_window_size_is_used(qtbot, make_window, project_dir) -> None:  # type: ignore[no-untyped-def]
    first = make_window()
    first.resize(first.width(), 600)
    first.close()  # remembers the geometry
    again = _open(qtbot, _gui_args(project_dir))
    # Not 1600 x 1000 (screenshots) nor the first start's size. Only the height is compared:
    # the offscreen screen is 800 px wide, narrower than the window's minimum width, so Qt
    # fits the restored width to it.
    assert again.height() == 600
    again.context.project.close()


def test_an_explicit_size_still_wins(qtbot, make_window, project_dir) -> None:  # type: ignore[no-untyped-def]
    make_window().close()
    again = _open(qtbot, _gui_args(project_dir, size="1366x768"))
    assert again.size() == QSize(1366, 768)
    again.context.project.close()


def test_the_last_page_is_restored(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    first = make_window(user="cu")  # a curator sees every page
    first.show_page("agreement")
    first.close()
    again = make_window(user="cu")
    assert again.page_ids[again.tabs.currentIndex()] == "agreement"
    assert again.stack.currentWidget() is again.built["agreement"]


def test_a_first_start_fits_the_available_screen(qtbot, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow

    window = MainWindow(GuiContext(gui_project, "a1"))  # nothing remembered yet
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    available = window.screen().availableGeometry()
    # The offscreen test screen (800 x 800) is narrower than the window's minimum width, so
    # only the height is checked here; first_start_geometry is checked on real screen sizes.
    assert available.top() <= window.frameGeometry().top()
    assert window.frameGeometry().bottom() <= available.bottom()
    # and uses most of it, rather than Qt's small default (533 x 100 before)
    assert window.height() >= 0.8 * available.height()


@pytest.mark.parametrize(
    ("free", "expected"),
    [((0, 0, 1366, 740), (1326, 700)), ((0, 0, 3840, 2120), (1600, 1000)),
     ((1920, 30, 1600, 1170), (1560, 1000))],
)
def test_the_first_start_size_leaves_room_for_the_frame(free, expected) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QRect

    from annotator.gui.main_window import first_start_geometry

    area = QRect(*free)
    placed = first_start_geometry(area)
    assert (placed.width(), placed.height()) == expected
    assert area.contains(placed) and placed.center() == area.center()


def test_ctrl_q_quits_through_the_action_registry(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window()
    assert window.registry.shortcut("app.quit") == "Ctrl+Q"
    assert ("Window", "Quit", "Ctrl+Q") in window.registry.sheet()
    qtbot.keyClick(window, Qt.Key.Key_Q, Qt.KeyboardModifier.ControlModifier)
    assert not window.isVisible()


def _page_bar_in_full(window) -> None:  # type: ignore[no-untyped-def]
    tabs = window.tabs
    assert not [b for b in tabs.findChildren(QToolButton) if b.isVisible()], "scroll buttons"
    assert tabs.width() >= tabs.sizeHint().width()
    for i in range(tabs.count()):
        assert tabs.rect().contains(tabs.tabRect(i)), tabs.tabText(i)
    right_edge = tabs.mapTo(window, QPoint(tabs.width(), 0)).x()
    assert right_edge <= window.width()


@pytest.mark.parametrize("size", ["1366x768", "1600x1000", "700x500"])
def test_the_page_bar_never_clips(qtbot, make_window, size) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtWidgets import QApplication

    window = make_window(user="cu", size=size)  # the curator's bar is the widest
    for page_id in PAGE_IDS:
        window.show_page(page_id)
        QApplication.processEvents()
        _page_bar_in_full(window)


def test_screenshots_neither_restore_nor_save_the_window(  # type: ignore[no-untyped-def]
    qtbot, make_window, project_dir, tmp_path
) -> None:
    from PySide6.QtCore import QSettings

    first = make_window(user="cu")
    first.show_page("export")
    first.resize(first.width(), 600)
    first.close()
    saved = QSettings().value("window/geometry")
    shot = _open(qtbot, _gui_args(project_dir, screenshot=str(tmp_path / "s.png")))
    assert shot.page_ids[shot.tabs.currentIndex()] == "annotate"  # the same on every machine
    assert shot.size() == QSize(1600, 1000)
    shot.show_page("sme")
    shot.close()
    assert QSettings().value("window/page") == "export"
    assert QSettings().value("window/geometry") == saved
    shot.context.project.close()
