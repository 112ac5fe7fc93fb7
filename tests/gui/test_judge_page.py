"""The Judge scoring page: a score entered with the keyboard lands in the store, undo works."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

from annotator.gui.context import GuiContext
from annotator.gui.pages.judge import Page
from annotator.resources import judged_runs_dir
from annotator.services import kinds
from annotator.services.judging import scoring as judge_scoring
from annotator.services.judging.imports import import_runs

RUNS = sorted(judged_runs_dir().glob("*.benchmark_full.json"))


def _scoring_page(qtbot: Any, team: Any) -> Page:
    """The judge page of a1, who scores every output of one imported run."""
    import_runs(team, "cu", RUNS[:1])
    judge_scoring.assign(team, "cu", 1)
    page = Page(GuiContext(team, "a1"))
    qtbot.addWidget(page)
    return page


def _store(project: Any, item: Any) -> dict[str, Any]:
    return judge_scoring.view(project, "a1", item).scores


def test_keyboard_scores_land_in_the_store(qtbot: Any, team: Any, tmp_path: Path) -> None:
    import_runs(team, "cu", RUNS)
    judge_scoring.assign(team, "cu", 1)
    page = Page(GuiContext(team, "a1"))
    qtbot.addWidget(page)
    page.resize(1500, 950)
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    qtbot.waitUntil(page.isActiveWindow)
    page.items.setFocus()
    item = page.item
    assert item is not None
    assert "agent-alpha" not in page.case.toPlainText()
    assert page.case.toPlainText().startswith("output 1 of 8")
    qtbot.keyClick(page.items, Qt.Key.Key_2)  # diagnosis, then the highlight moves on
    qtbot.keyClick(page.items, Qt.Key.Key_3)  # localisation
    assert _store(team, item) == {"diagnosis": 2, "localization": 3}
    qtbot.keyClick(page.items, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert _store(team, item) == {"diagnosis": 2}
    # A button press saves as well.
    page.form.rows[2].buttons[1].click()
    assert _store(team, item)["differential_list"] == 1
    assert page.form.rows[2].buttons[1].isChecked()
    page.grab().save(str(tmp_path / "judge.png"))
    assert (tmp_path / "judge.png").stat().st_size > 0


@pytest.mark.usefixtures("stay_after_submit")
def test_judges_appear_only_after_submit(qtbot: Any, team: Any) -> None:
    page = _scoring_page(qtbot, team)
    assert page.item is not None and page.view is not None
    assert not page.reveal_button.isEnabled()
    assert page.tabs.count() == 1  # no conflicts or agreement (run names) for a physician
    page.reveal()  # refused before submit: nothing shown
    assert page.judges.isHidden()
    for row in page.form.rows:
        page.choose(row.key, "U" if row.key.endswith("/label") else 2)
    page.submit()
    assert page.view.submitted and page.reveal_button.isEnabled()
    page.reveal()
    assert not page.judges.isHidden()
    assert "rule" in page.judges.toPlainText() and "llm" in page.judges.toPlainText()


def test_a_submit_goes_on_to_the_next_open_output(qtbot: Any, team: Any) -> None:
    page = _scoring_page(qtbot, team)
    assert len(page.entries) >= 2
    first = page.item
    for row in page.form.rows:
        page.choose(row.key, "U" if row.key.endswith("/label") else 2)
    page.submit()
    assert page.entries[0][2]  # the first is submitted
    assert page.items.currentRow() == 1 and page.item != first


def test_a_senior_decides_a_conflict_on_the_page(qtbot: Any, team: Any) -> None:
    from annotator.services.judging.demo import demo_judge_scoring
    from annotator.services.judging.review import list_conflicts

    demo_judge_scoring(team, "cu", "adj", seed=7)
    before = len(list_conflicts(team, "adj", open_only=True))
    page = Page(GuiContext(team, "adj"))
    qtbot.addWidget(page)
    assert page.tabs.count() == 3
    page.reload_conflicts()
    page.conflicts.setCurrentCell(0, 0)
    conflict = page._conflict_rows[0]
    page.decision.setText("A" if conflict.key.endswith("/label") else "2")
    page.decision_reason.setText("fits the rubric")
    page.decide()
    assert len(list_conflicts(team, "adj", open_only=True)) == before - 1
    page.agreement.refresh()
    assert page.agreement.matrix.rowCount() >= 2


def test_undo_restores_what_the_store_held_not_what_the_page_showed(
    qtbot: Any, team: Any
) -> None:
    page = _scoring_page(qtbot, team)
    item = page.item
    assert item is not None
    # The same physician scores in another window after this page was opened.
    kinds.JUDGE.set_field(team, "a1", item, "diagnosis", 1)
    page.choose("diagnosis", 3)
    assert _store(team, item)["diagnosis"] == 3
    page.undo.undo()
    assert _store(team, item)["diagnosis"] == 1


def test_the_scoring_keys_are_in_the_action_registry(qtbot: Any, team: Any) -> None:
    import_runs(team, "cu", RUNS[:1])
    judge_scoring.assign(team, "cu", 1)
    context = GuiContext(team, "a1")
    page = Page(context)
    qtbot.addWidget(page)
    assert context.actions is not None
    sheet = {(text, key) for _group, text, key in context.actions.sheet()}
    assert ("Score 2 on the highlighted row", "2") in sheet
    assert ("Next output", "PgDown") in sheet
    assert len([s for s in context.actions.specs if s.startswith("judge.")]) == 15



def test_keys_score_once_the_page_is_shown_in_the_window(
    qtbot: Any, make_window: Any, gui_project: Any
) -> None:
    """Page actions fire with the focus in their page: showing the page puts it there."""
    from PySide6.QtWidgets import QApplication

    import_runs(gui_project, "cu", RUNS[:1])
    judge_scoring.assign(gui_project, "cu", 2)
    window = make_window()
    window.show_page("judge")
    page = window.page("judge")
    qtbot.waitUntil(lambda: page.isAncestorOf(QApplication.focusWidget()), timeout=5000)
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_2)
    assert judge_scoring.view(gui_project, "a1", page.item).scores == {"diagnosis": 2}
    # Every action of every page is in the registry, and no two clash.
    for page_id in ("annotate", "sme", "review", "judge"):
        window.page(page_id)
    assert window.registry.conflicts() == []


def test_active_time_on_an_output_is_stored_before_submit_and_on_leaving(
    qtbot: Any, team: Any
) -> None:
    """Time on task on the judge page (issue 26): measured as the Annotate page does."""
    from annotator.services.quality import snapshot

    page = _scoring_page(qtbot, team)
    first = page.item
    clock = page.activity.clock
    for at in (1000.0, 1020.0, 1045.0, 9000.0):  # 45 s of work, then a long absence
        clock.touch(at)
    for row in page.form.rows:
        page.choose(row.key, "U" if row.key.endswith("/label") else 2)
    page.submit()  # stored before the row freezes; the page goes on to the next output
    assert page.item != first
    for at in (2000.0, 2030.0):
        clock.touch(at)
    page.open_item(first)  # leaving the second output stores its 30 s
    times = next(q for q in snapshot(team, "cu").raters if q.rater == "a1").time
    assert times == [{"rater": "a1", "kind": "judge", "timed": 1, "median_seconds": 45.0,
                      "fast": []}]  # the second is not submitted: no time on task yet
    assert kinds.JUDGE.add_active_time(team, "a1", first, 10.0) is None  # submitted: frozen


def test_the_outputs_filter_by_benchmark_and_state_and_keep_the_choice(
    qtbot: Any, team: Any
) -> None:
    import_runs(team, "cu", RUNS)
    judge_scoring.assign(team, "cu", 1)
    page = Page(GuiContext(team, "a1"))
    qtbot.addWidget(page)
    benchmarks = [page.benchmark_filter.itemData(i) for i in range(page.benchmark_filter.count())]
    assert benchmarks[0] is None and benchmarks[1:] == judge_scoring.my_benchmarks(team, "a1")
    assert not any("agent" in str(b) for b in benchmarks)  # never the system under test
    everything = list(page.entries)
    first = page.item
    for row in page.form.rows:
        page.choose(row.key, "U" if row.key.endswith("/label") else 2)
    page.submit()
    page.state_filter.setCurrentIndex(page.state_filter.findData("submitted"))
    assert [entry[0] for entry in page.entries] == [first]
    page.state_filter.setCurrentIndex(page.state_filter.findData("assigned"))
    assert first not in [entry[0] for entry in page.entries]
    assert len(page.entries) == len(everything) - 1
    again = Page(GuiContext(team, "a1"))  # the page built again (a restart)
    qtbot.addWidget(again)
    assert again.state_filter.currentData() == "assigned"
    assert [entry[0] for entry in again.entries] == [entry[0] for entry in page.entries]
