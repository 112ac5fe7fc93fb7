"""Moving on to the next case: it was read ahead while the physician worked, so opening it
reads nothing on the GUI thread (its stamp is checked on a worker), and a read ahead the store
has moved past is read again and shown as stored; an edit made before the check answers checks
the stamp itself. A case chosen that was not read ahead is read on a worker before it opens."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from annotator.domain import labels as L
from annotator.errors import PermissionDenied
from annotator.gui.workspace.draft_editors import SPARE_GROUPS
from annotator.services import annotating, workspace
from gui.conftest import USER

pytestmark = pytest.mark.gui


def _count_reads(page, monkeypatch) -> list[str]:  # type: ignore[no-untyped-def]
    reads: list[str] = []
    read = page.session.read

    def counted(case_id: str):  # type: ignore[no-untyped-def]
        reads.append(case_id)
        return read(case_id)

    monkeypatch.setattr(page.session, "read", counted)
    return reads


def test_the_next_case_opens_from_what_was_read_ahead(  # type: ignore[no-untyped-def]
        qtbot, page, gui_project, monkeypatch) -> None:
    reads = _count_reads(page, monkeypatch)
    qtbot.waitUntil(page.settled, timeout=10_000)
    following = page.case_list.neighbour("T1", 1)
    assert page._ahead is not None and page._ahead[0] == following
    stamps: list[str] = []
    stamp = annotating.view_stamp
    monkeypatch.setattr(annotating, "view_stamp", lambda project, user, case_id: (
        stamps.append(case_id), stamp(project, user, case_id))[1])
    page.open_case(following)
    assert reads == []  # nothing read: the view was read ahead, its stamp is checked aside
    fresh = annotating.view(gui_project, USER, following)
    assert page.session.view == fresh
    assert page.images and page.images == workspace.case_images(gui_project, USER, following)
    assert stamps == []  # the stamp is asked for once the case is on screen, not during
    qtbot.waitUntil(page.ready, timeout=10_000)
    qtbot.waitUntil(lambda: page.session._unverified is None, timeout=10_000)  # answered
    assert stamps == [following]  # once: the view was the store's


def test_a_read_ahead_the_store_moved_past_is_read_again(  # type: ignore[no-untyped-def]
        qtbot, page, gui_project, monkeypatch) -> None:
    qtbot.waitUntil(page.settled, timeout=10_000)
    following = page.case_list.neighbour("T1", 1)
    # Another window of the same annotator labels the next case meanwhile.
    annotating.set_label(gui_project, USER, following, "difficulty", "", "hard")
    reads = _count_reads(page, monkeypatch)
    page.open_case(following)
    assert reads == []  # shown at once from the read ahead; the stamp's answer comes next
    # Read again once; the case after it may be read ahead before or after that.
    qtbot.waitUntil(lambda: following in reads, timeout=10_000)
    assert reads.count(following) == 1
    assert page.session.case_id == following
    assert page.session.labels["difficulty"] == {"value": "hard", "how": "set"}
    assert "changed in the store" in page.header.error.text()


def test_an_edit_before_the_stamp_answers_is_refused_when_the_store_moved_on(  # type: ignore[no-untyped-def]
        qtbot, page, gui_project, monkeypatch) -> None:
    qtbot.waitUntil(page.settled, timeout=10_000)
    following = page.case_list.neighbour("T1", 1)
    annotating.set_label(gui_project, USER, following, "difficulty", "", "hard")
    # The worker's answer is held back: the edit comes first and checks the stamp itself.
    monkeypatch.setattr(page.session, "verify", lambda: None)
    page.open_case(following)
    refusals: list[str] = []
    page.session.failed.connect(refusals.append)
    assert not page.session.apply([L.LabelEdit("difficulty", {"value": "normal", "how": "set"})],
                                  "difficulty normal")
    assert annotating.view(gui_project, USER, following).labels["difficulty"] == {
        "value": "hard", "how": "set"}  # the store's value, not overwritten
    assert refusals and "changed in the store since it was read" in refusals[0]
    qtbot.waitUntil(lambda: page.session.labels.get("difficulty") == {
        "value": "hard", "how": "set"}, timeout=10_000)
    # Read again, the case takes edits.
    assert page.session.apply([L.LabelEdit("difficulty", {"value": "normal", "how": "set"})],
                              "difficulty normal")
    assert annotating.view(gui_project, USER, following).labels["difficulty"] == {
        "value": "normal", "how": "set"}


def test_any_opening_drops_the_read_ahead(qtbot, page, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    qtbot.waitUntil(page.settled, timeout=10_000)
    following = page.case_list.neighbour("T1", 1)
    elsewhere = page.case_list.neighbour(following, 1)
    reads = _count_reads(page, monkeypatch)
    page.open_case(elsewhere)  # a jump: read now; the read ahead of the next case is dropped
    page.open_case(following)
    assert reads == [elsewhere, following]


def test_the_next_case_s_step_groups_are_made_while_the_physician_works(  # type: ignore[no-untyped-def]
        qtbot, page, monkeypatch) -> None:
    qtbot.waitUntil(page.settled, timeout=10_000)
    # The spare groups, made in idle turns after the first case: a group, then each of its
    # three fields, one per turn, each turn calling prepare again (which the recording
    # below would count). The page is settled only once they are all made.
    assert len(page.steps.slots) == SPARE_GROUPS and len(page.steps.slots[-1].fields) == 3
    assert not page.steps.preparing()
    prepared: list[int] = []
    made: list[tuple[int, int]] = []  # (groups, fields of the last) after each turn's call
    prepare = page.steps.prepare

    def recording(content: dict) -> None:  # type: ignore[type-arg]
        prepared.append(len(content.get("diagnostic_steps") or []))
        prepare(content)
        made.append((len(page.steps.slots), len(page.steps.slots[-1].fields)))

    monkeypatch.setattr(page.steps, "prepare", recording)
    page.open_case(page.case_list.neighbour("T1", 1))
    qtbot.waitUntil(page.settled, timeout=10_000)
    assert prepared == [3]  # the case after it, read ahead: its groups are asked for
    # A case with more steps than any before: a group, then each of its fields, one per
    # turn, hidden until shown.
    before = len(page.steps.slots)
    made.clear()
    content = {"diagnostic_steps": [{"step": f"s{n}"} for n in range(before + 2)]}
    page.steps.prepare(content)
    qtbot.waitUntil(lambda: made[-1:] == [(before + 2, 3)] and len(made) > 8, timeout=10_000)
    assert made == [(before + 1, 0), (before + 1, 1), (before + 1, 2), (before + 1, 3),
                    (before + 2, 0), (before + 2, 1), (before + 2, 2), (before + 2, 3),
                    (before + 2, 3)]  # the last call finds nothing left to make
    assert all(slot.group.isHidden() for slot in page.steps.slots[3:])
    assert not any(slot.group.isHidden() for slot in page.steps.slots[:3])


def test_the_next_case_s_strip_cards_are_drawn_while_the_physician_works(  # type: ignore[no-untyped-def]
        qtbot, make_window, gui_project, monkeypatch) -> None:
    # T2 shows the same exams as T1: a label makes its cards look different from any shown.
    first = annotating.view(gui_project, USER, "T2").figures[0]
    annotating.set_label(gui_project, USER, "T2", "importance", first, "essential")
    page = make_window(case_id="T1").page("annotate")
    qtbot.waitUntil(page.settled, timeout=10_000)
    assert page._ahead is not None and page._ahead[0] == "T2"
    following, _view, images = page._ahead
    # Its thumbnails in too (each drew its card again, with the thumbnail, in idle turns).
    qtbot.waitUntil(lambda: page.settled() and all(
        page.loader.thumbnail(refs[0].sha256) is not None for refs in images.values() if refs),
        timeout=10_000)
    drawn: list[str] = []
    draw = page.strip.cards._draw

    def counted(painter, box, font, selected, index) -> None:  # type: ignore[no-untyped-def]
        drawn.append(index.data())
        draw(painter, box, font, selected, index)

    monkeypatch.setattr(page.strip.cards, "_draw", counted)
    page.open_case(following)
    page.strip.viewport().repaint()  # painted now, as the next turn of the loop would
    assert len(page.strip_model.cards) == len(images) > 1
    assert drawn == []  # every card, the selected first one too, was drawn ahead and kept
    # A card that changes is drawn anew: what a card shows is its key.
    page.strip_model.update_card(1, dataclasses.replace(page.strip_model.cards[1],
                                                        importance="essential"))
    page.strip.viewport().repaint()
    assert drawn == [page.strip_model.cards[1].figure]


def _reads_on_threads(page, monkeypatch) -> list[tuple[str, bool]]:  # type: ignore[no-untyped-def]
    """(case id, read on the GUI thread?) of every read of the page's session."""
    found: list[tuple[str, bool]] = []
    read = page.session.read

    def recorded(case_id: str):  # type: ignore[no-untyped-def]
        found.append((case_id, threading.current_thread() is threading.main_thread()))
        return read(case_id)

    monkeypatch.setattr(page.session, "read", recorded)
    return found


def test_a_case_chosen_in_the_list_is_read_on_a_worker(  # type: ignore[no-untyped-def]
        qtbot, page, monkeypatch) -> None:
    qtbot.waitUntil(page.settled, timeout=10_000)
    elsewhere = page.case_list.neighbour(page.case_list.neighbour("T1", 1), 1)
    reads = _reads_on_threads(page, monkeypatch)
    page.case_list.caseChosen.emit(elsewhere)  # what a click on its row emits
    assert page.session.case_id == "T1"  # still shown while the chosen case is read
    assert not page.ready()
    qtbot.waitUntil(lambda: page.session.case_id == elsewhere, timeout=10_000)
    assert reads[0] == (elsewhere, False)  # read on a worker, not on the GUI thread
    assert not any(on_gui for _case, on_gui in reads)
    qtbot.waitUntil(page.ready, timeout=10_000)


def test_the_next_case_chosen_opens_at_once_from_the_read_ahead(  # type: ignore[no-untyped-def]
        qtbot, page, monkeypatch) -> None:
    qtbot.waitUntil(page.settled, timeout=10_000)
    following = page.case_list.neighbour("T1", 1)
    reads = _reads_on_threads(page, monkeypatch)
    page.step_case(1)  # the next-case shortcut
    assert page.session.case_id == following
    assert (following, True) not in reads


def test_a_later_choice_supersedes_one_still_being_read(  # type: ignore[no-untyped-def]
        qtbot, page) -> None:
    qtbot.waitUntil(page.settled, timeout=10_000)
    following = page.case_list.neighbour("T1", 1)
    elsewhere = page.case_list.neighbour(following, 1)
    opened: list[str] = []
    page.session.caseOpened.connect(opened.append)
    page.choose_case(elsewhere)
    page.choose_case("T1")  # changed their mind before it came in: back to the first case
    qtbot.waitUntil(lambda: opened == ["T1"] and page.ready(), timeout=10_000)
    qtbot.wait(50)  # the superseded read's answer, if it were used, would come now
    assert opened == ["T1"] and page.session.case_id == "T1"


def test_a_chosen_case_that_cannot_be_read_says_why_and_the_case_stays(  # type: ignore[no-untyped-def]
        qtbot, page, monkeypatch) -> None:
    qtbot.waitUntil(page.settled, timeout=10_000)
    elsewhere = page.case_list.neighbour(page.case_list.neighbour("T1", 1), 1)

    def withdrawn(case_id: str):  # type: ignore[no-untyped-def]
        raise PermissionDenied(f"{case_id} is no longer assigned to you")

    monkeypatch.setattr(page.session, "read", withdrawn)
    page.case_list.caseChosen.emit(elsewhere)
    qtbot.waitUntil(lambda: "no longer assigned" in page.header.error.text(), timeout=10_000)
    assert page.session.case_id == "T1"
    assert page.case_list.current == "T1"  # the list shows the case on screen again
    assert page.ready()
