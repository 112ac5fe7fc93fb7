"""Every page, for every role and the role combinations people hold, at 1366 x 768 and
1920 x 1080, light and dark, on the demo project: rendered into a temporary folder, the page
bar without scroll buttons, each page's minimum size inside the window (nothing forced off
screen), the window at the size it was given, and no text below 4.5:1 contrast against its
background. Data-driven over ``permissions.pages_for``: a page added there (the desk) is
covered as soon as the window shows it.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtGui import QImage, QPalette
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QLabel,
    QPushButton,
    QToolButton,
    QWidget,
)

from annotator.domain.permissions import pages_for
from annotator.gui import theme
from annotator.services.demo import CURATOR, PHYSICIANS, SENIOR

pytestmark = pytest.mark.gui

SIZES = ((1366, 768), (1920, 1080))
# Who works as which roles: the demo's people, and two who hold several roles.
PEOPLE = {
    ("annotator",): PHYSICIANS[0],
    ("adjudicator",): SENIOR,
    ("curator",): CURATOR,
    ("adjudicator", "annotator"): PHYSICIANS[1],
    ("adjudicator", "annotator", "curator"): PHYSICIANS[2],
}
MIN_CONTRAST = 4.5


@pytest.fixture(scope="module")
def demo(demo_template: Path, tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from annotator.services.users import add_user
    from annotator.store.project import open_project

    target = tmp_path_factory.mktemp("every-page") / "project"
    shutil.copytree(demo_template, target)
    project = open_project(target, create=False, backup=False)
    for roles, name in PEOPLE.items():
        add_user(project, CURATOR, name, list(roles))
    yield project
    project.close()


@pytest.fixture(autouse=True)
def back_to_light(qapp) -> Iterator[None]:  # type: ignore[no-untyped-def]
    yield
    theme.apply(qapp, "light", 1.0)


def _blank(image_path: Path) -> bool:
    """No text or image on it: every pixel within a few grey levels of the others."""
    image = QImage(str(image_path)).convertToFormat(QImage.Format.Format_Grayscale8)
    pixels = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    return int(pixels.max()) - int(pixels.min()) < 40


def _text_colour(widget: QWidget) -> str | None:
    """The colour ``widget`` draws its text in, from its palette (None: it shows no text)."""
    palette = widget.palette()
    group = QPalette.ColorGroup.Active if widget.isEnabled() else QPalette.ColorGroup.Disabled
    role = QPalette.ColorRole
    if isinstance(widget, QAbstractItemView):
        if widget.model() is None or widget.model().rowCount() == 0:
            return None
        return palette.color(group, role.Text).name()
    if isinstance(widget, QPushButton):
        return palette.color(group, role.ButtonText).name() if widget.text() else None
    if isinstance(widget, QLabel):
        if not widget.text().strip() or widget.pixmap() is not None and \
                not widget.pixmap().isNull():
            return None
        return palette.color(group, widget.foregroundRole()).name()
    return None


def _area(pixels: np.ndarray, top: QWidget, widget: QWidget) -> np.ndarray | None:
    """The ``0xRRGGBB`` pixels of ``widget``'s area in ``pixels`` (the grab of ``top``)."""
    if isinstance(widget, QAbstractItemView):
        widget = widget.viewport()
    shown = widget.visibleRegion().boundingRect()  # a scrolled pane shows part of it
    corner = widget.mapTo(top, shown.topLeft())
    inset = 3  # inside the frame: a rounded corner shows the parent's background
    x0, y0 = max(0, corner.x() + inset), max(0, corner.y() + inset)
    x1 = min(pixels.shape[1], corner.x() + shown.width() - inset)
    y1 = min(pixels.shape[0], corner.y() + shown.height() - inset)
    if x1 - x0 < 4 or y1 - y0 < 4:
        return None
    return pixels[y0:y1, x0:x1].ravel() & 0xFFFFFF


def _hex(value: int) -> str:
    return f"#{int(value):06x}"


def _drawn(area: np.ndarray, palette_text: str) -> tuple[str, str]:
    """(text, background) as rendered. The background is the commonest shade (text covers
    far less of a widget than its background); the text is the palette's colour when it is
    drawn, else (a style sheet recoloured it) the drawn colour that stands out most."""
    values, counts = np.unique(area, return_counts=True)
    channels = np.stack([(values >> shift) & 0xFF for shift in (16, 8, 0)], axis=1)
    # A style's gradient shades each row a little differently: the commonest shade band
    # (steps of 24 levels), not the commonest exact pixel, is the background.
    bands = channels // 24
    keys = bands[:, 0] * 10_000 + bands[:, 1] * 100 + bands[:, 2]
    band_keys, inverse = np.unique(keys, return_inverse=True)
    weight = np.bincount(inverse, weights=counts)
    chosen = inverse == weight.argmax()
    mean = (channels[chosen] * counts[chosen, None]).sum(axis=0) / counts[chosen].sum()
    background = "#" + "".join(f"{round(c):02x}" for c in mean)
    wanted = int(palette_text[1:], 16)
    target = np.array([(wanted >> shift) & 0xFF for shift in (16, 8, 0)])
    if (np.abs(channels - target).max(axis=1) <= 8).any():
        return palette_text, background
    solid = values[counts >= 3]  # glyph cores, not single anti-aliased pixels
    if len(solid) == 0:
        return palette_text, background
    text = max((_hex(v) for v in solid), key=lambda c: theme.contrast(c, background))
    return text, background


def low_contrast(top: QWidget, page: QWidget | None = None) -> list[str]:
    """Visible labels, buttons and tables of ``page`` (shown in ``top``) whose text colour is
    below 4.5:1 against the background they are drawn on."""
    image = top.grab().toImage().convertToFormat(QImage.Format.Format_RGB32)
    pixels = np.frombuffer(image.constBits(), dtype=np.uint32,
                           count=image.width() * image.height()).reshape(
        image.height(), image.bytesPerLine() // 4)[:, :image.width()]
    found = []
    for widget in (page or top).findChildren(QWidget):
        if not widget.isVisible() or widget.visibleRegion().isEmpty():
            continue
        palette_text = _text_colour(widget)
        area = _area(pixels, top, widget) if palette_text else None
        if palette_text is None or area is None:
            continue
        text, background = _drawn(area, palette_text)
        ratio = theme.contrast(text, background)
        if ratio < MIN_CONTRAST:
            words = widget.text() if isinstance(widget, QLabel | QPushButton) else ""
            found.append(f"{type(widget).__name__} {words[:30]!r} {text} on {background}"
                         f" {ratio:.2f}")
    return found


def test_the_contrast_walk_finds_grey_on_grey(qtbot) -> None:  # type: ignore[no-untyped-def]
    """The check itself: a label drawn grey on grey is found, black on white is not."""
    box = QWidget()
    qtbot.addWidget(box)
    label = QLabel("submitted rubric text", box)
    palette = label.palette()
    palette.setColor(QPalette.ColorRole.WindowText, theme.qcolour("border"))
    palette.setColor(QPalette.ColorRole.Window, theme.qcolour("window"))
    label.setPalette(palette)
    box.resize(300, 60)
    label.resize(300, 60)
    box.show()
    qtbot.waitExposed(box)
    assert len(low_contrast(box)) == 1
    palette.setColor(QPalette.ColorRole.WindowText, theme.qcolour("text"))
    label.setPalette(palette)
    assert low_contrast(box) == []


@pytest.mark.parametrize("name", theme.THEMES)
@pytest.mark.parametrize("roles", list(PEOPLE), ids="+".join)
def test_every_page_fits_both_screens(  # type: ignore[no-untyped-def]
    qtbot, qapp, demo, tmp_path, roles, name
) -> None:
    from PySide6.QtCore import QThreadPool

    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import TITLES, MainWindow

    theme.apply(qapp, name, 1.0)  # before the pages are built: they read their colours then
    user = PEOPLE[roles]
    window = MainWindow(GuiContext(demo, user))
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    # Every page the rule gives these roles, as soon as the window has it (the desk arrives
    # with its own branch).
    assert window.page_ids == [p for p in pages_for(roles) if p in TITLES]
    try:
        for width, height in SIZES:
            window.resize(width, height)
            for page_id in window.page_ids:
                window.show_page(page_id)
                page = window.built[page_id]
                ready = getattr(page, "ready", None)
                if callable(ready):
                    qtbot.waitUntil(ready, timeout=30_000)
                QApplication.processEvents()
                where = f"{'+'.join(roles)} {name} {width}x{height} {page_id}"
                assert (window.width(), window.height()) == (width, height), where
                scroll = [b for b in window.tabs.findChildren(QToolButton) if b.isVisible()]
                assert scroll == [], where
                hint = page.minimumSizeHint()
                assert hint.width() <= window.stack.width(), (where, hint)
                assert hint.height() <= window.stack.height(), (where, hint)
                assert low_contrast(window, page) == [], where
                shot = tmp_path / f"{'+'.join(roles)}-{name}-{width}x{height}-{page_id}.png"
                assert window.grab().save(str(shot), "PNG")
                assert not _blank(shot), where
    finally:
        for page in window.built.values():
            if hasattr(page, "shutdown"):
                page.shutdown()
        QThreadPool.globalInstance().waitForDone(10_000)
