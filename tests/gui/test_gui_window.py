"""The window around the page: identity, resume, case list, shortcuts, item models."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt
from PySide6.QtGui import QImage

from annotator.gui.activity import DEAF_AFTER_INPUT_MS

pytestmark = pytest.mark.gui


def test_item_models_pass_the_model_tester(qtmodeltester, page) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.workspace.case_list import CaseListModel
    from annotator.gui.workspace.exam_strip import ExamCard, ExamModel

    qtmodeltester.check(page.case_list.model)
    qtmodeltester.check(page.strip_model)
    cards = ExamModel()
    cards.set_cards([ExamCard("Figure 1", {"modality": "CT", "time_past": 6},
                              importance="essential", stage="stage 1", thumbnail=QImage()),
                     ExamCard("Figure 2", {}, suggested="optional", warnings=["x"])])
    qtmodeltester.check(cards)
    assert cards.data(cards.index(0, 0), Qt.ItemDataRole.ToolTipRole).startswith("Figure 1")
    qtmodeltester.check(CaseListModel())


def test_case_list_filters_searches_and_counts(qtbot, page, gui_project) -> None:  # type: ignore[no-untyped-def]
    panel = page.case_list
    assert [r.case_id for r in panel.model.rows] == ["D1", "T1", "T2", "T3"]
    assert panel.progress.text() == "0 of 4 submitted"
    panel.search.setText("third")
    assert [r.case_id for r in panel.model.rows] == ["T3"]
    panel.search.clear()
    qtbot.keyClick(page.viewer, "A", Qt.KeyboardModifier.ShiftModifier)
    page.submit()
    panel.filter.setCurrentIndex(panel.filter.findData("submitted"))
    assert [r.case_id for r in panel.model.rows] == ["T1"]
    panel.filter.setCurrentIndex(panel.filter.findData("todo"))
    assert [r.case_id for r in panel.model.rows] == ["D1", "T2", "T3"]
    # choosing a case in the list opens it (at once when read ahead, else once read)
    panel.filter.setCurrentIndex(0)
    index = panel.model.index(panel.model.row_of("T2"), 0)
    panel.table.clicked.emit(index)
    qtbot.waitUntil(lambda: page.session.case_id == "T2", timeout=10_000)
    qtbot.keyClick(page.viewer, Qt.Key.Key_Down, Qt.KeyboardModifier.ControlModifier)
    qtbot.waitUntil(lambda: page.session.case_id == "T3", timeout=10_000)


def test_resume_where_the_annotator_left_off(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window()
    page = window.page("annotate")
    qtbot.waitUntil(page.ready, timeout=10_000)
    assert page.session.case_id == "D1"  # the first case not yet submitted
    page.open_case("T2")
    page.select_exam("Figure 3")
    qtbot.waitUntil(page.ready, timeout=10_000)
    page.viewer.zoom_by(2.0)
    page.viewer.toggle_invert()
    zoom = page.viewer.zoom
    window.close()  # saves pending work and where the annotator is
    again = make_window()
    page = again.page("annotate")
    qtbot.waitUntil(page.ready, timeout=10_000)
    assert (page.session.case_id, page.exam) == ("T2", "Figure 3")
    assert page.viewer.zoom == pytest.approx(zoom) and page.viewer.inverted


def test_identity_is_chosen_once_and_remembered(qtbot, make_window, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.app import _identity

    window = make_window(user=None)
    assert window.chooser is not None and not window.pages
    people = window.chooser.people
    people.setCurrentRow(next(i for i in range(people.count())
                              if people.item(i).data(Qt.ItemDataRole.UserRole) == "a2"))
    qtbot.mouseClick(window.chooser.go, Qt.MouseButton.LeftButton)
    assert window.context.user == "a2" and window.who.text() == "a2"
    assert window.page("annotate").session.user == "a2"
    assert _identity(gui_project, None, screenshot=False) == "a2"
    assert _identity(gui_project, "a1", screenshot=False) == "a1"  # --as wins
    window.switch_user()  # Ctrl+Shift+U brings the chooser back
    assert window.chooser is not None and not window.pages


def test_screenshots_never_ask_who_is_working(gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.app import _identity
    from annotator.services import annotating

    annotating.set_label(gui_project, "a2", "T2", "comment", "", "started")
    assert _identity(gui_project, None, screenshot=True) == "a2"  # open work to show
    assert _identity(gui_project, None, screenshot=False) is None  # the window will ask


def test_an_annotator_never_sees_another_annotators_labels(qtbot, gui_project, make_window) -> None:  # type: ignore[no-untyped-def]
    from annotator.services import annotating

    annotating.set_label(gui_project, "a2", "T1", "importance", "Figure 1", "unnecessary")
    annotating.set_label(gui_project, "a2", "T1", "comment", "", "a2's private note")
    page = make_window(case_id="T1").page("annotate")
    assert page.session.labels == {}
    assert page.strip_model.cards[0].importance is None
    assert page.labels_panel.comment.toPlainText() == ""


def test_every_action_has_a_distinct_shortcut(page) -> None:  # type: ignore[no-untyped-def]
    registry = page.context.actions
    assert registry.conflicts() == []
    keys = [registry.shortcut(i) for i in registry.actions]
    assert all(keys)
    assert registry.shortcut("annotate.importance.essential") == "E"
    assert {"annotate.stage.tie", "annotate.stage.unranked", "annotate.undo"} <= set(
        registry.actions
    )


def test_shortcut_sheet_and_rebinding(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(case_id="T1")
    page = window.page("annotate")
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, Qt.Key.Key_F1)
    sheet = window.sheet
    assert sheet is not None and sheet.isVisible() and not sheet.isModal()
    texts = [sheet.table.item(i, 1).text() for i in range(sheet.table.rowCount())]
    assert "Tie with the previous exam" in texts
    registry = window.registry
    assert not sheet.rebind("annotate.importance.essential", "O")  # O is optional's key
    assert "already used by: Importance: optional" in sheet.message.text()
    assert registry.shortcut("annotate.importance.essential") == "E"
    assert sheet.rebind("annotate.importance.essential", "Y")
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, "y")
    assert page.session.labels["importance:Figure 1"]["value"] == "essential"
    assert '"annotate.importance.essential": "Y"' in registry.bindings_file.read_text()
    sheet.close()
    qtbot.keyClick(page.viewer, "?")
    assert sheet.isVisible()


def test_active_time_is_measured_and_stored_on_leaving(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    clock = page.activity.clock
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, Qt.Key.Key_Down)  # real input feeds the clock
    assert clock._last is not None
    clock.take()
    clock.touch(1000.0)  # then a measured minute of work, with known timestamps
    clock.touch(1030.0)
    clock.touch(1060.0)
    clock.touch(5000.0)  # after a long absence: not counted
    page.open_case("T2")
    qtbot.waitUntil(lambda: "T1" not in page.session._time_writes, timeout=10_000)
    assert stored("T1")["active_seconds"] == 60.0
    assert "active_seconds" not in stored("T2")


def test_after_an_input_the_clock_looks_away_for_a_moment(qtbot, page, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Every event of every object passes the clock's filter while it listens: after an
    input (what starts a case switch) it stops listening for DEAF_AFTER_INPUT_MS."""
    activity = page.activity
    qtbot.waitUntil(lambda: not activity._deaf.isActive(), timeout=5_000)
    seen: list[float] = []
    monkeypatch.setattr(activity.clock, "touch", seen.append)
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, Qt.Key.Key_Down)
    assert len(seen) == 1
    qtbot.keyClick(page.viewer, Qt.Key.Key_Up)  # within the moment: not looked at
    assert len(seen) == 1 and activity._deaf.isActive()
    qtbot.waitUntil(lambda: not activity._deaf.isActive(), timeout=5_000)
    qtbot.keyClick(page.viewer, Qt.Key.Key_Down)  # listening again
    # A coarse timer may fire up to 5% early.
    assert len(seen) == 2 and seen[1] - seen[0] >= 0.9 * DEAF_AFTER_INPUT_MS / 1000


def test_active_time_on_the_open_case_is_stored_in_one_write_and_no_read(  # type: ignore[no-untyped-def]
        qtbot, page, stored, gui_project, monkeypatch) -> None:
    """The periodic save of the open case's time runs on a worker: the store's answer gives
    the page the new total and version, nothing is read again."""
    from annotator.domain import labels as L
    from annotator.services import annotating

    reads: list[str] = []
    real = annotating.view
    monkeypatch.setattr(annotating, "view", lambda *a, **k: reads.append(a[2]) or real(*a, **k))
    page.session.add_active_time("T1", 42.0)
    page.session.add_active_time("T1", 8.25)
    qtbot.waitUntil(lambda: "T1" not in page.session._time_writes, timeout=10_000)
    assert reads == []
    assert stored("T1")["active_seconds"] == 50.2  # rounded to a tenth, as stored
    assert page.session.labels["active_seconds"] == 50.2
    assert page.session.versions["T1"] == real(gui_project, "a1", "T1").version
    # The version kept is the store's: the next edit is written, not refused as stale.
    assert page.session.apply([L.LabelEdit("difficulty", {"value": "hard", "how": "set"})],
                              "difficulty hard")
    assert stored("T1")["difficulty"] == {"value": "hard", "how": "set"}


def test_an_edit_updates_its_row_without_reloading_the_list(  # type: ignore[no-untyped-def]
    qtbot, page, monkeypatch
) -> None:
    from annotator.services import workspace

    panel = page.case_list
    before = panel.model.rows[panel.model.row_of("T1")]
    reloads: list[int] = []
    real = workspace.case_list
    monkeypatch.setattr(workspace, "case_list", lambda *a, **k: reloads.append(1) or real(*a, **k))
    resets: list[int] = []
    panel.model.modelReset.connect(lambda: resets.append(1))
    qtbot.keyClick(page.viewer, "A", Qt.KeyboardModifier.ShiftModifier)  # accept all
    page.open_case("T2")  # leaves T1 before the list timer fires: T1's row still updates
    qtbot.waitUntil(lambda: panel.model.rows[panel.model.row_of("T1")].done > before.done)
    page.open_case("T1")
    page.submit()
    qtbot.waitUntil(lambda: panel.progress.text() == "1 of 4 submitted")
    assert panel.model.rows[panel.model.row_of("T1")].state == "submitted"
    assert reloads == [] and resets == []  # rows replaced, never the whole list


def test_time_is_written_on_a_worker_and_an_edit_of_its_case_waits_for_it(  # type: ignore[no-untyped-def]
        qtbot, page, stored, monkeypatch) -> None:
    """A time write took 6-18 ms on a team store, at every case switch: it runs on a worker.
    An edit of the case made while it runs waits for it and carries the version it made
    (not refused as stale); closing waits for every one still running."""
    import threading

    from annotator.domain import labels as L
    from annotator.services import workspace_state

    held = threading.Event()
    on_gui_thread: list[bool] = []
    real = workspace_state.add_active_time

    def held_back(*args, **kwargs):  # type: ignore[no-untyped-def]
        on_gui_thread.append(threading.current_thread() is threading.main_thread())
        held.wait(10)
        return real(*args, **kwargs)

    monkeypatch.setattr(workspace_state, "add_active_time", held_back)
    page.session.add_active_time("T1", 30.0)
    qtbot.waitUntil(lambda: on_gui_thread == [False], timeout=10_000)  # started, held back
    assert "active_seconds" not in stored("T1")
    # The edit waits for the write; the write is let go from another thread meanwhile.
    threading.Timer(0.05, held.set).start()
    assert page.session.apply([L.LabelEdit("difficulty", {"value": "hard", "how": "set"})],
                              "difficulty hard")
    assert stored("T1")["active_seconds"] == 30.0
    assert stored("T1")["difficulty"] == {"value": "hard", "how": "set"}
    assert page.session.labels["active_seconds"] == 30.0
    # Leaving the case writes its time on a worker too; closing waits for it.
    held.clear()
    page.session.add_active_time("T1", 5.0)
    qtbot.waitUntil(lambda: len(on_gui_thread) == 2, timeout=10_000)
    threading.Timer(0.05, held.set).start()
    page.shutdown()
    assert on_gui_thread == [False, False]
    assert stored("T1")["active_seconds"] == 35.0
    # A read of a case (opening it, reading it ahead) sees the time written before it.
    held.clear()
    page.session.add_active_time("T2", 7.0)
    qtbot.waitUntil(lambda: len(on_gui_thread) == 3, timeout=10_000)
    threading.Timer(0.05, held.set).start()
    view, _images = page.session.read("T2")
    assert view.labels["active_seconds"] == 7.0


def test_time_on_a_submitted_case_asks_nothing_of_the_store(  # type: ignore[no-untyped-def]
        qtbot, page, stored, monkeypatch) -> None:
    """Re-reading a submitted case is not work on it: the service would refuse to keep the
    time, so the page does not open a transaction to be told so (it runs at every case
    switch)."""
    from annotator.services import workspace_state

    qtbot.keyClick(page.viewer, "A", Qt.KeyboardModifier.ShiftModifier)  # accept all
    assert page.session.submit()
    calls: list[str] = []
    real = workspace_state.add_active_time
    monkeypatch.setattr(workspace_state, "add_active_time",
                        lambda *a, **k: calls.append(a[2]) or real(*a, **k))
    page.session.add_active_time("T1", 30.0)
    assert calls == []
    assert "active_seconds" not in stored("T1") or stored("T1")["active_seconds"] < 30.0
    page.session.add_active_time("T2", 30.0)  # another case: the store decides
    page.session.join_time()
    assert calls == ["T2"]


def test_the_strip_scales_a_thumbnail_once_not_at_every_paint(qtbot, page) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(lambda: all(c.thumbnail is not None or not c.images
                                for c in page.strip_model.cards), timeout=10_000)
    delegate = page.strip.cards
    page.strip.viewport().grab()
    kept = dict(delegate._thumbs.items)
    shown = [c for c in page.strip_model.cards if c.thumbnail is not None]
    assert shown and len(kept) >= len(shown)
    page.strip.viewport().grab()  # painted again: the same scaled images, none made anew
    assert dict(delegate._thumbs.items) == kept
    assert all(delegate._thumbs.get(key) is image for key, image in kept.items())


def test_the_strip_draws_a_card_again_only_when_what_it_shows_changes(  # type: ignore[no-untyped-def]
        qtbot, page, monkeypatch) -> None:
    from dataclasses import replace

    qtbot.waitUntil(lambda: all(c.thumbnail is not None or not c.images
                                for c in page.strip_model.cards), timeout=10_000)
    delegate, model = page.strip.cards, page.strip_model
    drawn: list[int] = []
    real = delegate._draw
    monkeypatch.setattr(delegate, "_draw", lambda p, box, font, sel, index: (
        drawn.append(index.row()), real(p, box, font, sel, index)))
    before = page.strip.viewport().grab().toImage()
    drawn.clear()
    assert page.strip.viewport().grab().toImage() == before  # the kept cards, as drawn
    assert drawn == []
    row = next(i for i, c in enumerate(model.cards) if c.importance != "essential")
    model.update_card(row, replace(model.cards[row], importance="essential"))
    after = page.strip.viewport().grab().toImage()
    assert drawn == [row]  # only the changed card is drawn anew
    assert after != before
    rect = page.strip.visualRect(model.index(row, 0))
    assert after.copy(rect) != before.copy(rect)
