"""The meta-review page driven by the keyboard only; every decision checked in the store."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from annotator.domain.labels import LabelEdit
from annotator.services import annotating, kinds
from annotator.services.review import base
from annotator.services.review.queue import list_items
from annotator.store.history import entries

pytestmark = pytest.mark.gui


def _submit(project: Any, name: str, case_id: str, labels: dict[str, Any] | None = None) -> None:
    annotating.accept_suggestions(project, name, case_id)
    edits = [LabelEdit(k, v) for k, v in (labels or {}).items()]
    if edits:
        kinds.CASES.set_fields(project, name, case_id, edits)
    kinds.CASES.submit(project, name, case_id)


def _set(value: Any) -> dict[str, Any]:
    return {"value": value, "how": "set"}


@pytest.fixture
def conflicts(gui_project):  # type: ignore[no-untyped-def]
    """T1: importance, order and a rubric text conflict; T2: unanimous."""
    _submit(gui_project, "a1", "T1", {"comment": "Typical LETM", "red_flag:Figure 3": "Brain?"})
    _submit(
        gui_project,
        "a2",
        "T1",
        {
            "importance:Figure 3": _set("essential"),
            "stage:Figure 3": _set(3),
            "rubric:Diagnosis/3": 'LETM, e.g. "longitudinally extensive myelitis over 3 levels".',
        },
    )
    _submit(gui_project, "a1", "T2")
    _submit(gui_project, "a2", "T2")
    return gui_project


@pytest.fixture
def make_page(qtbot, tmp_path: Path):  # type: ignore[no-untyped-def]
    from annotator.gui.actions import ActionRegistry
    from annotator.gui.context import GuiContext
    from annotator.gui.pages.review import Page

    def make(project: Any, user: str = "adj", case_id: str = "T1") -> Any:
        registry = ActionRegistry(bindings_file=tmp_path / "shortcuts.json")
        page = Page(GuiContext(project, user, registry, case_id=case_id))
        qtbot.addWidget(page)
        page.resize(1280, 800)
        page.show()
        qtbot.waitExposed(page)
        qtbot.waitUntil(page.ready, timeout=10_000)  # the queue loads in the background
        page.activateWindow()
        qtbot.waitUntil(page.isActiveWindow, timeout=5_000)  # shortcuts need an active window
        page.table.setFocus()
        return page

    yield make
    from PySide6.QtCore import QThreadPool

    QThreadPool.globalInstance().waitForDone(10_000)


def keys(qtbot, widget, *presses: Any) -> None:  # type: ignore[no-untyped-def]
    for press in presses:
        qtbot.keyClick(widget, press)


def _decision(project, case_id: str, key: str):  # type: ignore[no-untyped-def]
    with project.tx() as session:
        return base.decision_rows(session, base.get_case(session, case_id)).get(key)


def test_keyboard_decision_lands_with_reason_and_adjudicator(qtbot, conflicts, make_page) -> None:  # type: ignore[no-untyped-def]
    page = make_page(conflicts)
    item = page.table.current()
    assert item.key == "importance:Figure 3"  # essential vs optional comes first
    assert "Not green yet" in page.banner.text()
    letter = next(x for x, v in item.values.items() if v == "essential")
    # the page's letters are the command line's letters
    listed = next(i for i in list_items(conflicts, "adj") if i.key == "importance:Figure 3")
    assert listed.values == item.values
    keys(qtbot, page.table, letter, "2", Qt.Key.Key_Return)
    row = _decision(conflicts, "T1", "importance:Figure 3")
    assert (row.value, row.adjudicator) == ("essential", "adj")
    assert row.reason_code == "clinical_judgement"
    with conflicts.tx() as session:
        assert [e.key for e in entries(session, action="adjudicated")] == ["importance:Figure 3"]
    # the next open item is selected for the next decision
    assert page.table.current().state == "open"


def test_reason_is_required_and_text_is_kept(qtbot, conflicts, make_page) -> None:  # type: ignore[no-untyped-def]
    page = make_page(conflicts)
    keys(qtbot, page.table, "A", Qt.Key.Key_Return)
    assert _decision(conflicts, "T1", "importance:Figure 3") is None
    assert "choose a reason" in page.panel.status.text()
    keys(qtbot, page.table, "1", "T")
    assert page.panel.text.hasFocus()
    qtbot.keyClicks(page.panel.text, "protocol section 4")
    qtbot.keyClick(page.panel.text, Qt.Key.Key_Return)
    row = _decision(conflicts, "T1", "importance:Figure 3")
    assert (row.reason_code, row.reason_text) == ("protocol", "protocol section 4")


def test_order_board_edited_by_keyboard(qtbot, conflicts, make_page) -> None:  # type: ignore[no-untyped-def]
    page = make_page(conflicts)
    while page.table.current().key != "order":
        keys(qtbot, page.table, "J")
    keys(qtbot, page.table, "E")
    dialog = page.dialog
    qtbot.waitUntil(dialog.isActiveWindow, timeout=5_000)
    # the merge keeps the agreed pairs; the disputed tie starts on the mean (2 vs 2.5)
    assert dialog is not None and dialog.board == {"Figure 1": 1, "Figure 2": 2, "Figure 3": 3}
    # tie Figure 3 with Figure 2, unrank nothing: Down Down 2, then Enter
    keys(qtbot, dialog.table, Qt.Key.Key_Down, Qt.Key.Key_Down, "2", Qt.Key.Key_Return)
    assert page.dialog is None
    qtbot.waitUntil(page.isActiveWindow, timeout=5_000)
    assert page.panel.source == "edit" and "edit" in page.panel.cards
    keys(qtbot, page.table, "4", Qt.Key.Key_Return)
    row = _decision(conflicts, "T1", "order")
    assert row.value == {"Figure 1": 1, "Figure 2": 2, "Figure 3": 2}
    assert row.reason_code == "template_error"


def test_rubric_text_shows_a_word_diff(qtbot, conflicts, make_page) -> None:  # type: ignore[no-untyped-def]
    page = make_page(conflicts)
    while page.table.current().family != "rubric":
        keys(qtbot, page.table, "J")
    bodies = [c.findChildren(type(page.header))[1].text() for c in page.panel.cards.values()]
    assert any("<s" in b and "<b" in b for b in bodies)  # struck and added words
    keys(qtbot, page.table, "B", "1", Qt.Key.Key_Return)
    assert _decision(conflicts, "T1", "rubric:Diagnosis/3") is not None


def test_green_light_refused_then_granted(qtbot, conflicts, make_page) -> None:  # type: ignore[no-untyped-def]
    page = make_page(conflicts)
    keys(qtbot, page.table, "G")
    assert "cannot be green-lit" in page.message.text()
    assert base.review_case(conflicts, "T1").state == "in_review"
    while page.table.current() is not None and page.table.current().state == "open":
        keys(qtbot, page.table, "A", "1", Qt.Key.Key_Return)
    assert "Ready for the green light" in page.banner.text()
    keys(qtbot, page.table, "G")
    assert base.review_case(conflicts, "T1").state == "green_lit"
    assert "Green-lit by adj" in page.banner.text()


def test_own_case_and_missing_role_are_refused(qtbot, conflicts, make_page) -> None:  # type: ignore[no-untyped-def]
    from annotator.services.users import add_user

    add_user(conflicts, "cu", "a2", ["adjudicator"])
    page = make_page(conflicts, user="a2")
    assert "a2 annotated case T1" in page.panel.status.text()
    keys(qtbot, page.table, "A", "1", Qt.Key.Key_Return)
    assert _decision(conflicts, "T1", "importance:Figure 3") is None
    page = make_page(conflicts, user="cu")
    assert "adjudicator role" in page.panel.status.text()


def test_notes_and_every_action_in_the_registry(qtbot, conflicts, make_page) -> None:  # type: ignore[no-untyped-def]
    page = make_page(conflicts)
    notes = page.case_panel.notes.toPlainText()
    assert "Typical LETM" in notes and "Brain?" in notes
    registry = page.context.actions
    assert {"review.pick.A", "review.edit", "review.confirm", "review.green_light"} <= set(
        registry.actions
    )
    assert registry.conflicts() == []
    qtbot.waitUntil(lambda: bool(page.case_panel.pixmaps), timeout=10_000)


def test_the_queue_is_read_off_the_gui_thread(  # type: ignore[no-untyped-def]
    qtbot, conflicts, tmp_path: Path, monkeypatch
) -> None:
    import threading

    from annotator.gui.actions import ActionRegistry
    from annotator.gui.context import GuiContext
    from annotator.gui.pages.review import Page
    from annotator.services.review import queue as review_queue

    threads: list[str] = []
    real = review_queue.case_queue_page

    def spy(*args: Any, **kwargs: Any) -> Any:
        threads.append(threading.current_thread().name)
        return real(*args, **kwargs)

    monkeypatch.setattr(review_queue, "case_queue_page", spy)
    registry = ActionRegistry(bindings_file=tmp_path / "shortcuts.json")
    page = Page(GuiContext(conflicts, "adj", registry, case_id="T1"))
    qtbot.addWidget(page)
    assert not page.ready()  # the constructor returned before the queue was read
    qtbot.waitUntil(page.ready, timeout=10_000)
    assert threads and threading.main_thread().name not in threads
    assert page.queue.current() == "T1" and page.table.current() is not None


def test_the_queue_shows_a_page_and_reads_the_next_one_when_stepped_past_it(  # type: ignore[no-untyped-def]
    qtbot, conflicts, make_page, monkeypatch
) -> None:
    from annotator.gui.adjudication import page as review_page

    monkeypatch.setattr(review_page, "QUEUE_PAGE", 1)
    page = make_page(conflicts)
    assert [e.case_id for e in page.queue.entries] == ["T1"]  # one page of one row
    assert "2 cases" in page.queue.heading.text()  # the heading counts the whole queue
    page.queue.step(1)  # past the last row shown: the next page is read
    qtbot.waitUntil(lambda: len(page.queue.entries) == 2, timeout=10_000)
    page.queue.step(1)
    assert page.queue.current() == "T2"
    page.queue.step(1)  # a full page may not be the last: the empty one after it says so
    qtbot.waitUntil(lambda: page.queue.after is None, timeout=10_000)
    assert [e.case_id for e in page.queue.entries] == ["T1", "T2"]


def test_conflicts_waiting_on_other_pages_are_named(  # type: ignore[no-untyped-def]
    qtbot, conflicts, make_page, tmp_path: Path
) -> None:
    from annotator.services.demo import SENIOR, build_demo
    from annotator.services.judging import review as judge_review
    from annotator.services.sme import adjudication as sme_adjudication
    from annotator.store.project import open_project

    page = make_page(conflicts)
    assert page.queue.elsewhere.isHidden()  # no SME or judge work in this project

    build_demo(str(tmp_path / "demo"))
    demo = open_project(str(tmp_path / "demo"), create=False)
    try:
        sme_open = sme_adjudication.list_conflicts(demo, SENIOR, open_only=True)
        judge_open = judge_review.list_conflicts(demo, SENIOR, open_only=True)
        page = make_page(demo, SENIOR, "demo-005")
        text = page.queue.elsewhere.text()
        assert page.queue.elsewhere.isVisible()
        assert f"{len(sme_open)} open conflict(s) in SME review" in text
        assert f"{len(judge_open)} open conflict(s) in Judge scoring" in text
    finally:
        demo.close()
