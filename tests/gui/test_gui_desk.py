"""The desk page: a curator lands on it and sees the snapshot ``annotator desk --json``
prints; an adjudicator reads it with every action disabled and a tooltip naming the role;
an annotator has no desk. Its jump buttons open the pages where conflicts are decided, its
Actions area follows the registry's ``project.*`` actions, and it reads again after edits."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from PySide6.QtWidgets import QLabel, QPushButton

from annotator.errors import PermissionDenied
from annotator.services.desk import desk_snapshot

pytestmark = pytest.mark.gui


def _desk(window, qtbot):  # type: ignore[no-untyped-def]
    window.show_page("desk")
    page = window.built["desk"]
    qtbot.waitUntil(page.ready, timeout=15_000)
    return page


def test_a_curator_lands_on_the_desk_and_sees_the_snapshot(  # type: ignore[no-untyped-def]
    make_window, qtbot, qtmodeltester, gui_project
) -> None:
    window = make_window(user="cu")
    assert window.page_ids[window.tabs.currentIndex()] == "desk"
    page = _desk(window, qtbot)
    assert page.error.isHidden()
    # The values come at once; the intervals once the full report computed in the background.
    qtbot.waitUntil(lambda: page.snapshot.agreement_intervals, timeout=15_000)
    shown = page.snapshot.as_json()
    expected = json.loads(json.dumps(desk_snapshot(gui_project, "cu").as_json()))
    shown.pop("at"), expected.pop("at")
    assert json.loads(json.dumps(shown)) == expected
    s = page.snapshot
    assert page.cards["cases"].value.text() == str(s.status["cases"]) == "4"
    assert page.cards["needs_fix"].value.text() == str(s.needs_fix)
    model = page.annotator_model
    qtmodeltester.check(model)
    assert [model.index(r, 0).data() for r in range(model.rowCount())] == ["a1", "a2"]
    assert [model.index(r, 1).data() for r in range(model.rowCount())] == [
        str(a.assigned) for a in s.annotators]
    assert s.agreement is not None  # the curator's agreement headline (no figures yet here)
    buttons = page.actions_panel.buttons
    assert {"project.agreement", "project.export"} <= set(buttons)
    assert all(b.isEnabled() for b in buttons.values())


def test_an_adjudicator_reads_the_desk_with_every_action_disabled(  # type: ignore[no-untyped-def]
    make_window, qtbot
) -> None:
    window = make_window(user="adj")
    assert "desk" in window.page_ids
    assert window.page_ids[window.tabs.currentIndex()] == "review"  # lands on their work
    page = _desk(window, qtbot)
    assert page.read_only and "Read only" in page.who.text()
    buttons = dict(page.actions_panel.buttons)
    assert buttons.pop("project.open").isEnabled()  # anyone may open another project
    assert buttons and not any(b.isEnabled() for b in buttons.values())
    assert all("needs the curator role" in b.toolTip() for b in buttons.values())
    assert "Exporting a release needs the curator role" in buttons["project.export"].toolTip()
    assert page.snapshot.agreement is None
    assert "curator role" in page.agreement_note.text()
    assert page.jump_buttons["cases"].isEnabled()  # the adjudicator decides them


def test_an_annotator_has_no_desk(make_window, gui_project, qtbot) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import make_page
    from annotator.gui.pages import MessagePage

    window = make_window(user="a1")
    assert "desk" not in window.page_ids
    with pytest.raises(PermissionDenied, match="Desk page is not shown to a1"):
        window.show_page("desk")
    page = make_page("desk", "Desk", GuiContext(gui_project, "a1"))
    qtbot.addWidget(page)
    assert isinstance(page, MessagePage)
    assert any("adjudicator or curator" in label.text() for label in page.findChildren(QLabel))


def test_the_jump_buttons_open_the_pages_that_decide(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(user="cu")
    page = _desk(window, qtbot)
    for key, target in (("cases", "review"), ("sme_verdicts", "sme"), ("judge_scoring", "judge")):
        window.show_page("desk")
        page.jump_buttons[key].click()
        assert window.page_ids[window.tabs.currentIndex()] == target, key
        assert window.stack.currentWidget() is window.built[target]
        if target != "review":
            tabs = window.built[target].tabs
            assert tabs.tabText(tabs.currentIndex()) == "Conflicts", key
    window.show_page("desk")
    page.actions_panel.buttons["project.export"].click()
    assert window.page_ids[window.tabs.currentIndex()] == "export"


def test_new_project_actions_appear_with_their_permission(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.actions import ActionSpec

    fired: list[str] = []
    for user in ("cu", "adj"):
        window = make_window(user=user)
        spec = ActionSpec(f"project.test_users_{user}", "Users...", "", "Project",
                          needs="manage_users")
        window.registry.register(spec, lambda u=user: fired.append(u), window)
        page = _desk(window, qtbot)
        button = page.actions_panel.buttons[spec.id]
        if user == "cu":
            assert button.isEnabled()
            button.click()
        else:
            assert not button.isEnabled()
            assert button.toolTip() == ("Managing users needs the curator role; adj does not "
                                        "have it.")
        window.close()
    assert fired == ["cu"]


def test_the_desk_reads_again_after_edits(make_window, qtbot, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services.review.kind import CASES

    window = make_window(user="cu")
    page = _desk(window, qtbot)
    before = {a.name: a.in_progress for a in page.snapshot.annotators}
    window.show_page("annotate")
    CASES.set_field(gui_project, "a2", "T2", "difficulty", "hard")
    with qtbot.waitSignal(page.refreshed, timeout=15_000):
        window.show_page("desk")
    after = {a.name: a.in_progress for a in page.snapshot.annotators}
    assert after["a2"] == before["a2"] + 1 and after["a1"] == before["a1"]


def test_other_views_add_their_section(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(user="cu")
    page = _desk(window, qtbot)
    box = page.add_section("Quality", QLabel("per-annotator quality"))
    assert box.title() == "Quality"
    qtbot.waitUntil(lambda: box.isVisibleTo(page))  # shown by the next layout pass
    assert box.findChild(QLabel).text() == "per-annotator quality"
    assert not box.findChildren(QPushButton)


def test_the_screenshot_command_renders_the_desk(project_dir: Path, tmp_path: Path) -> None:
    from PIL import Image

    out = tmp_path / "desk.png"
    result = subprocess.run(
        [sys.executable, "-m", "annotator", "--project", str(project_dir), "gui", "--page",
         "desk", "--screenshot", str(out), "--size", "1366x768"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert Image.open(out).size == (1366, 768)


def test_the_stuck_limit_is_the_curators(make_window, qtbot, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.store.settings import STUCK_AFTER_DAYS

    adjudicator = make_window(user="adj")
    page = _desk(adjudicator, qtbot)
    assert not page.stuck_days.isEnabled()
    assert "stuck limit needs the curator role" in page.stuck_days.toolTip()
    adjudicator.close()
    curator = make_window(user="cu")
    page = _desk(curator, qtbot)
    assert page.stuck_days.isEnabled() and page.stuck_days.value() == STUCK_AFTER_DAYS.default
    with qtbot.waitSignal(page.refreshed, timeout=15_000):
        page.stuck_days.setValue(0)  # everything not submitted on an open case is stuck now
    assert gui_project.setting(STUCK_AFTER_DAYS) == 0
    assert page.snapshot.stuck_after_days == 0 and page.snapshot.stuck_total > 0
    assert page.stuck_list.count() == len(page.snapshot.stuck) and page.stuck_list.isVisibleTo(page)


def test_the_desk_shows_the_quality_view_to_seniors(  # type: ignore[no-untyped-def]
    make_window, qtbot, gui_project
) -> None:
    from annotator.services.quality import snapshot

    page = _desk(make_window(user="cu"), qtbot)
    view = page.quality_view
    assert view is not None
    qtbot.waitUntil(lambda: view.snapshot is not None, timeout=15_000)
    assert view.snapshot.as_json() == snapshot(gui_project, "cu").as_json()


def test_the_annotator_table_fits_the_pane_at_1366(make_window, qtbot) -> None:  # type: ignore[no-untyped-def]
    window = make_window(user="cu")
    window.resize(1366, 768)
    window.show()
    page = _desk(window, qtbot)
    table = page.annotator_table
    qtbot.waitUntil(lambda: table.model().rowCount() > 0, timeout=15_000)
    header = table.horizontalHeader()
    qtbot.waitUntil(lambda: header.length() > 0)
    # Every column, "Median time" last, without scrolling sideways.
    assert header.length() <= table.viewport().width()
    assert not table.horizontalScrollBar().isVisible()


def test_a_limit_changed_while_the_desk_reads_is_shown_not_the_read_from_before(  # type: ignore[no-untyped-def]
        make_window, qtbot, gui_project, monkeypatch) -> None:
    """A refresh asked for while one reads (the curator's edit, here) runs when that one
    ends; the snapshot read before the edit is not shown, nor does it reset the spin box."""
    import threading

    import annotator.gui.pages.desk as desk_page
    from annotator.store.settings import STUCK_AFTER_DAYS

    page = _desk(make_window(user="cu"), qtbot)
    read, release = threading.Event(), threading.Event()
    real = desk_page.desk_snapshot

    def held(*args, **kwargs):  # type: ignore[no-untyped-def]
        snapshot = real(*args, **kwargs)
        read.set()
        release.wait(10)
        return snapshot

    monkeypatch.setattr(desk_page, "desk_snapshot", held)
    page.refresh()  # a read under way (as after the agreement report)
    qtbot.waitUntil(read.is_set, timeout=15_000)  # it read the limit before the edit
    shown: list[int] = []
    page.refreshed.connect(lambda: shown.append(page.snapshot.stuck_after_days))
    page.stuck_days.setValue(0)
    assert gui_project.setting(STUCK_AFTER_DAYS) == 0
    release.set()
    qtbot.waitUntil(lambda: bool(shown), timeout=15_000)
    assert shown[0] == 0 and page.stuck_days.value() == 0


def test_the_annotator_table_reads_more_rows_as_it_scrolls(  # type: ignore[no-untyped-def]
    make_window, qtbot, qtmodeltester, gui_project, monkeypatch
) -> None:
    """The snapshot brings the first page of annotators and their total; scrolling to the
    end reads the next pages off the GUI thread, and a refresh keeps every row read."""
    from annotator.gui.pages import desk as desk_page
    from annotator.services.users import add_user

    monkeypatch.setattr(desk_page, "ANNOTATORS_SHOWN", 3)
    for n in range(3, 15):
        add_user(gui_project, "cu", f"a{n:02}", ["annotator"])
    everyone = [a.name for a in desk_snapshot(gui_project, "cu", annotators=None).annotators]
    assert len(everyone) == 14
    page = _desk(window := make_window(user="cu"), qtbot)
    assert [a.name for a in page.snapshot.annotators] == everyone[:3]
    assert page.snapshot.annotators_total == 14
    assert page.annotator_box.title() == "Annotators (14)"
    model, bar = page.annotator_model, page.annotator_table.verticalScrollBar()

    def scrolled_to_the_end() -> bool:
        bar.setValue(bar.maximum())
        return len(model.rows) == 14

    qtbot.waitUntil(scrolled_to_the_end, timeout=15_000)
    assert [r.name for r in model.rows] == everyone and not model.canFetchMore()
    qtmodeltester.check(model)
    with qtbot.waitSignal(page.refreshed, timeout=15_000):
        page.refresh()
    assert [r.name for r in model.rows] == everyone
    window.close()


def test_a_page_read_for_the_rows_before_a_refresh_is_dropped(qtbot) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.desk.models import AnnotatorTableModel
    from annotator.services.desk import AnnotatorRow

    def rows(*names: str) -> list[AnnotatorRow]:
        return [AnnotatorRow(n, 1, 0, 0, None, None, None) for n in names]

    asked: list[str] = []
    model = AnnotatorTableModel()
    model.fetcher = asked.append
    model.set_page(rows("a", "b"), 4)
    assert model.canFetchMore()
    model.fetchMore()
    assert asked == ["b"] and not model.canFetchMore()  # one page read at a time
    model.set_page(rows("a", "c"), 4)  # a refresh came first
    assert not model.add_page("b", rows("c", "d")) and len(model.rows) == 2
    model.fetchMore()
    assert model.add_page("c", rows("d", "e")) and [r.name for r in model.rows] == [
        "a", "c", "d", "e"]
    model.page_failed("e")  # nothing asked after "e": no effect
    assert not model.canFetchMore()
