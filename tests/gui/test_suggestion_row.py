"""A draft's suggestion wrapped onto two lines is shown whole, not clipped to its button's
height (a form lays out a nested layout at its tallest fixed widget)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QFormLayout, QWidget

from annotator.gui.workspace.labels_panel import _suggestion_row

pytestmark = pytest.mark.gui


def test_a_two_line_suggestion_gets_the_height_it_needs(qtbot) -> None:  # type: ignore[no-untyped-def]
    host = QWidget()
    qtbot.addWidget(host)
    form = QFormLayout(host)
    label, row = _suggestion_row("Accept all", "", "acceptAll", lambda: None)
    form.addRow("Draft", row)
    label.setText("suggests difficulty normal, rarity common")
    host.resize(330, 200)
    host.show()
    qtbot.waitExposed(host)
    qtbot.waitUntil(lambda: label.width() > 0)
    lines = label.heightForWidth(label.width()) // label.fontMetrics().lineSpacing()
    assert lines >= 2  # the text wraps at this width
    assert label.height() >= label.heightForWidth(label.width())
