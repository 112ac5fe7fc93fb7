"""The case list filters by modality, red flag, needs-fix and open conflict (the core
filters; the list only offers the choices the core reports and the user's roles allow), and
keeps the chosen filters across a restart."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.gui


def _shown(panel) -> list[str]:  # type: ignore[no-untyped-def]
    return [row.case_id for row in panel.model.rows]


def test_the_case_list_filters_by_modality_red_flag_and_needs_fix(qtbot, page, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services import annotating

    panel = page.case_list
    choices = [panel.modality.itemText(i) for i in range(panel.modality.count())]
    assert choices == ["Any modality", "CT", "MRI"]
    panel.modality.setCurrentIndex(panel.modality.findData("CT"))
    assert _shown(panel) == ["D1"]
    panel.modality.setCurrentIndex(0)
    panel.filter.setCurrentIndex(panel.filter.findData("needs_fix"))
    assert _shown(panel) == ["T3"]
    annotating.set_label(gui_project, "a1", "T2", "red_flag", "Figure 1", "not in pregnancy")
    panel.filter.setCurrentIndex(panel.filter.findData("red_flag"))
    assert _shown(panel) == ["T2"]


def test_annotators_are_not_offered_the_open_conflict_filter(page) -> None:  # type: ignore[no-untyped-def]
    panel = page.case_list
    assert panel.filter.findData("open_conflict") == -1


def test_a_senior_who_annotates_filters_by_open_conflict(qtbot, make_window, gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services import annotating
    from annotator.services.users import add_user

    add_user(gui_project, "cu", "a1", ["adjudicator"])  # a1 now also adjudicates
    panel = make_window(user="a1").page("annotate").case_list
    index = panel.filter.findData("open_conflict")
    assert index >= 0 and panel.filter.itemText(index) == "Open conflict"
    panel.filter.setCurrentIndex(index)
    expected = annotating.my_cases(gui_project, "a1", show="open_conflict").rows
    assert panel.model.rows == expected


def test_the_chosen_filters_are_kept_across_a_restart(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    first = make_window(user="a1").page("annotate").case_list
    first.modality.setCurrentIndex(first.modality.findData("CT"))
    first.filter.setCurrentIndex(first.filter.findData("todo"))
    assert _shown(first) == ["D1"]
    again = make_window(user="a1").page("annotate").case_list  # the app started again
    assert again.filter.currentData() == "todo"
    assert again.modality.currentData() == "CT"
    assert _shown(again) == ["D1"]
    other = make_window(user="a2").page("annotate").case_list  # per user
    assert other.filter.currentData() == "all" and other.modality.currentIndex() == 0


def test_an_edited_case_row_is_read_off_the_gui_thread(qtbot, page, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """After an edit the list shows the row's new progress, read on a worker thread (on a
    team store each read is a round trip the physician would wait for)."""
    import threading

    from annotator.domain import labels as L
    from annotator.services import workspace

    panel = page.case_list
    threads: list[threading.Thread] = []
    row = workspace.case_row

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        threads.append(threading.current_thread())
        return row(*args, **kwargs)

    monkeypatch.setattr(workspace, "case_row", counted)
    qtbot.waitUntil(page.ready, timeout=10_000)
    case_id = page.session.case_id
    before = panel.model.rows[panel.model.row_of(case_id)]
    assert page.session.apply([L.LabelEdit("difficulty", {"value": "hard", "how": "set"})],
                              "difficulty hard")
    qtbot.waitUntil(lambda: panel.model.rows[panel.model.row_of(case_id)].done > before.done,
                    timeout=10_000)
    assert threads and threading.main_thread() not in threads
    assert not panel.busy()
