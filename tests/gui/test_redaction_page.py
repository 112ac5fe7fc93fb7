"""The Redaction page: flagged images with their proposed boxes, boxes drawn, moved,
resized and deleted with the mouse and the keys (undoable), applied to one frame or every
frame, "no patient data here" with a reason, next and previous by key, and the backups
made before a redaction offered for deletion. Rendered at 1366 x 768, light and dark."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import QPoint, Qt
from PySide6.QtWidgets import QApplication

from annotator.bench.text_images import text_image
from annotator.gui import theme
from factories import make_case, write_case_file

pytestmark = pytest.mark.gui

PNG = text_image(16)  # light text on a PNG: OCR proposes boxes
MULTI = text_image(6)  # a 16-bit MR of three frames with text on two


@pytest.fixture
def flagged(tmp_path: Path) -> Iterator[Any]:
    from annotator.services.imports import import_cases
    from annotator.services.users import add_user
    from annotator.store.project import open_project

    case = make_case("R1")
    case["imaging_examinations"][1]["image_paths"] = ["img/multi.dcm"]
    for image in case.get("images", []):
        if image.get("path") == "img/f2.png":
            image["path"] = "img/multi.dcm"
    drafts = tmp_path / "drafts"
    path = write_case_file(drafts, [case])
    (drafts / "img" / "f1.png").write_bytes(PNG.data)
    (drafts / "img" / "multi.dcm").write_bytes(MULTI.data)
    project = open_project(tmp_path / "project", backup=False)
    add_user(project, "(setup)", "cu", ["curator"])
    add_user(project, "cu", "a1", ["annotator"])
    report = import_cases(project, "cu", [path])
    assert not report.failed
    yield project
    project.close()


@pytest.fixture(autouse=True)
def back_to_light(qapp) -> Iterator[None]:  # type: ignore[no-untyped-def]
    yield
    theme.apply(qapp, "light", 1.0)


def _page(qtbot, project, user: str = "cu") -> Any:  # type: ignore[no-untyped-def]
    from annotator.gui.context import GuiContext
    from annotator.gui.pages.redaction import Page

    page = Page(GuiContext(project, user))
    qtbot.addWidget(page)
    page.resize(1200, 700)
    page.show()
    qtbot.waitUntil(lambda: page.ready() and page.image is not None, timeout=15_000)
    return page


def _key(page: Any, action_id: str) -> None:
    page.context.actions.actions[action_id].trigger()


def _open(qtbot, page: Any, draft_path: str) -> None:  # type: ignore[no-untyped-def]
    row = next(i for i, r in enumerate(page.rows) if r.draft_path == draft_path)
    page.list.setCurrentRow(row)
    qtbot.waitUntil(lambda: page.ready() and page.image.status.draft_path == draft_path,
                    timeout=15_000)


def test_the_flagged_image_opens_with_its_proposed_boxes(qtbot, flagged) -> None:  # type: ignore[no-untyped-def]
    page = _page(qtbot, flagged)
    assert {r.draft_path for r in page.rows if r.unresolved} >= {"img/f1.png"}
    _open(qtbot, page, "img/f1.png")
    assert page.canvas.boxes and len(page.canvas.items) == len(page.canvas.boxes)
    for planted in PNG.planted:  # the proposal covers what was planted
        x, y, w, h = planted.box
        assert any(bx <= x and by <= y and x + w <= bx + bw and y + h <= by + bh
                   for bx, by, bw, bh in page.canvas.boxes)


def test_boxes_by_key_are_undoable_steps(qtbot, flagged) -> None:  # type: ignore[no-untyped-def]
    page = _page(qtbot, flagged)
    _open(qtbot, page, "img/f1.png")
    start = list(page.canvas.boxes)
    _key(page, "redaction.box.add")
    assert len(page.canvas.boxes) == len(start) + 1
    added = page.canvas.boxes[page.canvas.current]
    _key(page, "redaction.box.right")
    _key(page, "redaction.box.taller")
    x, y, w, h = added
    assert page.canvas.boxes[page.canvas.current] == (x + 2, y, w, h + 2)
    _key(page, "redaction.box.delete")
    assert list(page.canvas.boxes) == start
    for _ in range(4):
        _key(page, "redaction.undo")
    assert list(page.canvas.boxes) == start  # back before the new box
    _key(page, "redaction.redo")
    assert len(page.canvas.boxes) == len(start) + 1


def test_a_box_is_drawn_moved_and_resized_with_the_mouse(qtbot, flagged) -> None:  # type: ignore[no-untyped-def]
    page = _page(qtbot, flagged)
    _open(qtbot, page, "img/f1.png")
    canvas = page.canvas
    canvas.set_boxes([])
    page.boxes = ()
    viewport = canvas.viewport()

    def at(x: float, y: float) -> QPoint:
        return canvas.mapFromScene(x, y)

    def drag(a: QPoint, b: QPoint) -> None:
        qtbot.mousePress(viewport, Qt.MouseButton.LeftButton, pos=a)
        qtbot.mouseMove(viewport, pos=QPoint((a.x() + b.x()) // 2, (a.y() + b.y()) // 2))
        qtbot.mouseMove(viewport, pos=b)
        qtbot.mouseRelease(viewport, Qt.MouseButton.LeftButton, pos=b)

    drag(at(40, 40), at(120, 80))  # draw
    assert len(page.boxes) == 1
    x, y, w, h = page.boxes[0][1:]
    assert abs(x - 40) <= 3 and abs(y - 40) <= 3 and abs(w - 80) <= 3 and abs(h - 40) <= 3
    drag(at(x + 10, y + 10), at(x + 60, y + 30))  # move by (50, 20)
    x2, y2, w2, h2 = page.boxes[0][1:]
    assert abs(x2 - x - 50) <= 3 and abs(y2 - y - 20) <= 3 and (w2, h2) == (w, h)
    drag(at(x2 + w2, y2 + h2), at(x2 + w2 + 30, y2 + h2 + 10))  # resize by its corner
    assert abs(page.boxes[0][3] - w2 - 30) <= 3 and abs(page.boxes[0][4] - h2 - 10) <= 3
    page.undo.undo()
    page.undo.undo()
    assert page.boxes[0][1:] == (x, y, w, h)


def test_apply_on_one_frame_then_no_phi_then_the_backups(qtbot, flagged) -> None:  # type: ignore[no-untyped-def]
    from annotator.ingest.deidentify import read_dicom
    from annotator.services import pixel_review

    assert flagged.folder is not None
    backups = flagged.folder / "backups"
    backups.mkdir(exist_ok=True)
    old = backups / "auto-20200101-000000.sqlite"
    old.write_bytes(b"before")
    os.utime(old, (time.time() - 3600, time.time() - 3600))
    page = _page(qtbot, flagged)
    _open(qtbot, page, "img/multi.dcm")
    assert len(page.image.frames) == 3
    page.set_frame(1)
    page.boxes = ()
    page.canvas.set_boxes([])
    page.canvas.edited.emit([(10, 20, 60, 30)])
    page.scope.setCurrentIndex(0)  # this frame only
    page.apply()
    assert page.backups.isVisible() and "1 backup" in page.backups.text()
    statuses = {r.draft_path: r for r in pixel_review.list_images(flagged, "cu")}
    assert statuses["img/multi.dcm"].status == "redacted"
    with flagged.read() as session:
        data = flagged.images.get(session, statuses["img/multi.dcm"].sha256)
    pixels = read_dicom(data).pixel_array
    assert pixels[1, 20:50, 10:70].max() == 0 and pixels[0, 20:50, 10:70].max() > 0
    page.drop_old_backups()
    assert not old.exists()
    qtbot.waitUntil(page.ready, timeout=15_000)
    _open(qtbot, page, "img/f1.png")
    page.mark_no_phi()  # no reason: refused, said on the page
    assert "reason" in page.status.text()
    page.reason.setText("only the phantom's label")
    page.mark_no_phi()
    statuses = {r.draft_path: r for r in pixel_review.list_images(flagged, "cu")}
    assert statuses["img/f1.png"].status == "no_phi"


def test_next_and_previous_image_by_key(qtbot, flagged) -> None:  # type: ignore[no-untyped-def]
    page = _page(qtbot, flagged)
    assert len(page.rows) >= 2
    page.list.setCurrentRow(0)
    qtbot.waitUntil(page.ready, timeout=15_000)
    _key(page, "redaction.image.next")
    assert page.list.currentRow() == 1
    qtbot.waitUntil(lambda: page.ready() and page.image.status == page.rows[1], timeout=15_000)
    _key(page, "redaction.image.previous")
    assert page.list.currentRow() == 0


@pytest.mark.parametrize("name", theme.THEMES)
def test_the_page_at_1366x768(qtbot, qapp, flagged, tmp_path, name) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow

    theme.apply(qapp, name, 1.0)
    window = MainWindow(GuiContext(flagged, "cu"))
    qtbot.addWidget(window)
    window.resize(1366, 768)
    window.show()
    qtbot.waitExposed(window)
    assert "redaction" in window.page_ids
    window.show_page("redaction")
    page = window.built["redaction"]
    qtbot.waitUntil(lambda: page.ready() and page.image is not None, timeout=15_000)
    _open(qtbot, page, "img/f1.png")
    QApplication.processEvents()
    assert page.minimumSizeHint().width() <= window.stack.width()
    shot = Path(os.environ.get("ANNOTATOR_SHOTS", tmp_path)) / f"redaction-{name}.png"
    assert window.grab().save(str(shot), "PNG")


def test_annotators_do_not_see_the_page(qtbot, flagged) -> None:  # type: ignore[no-untyped-def]
    from annotator.domain.permissions import pages_for

    assert "redaction" in pages_for(["curator"])
    assert "redaction" not in pages_for(["annotator"]) + pages_for(["adjudicator"])
