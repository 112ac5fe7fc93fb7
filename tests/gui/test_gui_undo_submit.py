"""Undo/redo over the store, across case switches; submit and reopen."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui
CTRL = Qt.KeyboardModifier.ControlModifier
CTRL_SHIFT = Qt.KeyboardModifier.ControlModifier | Qt.KeyboardModifier.ShiftModifier


def test_undo_and_redo_across_a_case_switch(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    undo = page.context.actions.actions["annotate.undo"]
    assert not undo.isEnabled()
    qtbot.keyClick(page.viewer, "e")
    assert undo.text() == "Undo importance of Figure 1 → essential"
    page.open_case("T2")
    assert not undo.isEnabled()  # T2's own stack is empty
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, "o")
    assert stored("T2")["importance:Figure 1"]["value"] == "optional"
    page.open_case("T1")
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, Qt.Key.Key_Z, CTRL)
    assert "importance:Figure 1" not in stored("T1")
    assert stored("T2")["importance:Figure 1"]["value"] == "optional"  # untouched
    assert page.strip_model.cards[0].importance is None
    qtbot.keyClick(page.viewer, Qt.Key.Key_Z, CTRL_SHIFT)
    assert stored("T1")["importance:Figure 1"] == {"value": "essential", "how": "set"}


def test_a_typing_burst_is_one_undo_step_with_few_writes(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    comment = page.labels_panel.comment
    comment.setFocus()
    before = page.session.writes
    qtbot.keyClicks(comment, "Follow-up ")
    qtbot.waitUntil(lambda: stored().get("comment") == "Follow-up")
    qtbot.keyClicks(comment, "shows resolution")
    page.session.flush()
    assert stored()["comment"] == "Follow-up shows resolution"
    assert page.session.writes - before <= 3  # not one write per keystroke
    stack = page.session.undo_group.activeStack()
    assert stack.count() == 1 and "case comment" in stack.undoText()
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, Qt.Key.Key_Z, CTRL)
    assert "comment" not in stored()
    assert comment.toPlainText() == ""


def test_board_drags_in_a_burst_merge_into_one_step(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    from annotator.services.order_board import Move

    page.move_exam("Figure 1", Move("stage", 1))
    page.move_exam("Figure 2", Move("stage", 2))
    page.move_exam("Figure 2", Move("stage", 1))
    assert page.session.undo_group.activeStack().count() == 1
    page.session.undo_group.undo()
    assert not any(k.startswith("stage:") for k in stored())


def test_a_submit_goes_on_to_the_next_open_case(qtbot, page, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services import annotating, kinds

    annotating.accept_suggestions(gui_project, "a1", "T2")
    kinds.CASES.submit(gui_project, "a1", "T2")  # submitted elsewhere: skipped
    page.case_list.refresh()
    qtbot.keyClick(page.viewer, "A", Qt.KeyboardModifier.ShiftModifier)
    qtbot.keyClick(page.viewer, Qt.Key.Key_Return, CTRL)
    assert annotating.view(gui_project, "a1", "T1").state == "submitted"
    qtbot.waitUntil(lambda: page.session.case_id == "T3")
    assert page.case_list.current == "T3"


@pytest.mark.usefixtures("stay_after_submit")
def test_submit_says_what_is_missing_then_submits(qtbot, page, stored, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services import annotating

    qtbot.keyClick(page.viewer, "e")
    qtbot.keyClick(page.viewer, Qt.Key.Key_Return, CTRL)
    assert page.header.error.isVisible()
    message = page.header.error.text()
    assert "Figure 2: no importance" in message and "no difficulty" in message
    assert annotating.view(gui_project, "a1", "T1").state == "in_progress"
    assert "Figure 2: no importance" in page.labels_panel.missing.text()
    qtbot.keyClick(page.viewer, "A", Qt.KeyboardModifier.ShiftModifier)
    assert "Ready to submit" in page.labels_panel.missing.text()
    qtbot.keyClick(page.viewer, Qt.Key.Key_Return, CTRL)
    view = annotating.view(gui_project, "a1", "T1")
    assert view.state == "submitted" and view.labels["importance:Figure 1"]["how"] == "set"
    assert page.header.state.text() == "submitted"
    qtbot.waitUntil(lambda: page.case_list.progress.text() == "1 of 4 submitted")
    # a submitted annotation is read-only: keys say so and change nothing
    qtbot.keyClick(page.viewer, "o")
    assert "reopen it" in page.header.error.text()
    assert stored()["importance:Figure 1"]["value"] == "essential"


@pytest.mark.usefixtures("stay_after_submit")
def test_reopen_a_submitted_case(qtbot, page, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services import annotating

    qtbot.keyClick(page.viewer, "A", Qt.KeyboardModifier.ShiftModifier)
    page.submit()
    assert annotating.view(gui_project, "a1", "T1").state == "submitted"
    assert page.header.reopen.isVisibleTo(page)
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, Qt.Key.Key_R, CTRL_SHIFT)
    assert annotating.view(gui_project, "a1", "T1").state == "in_progress"
    qtbot.keyClick(page.viewer, "o")
    assert annotating.view(gui_project, "a1", "T1").labels["importance:Figure 1"]["value"] == (
        "optional"
    )


@pytest.mark.usefixtures("stay_after_submit")
def test_reopen_refused_after_adjudication_is_said_inline(qtbot, page, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services import annotating, kinds
    from annotator.services.review import decisions

    qtbot.keyClick(page.viewer, "A", Qt.KeyboardModifier.ShiftModifier)
    page.submit()
    annotating.accept_suggestions(gui_project, "a2", "T1")
    annotating.set_label(gui_project, "a2", "T1", "importance", "Figure 3", "essential")
    kinds.CASES.submit(gui_project, "a2", "T1")
    decisions.decide(gui_project, "adj", "T1", "importance:Figure 3", "optional", "protocol")
    page.reopen()
    assert "locked" in page.header.error.text()
    assert annotating.view(gui_project, "a1", "T1").state == "submitted"
