"""Labelling by keyboard and by mouse: every edit checked in the store, not only on screen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import QMimeData, QPointF, Qt
from PySide6.QtGui import QDragEnterEvent, QDragLeaveEvent, QDragMoveEvent, QDropEvent
from PySide6.QtWidgets import QApplication

from annotator.gui.workspace.board import MIME

pytestmark = pytest.mark.gui


def key(qtbot, page, text: str, modifier=Qt.KeyboardModifier.NoModifier) -> None:  # type: ignore[no-untyped-def]
    """Press a key with the focus on the viewer (where a physician's hands usually are)."""
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, text, modifier)


def drop(board, key: str, figure: str) -> bool:  # type: ignore[no-untyped-def]
    """Drag ``figure`` into the zone ``key`` of the board and drop it at the zone's centre,
    as a real drag would deliver it (offscreen Qt cannot run a real drag): True if accepted."""
    data = QMimeData()
    data.setData(MIME, figure.encode("utf-8"))
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    at = board.zones[key].rect.center()
    enter = QDragEnterEvent(at, Qt.DropAction.MoveAction, data, buttons, mods)
    assert QApplication.sendEvent(board.canvas, enter) and enter.isAccepted()
    move = QDragMoveEvent(at, Qt.DropAction.MoveAction, data, buttons, mods)
    QApplication.sendEvent(board.canvas, move)
    event = QDropEvent(QPointF(at), Qt.DropAction.MoveAction, data, buttons, mods)
    QApplication.sendEvent(board.canvas, event)
    return event.isAccepted()


def test_label_exams_by_keyboard(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    assert page.exam == "Figure 1"
    key(qtbot, page, "e")
    qtbot.keyClick(page.viewer, Qt.Key.Key_Right)
    assert page.exam == "Figure 2"
    key(qtbot, page, "o")
    key(qtbot, page, "d")  # difficulty cycles from unset to the first value
    key(qtbot, page, "r")
    key(qtbot, page, "r")
    labels = stored()
    assert labels["importance:Figure 1"] == {"value": "essential", "how": "set"}
    assert labels["importance:Figure 2"] == {"value": "optional", "how": "set"}
    assert labels["difficulty"] == {"value": "normal", "how": "set"}
    assert labels["rarity"] == {"value": "rare", "how": "set"}
    # the strip shows the label, solid, on the exam's card
    assert page.strip_model.cards[0].importance == "essential"


def test_keys_do_not_fire_while_typing(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    page.labels_panel.red_flag.setFocus()
    qtbot.keyClicks(page.labels_panel.red_flag, "one exam")
    page.session.flush()
    labels = stored()
    assert labels["red_flag:Figure 1"] == "one exam"
    assert "importance:Figure 1" not in labels  # the "e" and "o" went into the text


def test_accept_suggestions_per_exam_and_per_case(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    assert stored() == {}
    key(qtbot, page, "a")
    labels = stored()
    assert labels["importance:Figure 1"] == {"value": "essential", "how": "accepted"}
    assert labels["stage:Figure 1"] == {"value": 1, "how": "accepted"}
    assert "importance:Figure 2" not in labels
    qtbot.keyClick(page.viewer, Qt.Key.Key_Right)
    key(qtbot, page, "u")
    key(qtbot, page, "A", Qt.KeyboardModifier.ShiftModifier)
    labels = stored()
    # accepting the case never overwrites what the annotator chose
    assert labels["importance:Figure 2"] == {"value": "unnecessary", "how": "set"}
    assert labels["importance:Figure 3"] == {"value": "optional", "how": "accepted"}
    assert labels["difficulty"] == {"value": "hard", "how": "accepted"}
    assert page.session.missing() == []


def test_tie_stage_by_keyboard(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    key(qtbot, page, "1")
    qtbot.keyClick(page.viewer, Qt.Key.Key_Right)
    key(qtbot, page, "t")
    qtbot.keyClick(page.viewer, Qt.Key.Key_Right)
    key(qtbot, page, "0")
    labels = stored()
    assert labels["stage:Figure 1"] == {"value": 1, "how": "set"}
    assert labels["stage:Figure 2"] == {"value": 1, "how": "set"}
    assert labels["stage:Figure 3"] == {"value": None, "how": "set"}
    assert page.labels_panel.stage.text() == "unranked (explicitly)"
    qtbot.keyClick(page.viewer, Qt.Key.Key_Left)
    assert page.labels_panel.stage.text() == "stage 1, tied with Figure 1"


def test_tie_stage_by_drop(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    key(qtbot, page, "1")
    assert drop(page.board, "stage 1", "Figure 2")
    labels = stored()
    assert labels["stage:Figure 2"] == {"value": 1, "how": "set"}
    assert labels["stage:Figure 1"] == {"value": 1, "how": "set"}
    # a drop on the gap before column 1 opens a new first stage
    assert drop(page.board, "new 1", "Figure 3")
    labels = stored()
    assert [labels[f"stage:Figure {i}"]["value"] for i in (1, 2, 3)] == [2, 2, 1]
    assert [len(c) for c in page.board_state().columns] == [1, 2]
    assert drop(page.board, "unranked", "Figure 1")
    assert stored()["stage:Figure 1"] == {"value": None, "how": "set"}


def test_refused_move_says_why_and_changes_nothing(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(page.viewer, Qt.Key.Key_Right)
    key(qtbot, page, "t")  # the previous exam has no stage yet
    assert "Figure 1 has no stage yet" in page.header.error.text()
    assert page.header.error.isVisible()
    assert stored() == {}


def test_discard_with_reason_code_and_text(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    panel = page.labels_panel
    index = panel.discard.findData("image_quality")
    panel.discard.setCurrentIndex(index)
    panel.discard.activated.emit(index)
    assert stored()["discard"] == {"reason_code": "image_quality", "text": ""}
    panel.discard_text.setFocus()
    qtbot.keyClicks(panel.discard_text, "motion artefacts")
    qtbot.waitUntil(lambda: stored().get("discard", {}).get("text") == "motion artefacts")
    assert page.session.missing() == []  # a discarded case needs only its reason
    panel.discard.setCurrentIndex(0)
    panel.discard.activated.emit(0)
    assert "discard" not in stored()


def test_source_link_opens_in_the_browser(page, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QUrl
    from PySide6.QtGui import QDesktopServices

    opened: list[str] = []
    monkeypatch.setattr(QDesktopServices, "openUrl", lambda url: opened.append(url.toString()))
    html = page.case_text.toHtml()
    assert "Open the source case" in html and "A 34-year-old man" in html
    page.case_text.anchorClicked.emit(QUrl("https://example.org/case/T1"))
    assert opened == ["https://example.org/case/T1"]
    page.case_text.anchorClicked.emit(QUrl("exam:Figure 3"))
    assert page.exam == "Figure 3" and len(opened) == 1


def test_the_board_is_not_rebuilt_under_a_running_drag(qtbot, page) -> None:  # type: ignore[no-untyped-def]
    board = page.board
    before = board.zones["stage 1"] if "stage 1" in board.zones else None
    board._dragging(True)  # what a chip reports when its drag starts
    qtbot.keyClick(page.viewer, "1")  # the drop lands while the drag loop still runs
    assert "stage 1" not in board.zones or board.zones.get("stage 1") is before
    board._dragging(False)
    qtbot.waitUntil(lambda: "stage 1" in board.zones and not board.drag_active)
    assert page.board_state().columns == [["Figure 1"]]


def test_the_board_draws_each_exam_once_in_its_zone(qtbot, page) -> None:  # type: ignore[no-untyped-def]
    key(qtbot, page, "1")  # Figure 1 to stage 1; Figures 2 and 3 are not placed yet
    board = page.board
    chips = {c.figure: c for c in board.canvas.chips}
    assert sorted(chips) == ["Figure 1", "Figure 2", "Figure 3"]
    assert board.zones["stage 1"].rect.contains(chips["Figure 1"].rect)
    assert chips["Figure 1"].current and chips["Figure 1"].placed
    for figure in ("Figure 2", "Figure 3"):
        assert board.zones["tray"].rect.contains(chips[figure].rect)
        assert not chips[figure].placed and "(suggests" in chips[figure].text
    # zones never overlap, and every chip's text fits inside its chip
    rects = [z.rect for z in board.zones.values()]
    assert not any(a.intersects(b) for i, a in enumerate(rects) for b in rects[i + 1:])
    metrics = board.canvas.fontMetrics()
    assert all(metrics.horizontalAdvance(c.text) < c.rect.width() for c in chips.values())
    assert "stage 1: Figure 1" in board.canvas.accessibleDescription()


def test_clicking_a_chip_shows_its_exam(qtbot, page) -> None:  # type: ignore[no-untyped-def]
    key(qtbot, page, "0")  # Figure 1 unranked: a chip on the board
    qtbot.keyClick(page.viewer, Qt.Key.Key_Right)
    assert page.exam == "Figure 2"
    chip = next(c for c in page.board.canvas.chips if c.figure == "Figure 1")
    qtbot.mouseClick(page.board.canvas, Qt.MouseButton.LeftButton, pos=chip.rect.center())
    assert page.exam == "Figure 1"


def test_a_drop_on_the_tray_is_refused_and_hover_follows_the_drag(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    key(qtbot, page, "1")
    board = page.board
    assert not drop(board, "tray", "Figure 2")
    assert "stage:Figure 2" not in stored()
    data = QMimeData()
    data.setData(MIME, b"Figure 2")
    at = board.zones["unranked"].rect.center()
    buttons, mods = Qt.MouseButton.LeftButton, Qt.KeyboardModifier.NoModifier
    QApplication.sendEvent(board.canvas, QDragEnterEvent(at, Qt.DropAction.MoveAction, data,
                                                         buttons, mods))
    assert board.canvas.hover == "unranked"
    QApplication.sendEvent(board.canvas, QDragLeaveEvent())
    assert board.canvas.hover == ""
