"""A case's history in the app (Ctrl+H on the annotate and review pages): who changed what
and when, read from the append-only history; an annotator sees only their own changes."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


def _rows(dialog) -> list[tuple[str, str]]:  # type: ignore[no-untyped-def]
    table = dialog.table
    return [(table.item(r, 1).text(), table.item(r, 2).text()) for r in range(table.rowCount())]


def test_ctrl_h_shows_the_annotators_own_history_of_the_case(qtbot, page, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services import annotating

    annotating.set_label(gui_project, "a2", "T1", "importance", "Figure 1", "unnecessary")
    qtbot.keyClick(page.viewer, "e")
    qtbot.keyClick(page.viewer, Qt.Key.Key_H, Qt.KeyboardModifier.ControlModifier)
    dialog = page.history
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    assert dialog.windowTitle() == "History of T1"
    rows = _rows(dialog)
    assert rows[-1] == ("a1", "label: importance:Figure 1: essential")
    assert {who for who, _ in rows} == {"a1"}  # a2's label stays blind


def test_the_review_page_shows_every_reviewers_changes(qtbot, make_window, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services import annotating, kinds

    for name, value in (("a1", "essential"), ("a2", "optional")):
        annotating.accept_suggestions(gui_project, name, "T1")
        annotating.set_label(gui_project, name, "T1", "importance", "Figure 3", value)
        kinds.CASES.submit(gui_project, name, "T1")
    window = make_window(user="adj")
    review = window.built["review"]
    qtbot.waitUntil(lambda: review.detail is not None, timeout=10_000)
    review.show_history()
    rows = _rows(review.history)
    assert {"cu", "a1", "a2"} <= {who for who, _ in rows}
    assert any(who == "a2" and what.startswith("label: importance:Figure 3: ")
               and what.endswith("optional") for who, what in rows)
