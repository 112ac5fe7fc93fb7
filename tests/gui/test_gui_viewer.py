"""The image viewer: decoding off the GUI thread, slices, zoom, window/level, prefetch."""

from __future__ import annotations

import threading

import pytest
from PySide6.QtCore import QPoint, QPointF, Qt, QTimer

pytestmark = pytest.mark.gui


def test_event_loop_runs_during_a_slow_decode(qtbot, make_window, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.workspace import images

    release = threading.Event()
    started = threading.Event()
    real = images.default_decoder

    def slow_decoder(data: bytes, frame: int, key: str):  # type: ignore[no-untyped-def]
        started.set()
        release.wait(timeout=30)  # blocks a worker thread until the test lets it go
        return real(data, frame, key)

    monkeypatch.setattr(images, "default_decoder", slow_decoder)
    window = make_window(case_id="D1")
    page = window.page("annotate")
    ticks: list[int] = []
    timer = QTimer()
    timer.setInterval(5)
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start()
    qtbot.waitUntil(started.is_set, timeout=5_000)
    # the GUI thread keeps serving events while the decoder is stuck
    qtbot.waitUntil(lambda: len(ticks) >= 20, timeout=5_000)
    assert not page.viewer.ready()
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, "e")  # and keeps taking work from the physician
    assert page.session.labels["importance:Figure 1"]["value"] == "essential"
    release.set()
    qtbot.waitUntil(page.viewer.ready, timeout=10_000)
    timer.stop()
    assert page.viewer.frame is not None and page.viewer.frame.modality == "CT"


def test_frames_scroll_by_wheel_and_arrow_keys(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(case_id="D1")
    page = window.page("annotate")
    page.select_exam("Figure 2")  # a 15-frame DICOM
    viewer = page.viewer
    qtbot.waitUntil(viewer.ready, timeout=10_000)
    assert len(viewer.slices) == 15 and viewer.index == 7  # starts on the middle frame
    viewer.setFocus()
    qtbot.keyClick(viewer, Qt.Key.Key_Down)
    assert viewer.index == 8
    qtbot.waitUntil(viewer.ready, timeout=10_000)
    assert viewer.frame is not None and viewer.frame.frame == 8
    qtbot.keyClick(viewer, Qt.Key.Key_Up)
    qtbot.keyClick(viewer, Qt.Key.Key_Up)
    assert viewer.index == 6
    from PySide6.QtGui import QWheelEvent

    wheel = QWheelEvent(QPointF(50, 50), QPointF(50, 50), QPoint(0, 0), QPoint(0, -120),
                        Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier,
                        Qt.ScrollPhase.NoScrollPhase, False)
    viewer.wheelEvent(wheel)
    assert viewer.index == 7


def test_zoom_fit_window_level_presets_and_invert(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(case_id="D1")
    page = window.page("annotate")
    viewer = page.viewer
    qtbot.waitUntil(viewer.ready, timeout=10_000)
    assert viewer.is_ct() and page.viewer_bar.presets.isEnabled()
    viewer.setFocus()
    qtbot.keyClick(viewer, "=")
    assert not viewer.fit_mode and viewer.scale() == 1.0
    qtbot.keyClick(viewer, "f")
    assert viewer.fit_mode
    default = viewer.frame.window
    qtbot.mousePress(viewer, Qt.MouseButton.LeftButton, pos=QPoint(100, 100))
    qtbot.mouseMove(viewer, QPoint(160, 80))
    qtbot.mouseRelease(viewer, Qt.MouseButton.LeftButton, pos=QPoint(160, 80))
    center, width = viewer.level_window
    assert width > default[1] and center < default[0]  # right widens, up lowers the level
    qtbot.keyClick(viewer, "w")
    assert viewer.level_window is None
    qtbot.keyClick(viewer, Qt.Key.Key_4, Qt.KeyboardModifier.AltModifier)  # bone
    assert viewer.level_window == (600.0, 2800.0)
    before = viewer._image.pixel(64, 64)
    qtbot.keyClick(viewer, "i")
    assert viewer.inverted and viewer._image.pixel(64, 64) != before
    # "+" and "-" zoom the image; Ctrl+= and Ctrl+- scale the whole interface.
    qtbot.keyClick(viewer, Qt.Key.Key_Plus)
    assert not viewer.fit_mode
    centre = QPointF(viewer.center)
    qtbot.mousePress(viewer, Qt.MouseButton.RightButton, pos=QPoint(100, 100))
    qtbot.mouseMove(viewer, QPoint(140, 100))
    qtbot.mouseRelease(viewer, Qt.MouseButton.RightButton, pos=QPoint(140, 100))
    assert viewer.center.x() < centre.x() and viewer.center.y() == centre.y()  # panned
    qtbot.keyClick(viewer, "f")
    assert viewer.fit_mode


def test_next_case_images_are_prefetched(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(case_id="D1")
    page = window.page("annotate")
    assert page.case_list.neighbour("D1", 1) == "T1"  # case ids sort naturally: D1 first
    from annotator.services import workspace

    following = workspace.case_images(page.project, "a1", "T1")
    first = following["Figure 1"][0]
    qtbot.waitUntil(lambda: page.loader.cached_frame(first.sha256, 0) is not None,
                    timeout=10_000)


def test_the_image_is_the_largest_thing_on_screen(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    for size in ("1366x768", "1280x800", "1920x1080"):
        window = make_window(case_id="T1", size=size)
        page = window.page("annotate")
        qtbot.waitUntil(page.ready, timeout=10_000)
        viewer_area = page.viewer.width() * page.viewer.height()
        others = [page.tabs, page.case_list, page.case_text, page.board, page.strip]
        for widget in others:
            assert viewer_area > widget.width() * widget.height(), (size, widget)
        window.close()
