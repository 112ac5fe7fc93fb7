"""Every page, for each role, at 1366 x 768 and 1920 x 1080, light and dark: rendered into a
temporary folder, the page bar without scroll buttons, each page's minimum size inside the
window (nothing forced off screen), and the window at the size it was given."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from PySide6.QtWidgets import QApplication, QToolButton

from annotator.gui import theme

pytestmark = pytest.mark.gui

SIZES = ((1366, 768), (1920, 1080))


@pytest.fixture(autouse=True)
def back_to_light(qapp) -> Iterator[None]:  # type: ignore[no-untyped-def]
    yield
    theme.apply(qapp, "light", 1.0)


def _blank(image_path: Path) -> bool:
    """No text or image on it: every pixel within a few grey levels of the others."""
    import numpy as np
    from PySide6.QtGui import QImage

    image = QImage(str(image_path)).convertToFormat(QImage.Format.Format_Grayscale8)
    pixels = np.frombuffer(image.constBits(), dtype=np.uint8, count=image.sizeInBytes())
    return int(pixels.max()) - int(pixels.min()) < 40


@pytest.mark.parametrize("name", theme.THEMES)
@pytest.mark.parametrize("user", ["a1", "adj", "cu"])
def test_every_page_fits_both_screens(  # type: ignore[no-untyped-def]
    qtbot, make_window, qapp, tmp_path, user, name
) -> None:
    theme.apply(qapp, name, 1.0)  # before the pages are built: they read their colours then
    window = make_window(user=user)
    assert window.page_ids, user
    for width, height in SIZES:
        window.resize(width, height)
        for page_id in window.page_ids:
            window.show_page(page_id)
            page = window.built[page_id]
            ready = getattr(page, "ready", None)
            if callable(ready):
                qtbot.waitUntil(ready, timeout=15_000)
            QApplication.processEvents()
            where = f"{user} {name} {width}x{height} {page_id}"
            assert (window.width(), window.height()) == (width, height), where
            scroll = [b for b in window.tabs.findChildren(QToolButton) if b.isVisible()]
            assert scroll == [], where
            hint = page.minimumSizeHint()
            assert hint.width() <= window.stack.width(), (where, hint)
            assert hint.height() <= window.stack.height(), (where, hint)
            shot = tmp_path / f"{user}-{name}-{width}x{height}-{page_id}.png"
            assert window.grab().save(str(shot), "PNG")
            assert not _blank(shot), where
