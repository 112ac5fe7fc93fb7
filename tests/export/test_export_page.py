"""The Export page drives the real services offscreen: pre-flight, card, export, result."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.store.project import Project
from export.conftest import CURATOR

pytestmark = pytest.mark.gui


def test_page_checks_saves_the_card_and_exports(
    qtbot, released: Project, tmp_path: Path  # type: ignore[no-untyped-def]
) -> None:
    from PySide6.QtCore import Qt

    from annotator.gui.context import GuiContext
    from annotator.gui.pages.export import Page
    from annotator.services.export import card_settings

    page = Page(GuiContext(released, CURATOR))
    qtbot.addWidget(page)
    page.resize(1600, 1000)
    qtbot.waitUntil(lambda: page.table.rowCount() == 5, timeout=10000)
    rows = {page.table.item(r, 0).text(): page.table.item(r, 1).text()
            for r in range(page.table.rowCount())}
    assert rows == {"R1": "released", "R2": "released", "case 3": "released",
                    "X1": "excluded", "H1": "held back"}
    assert "3</b> case(s) will be released" in page.summary.text()

    page.fields["contact"].setPlainText("benchmark@example.org")
    qtbot.mouseClick(page.save_button, Qt.MouseButton.LeftButton)
    assert card_settings(released).contact == "benchmark@example.org"

    page.out.setText(str(tmp_path / "release"))
    page.date.setText("2026-05-06")
    qtbot.mouseClick(page.export_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: page.result is not None, timeout=20000)
    assert page.open_button.isEnabled()
    assert page.progress.value() == page.progress.maximum()
    assert "3 case(s), 10 image(s)" in page.status.text()
    assert (tmp_path / "release" / "release.json").exists()
    assert page.grab().save(str(tmp_path / "export.png"), "PNG")
    assert (tmp_path / "export.png").stat().st_size > 10_000


def test_a_non_curator_cannot_start_an_export(
    qtbot, released: Project, tmp_path: Path  # type: ignore[no-untyped-def]
) -> None:
    """Asked before, not refused after: the button is disabled and says which role it needs
    (before, the export started and stopped with "needs the curator role")."""
    from PySide6.QtCore import Qt

    from annotator.gui.context import GuiContext
    from annotator.gui.pages.export import Page

    page = Page(GuiContext(released, "Dr Ada Rivera"))
    qtbot.addWidget(page)
    page.out.setText(str(tmp_path / "release"))
    assert not page.export_button.isEnabled()
    assert "curator role" in page.export_button.toolTip()
    qtbot.mouseClick(page.export_button, Qt.MouseButton.LeftButton)
    assert page.status.text() == ""
    assert not (tmp_path / "release").exists()
