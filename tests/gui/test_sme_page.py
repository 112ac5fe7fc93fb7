"""The SME review page: a verdict entered with keys and buttons lands in the store and
survives reopening the project; undo reverts the store; blind before submit; the rationale
is required when flagged; a senior decides a conflict and reads the results."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QThreadPool
from PySide6.QtWidgets import QApplication, QLabel, QLineEdit, QPlainTextEdit, QTextBrowser

from annotator.gui.context import GuiContext
from annotator.gui.pages.sme import SmePage
from annotator.services import kinds
from annotator.services.sme import review as sme_review
from annotator.services.sme.imports import import_benchmarks, import_items
from annotator.store.project import open_project
from sme.specs import valid_set

SYSTEM = "copilot-v2"


def _item(n: int, code: str) -> dict[str, Any]:
    item: dict[str, Any] = {
        "item_id": f"it-{n:02d}",
        "benchmark": code,
        "input": f"Pt is not without chest pain (case {n}).",
        "ground_truth": {"chest_pain": True, "fever": False},
        "output": {"chest_pain": n % 2 == 0, "fever": False},
        "system": SYSTEM,
    }
    if code == "A-NEG1":
        item["automated"] = {"score": 0.8, "outcome": "flag", "judge": "llm-judge-7"}
    return item


@pytest.fixture
def sme(team: Any, tmp_path: Path) -> Any:
    """A-NEG2 (manual_sme, with "Flag if") items 1-2, A-NEG1 (hybrid, no "Flag if") 3-4;
    every item reviewed by all three annotators, so a1 has every item."""
    import_benchmarks(team, "cu", valid_set(tmp_path))
    items = [_item(1, "A-NEG2"), _item(2, "A-NEG2"), _item(3, "A-NEG1"), _item(4, "A-NEG1")]
    path = tmp_path / "items.jsonl"
    path.write_text("".join(json.dumps(i) + "\n" for i in items))
    import_items(team, "cu", [path])
    sme_review.assign(team, "cu", per_item=3)
    return team


def _page(qtbot: Any, project: Any, user: str = "a1") -> SmePage:
    page = SmePage(GuiContext(project, user))
    qtbot.addWidget(page)
    page.resize(1280, 800)
    page.show()
    qtbot.waitExposed(page)
    page.activateWindow()
    qtbot.waitUntil(lambda: QApplication.activeWindow() is page)
    page.verdict.queue.setFocus()
    return page


def _open(page: SmePage, item: str, code: str) -> Any:
    task = sme_review.task_of(page.context.project, item, code)  # type: ignore[arg-type]
    row = [e.task_id for e in page.verdict.entries].index(task)
    page.verdict.queue.setCurrentRow(row)
    assert page.verdict.task == task
    return task


def _key(qtbot: Any, page: SmePage, key: str, ctrl: bool = False, shift: bool = False) -> None:
    mods = Qt.KeyboardModifier.NoModifier
    if ctrl:
        mods |= Qt.KeyboardModifier.ControlModifier
    if shift:
        mods |= Qt.KeyboardModifier.ShiftModifier
    target = QApplication.focusWidget() or page.verdict.queue
    qtbot.keyClick(target, getattr(Qt.Key, f"Key_{key}"), mods)


def _stored(project: Any, task: Any, user: str = "a1") -> dict[str, Any]:
    return dict(sme_review.view(project, user, task).fields)


def _type_rationale(qtbot: Any, page: SmePage, text: str) -> None:
    form = page.verdict.form
    form.rationale.setFocus()
    qtbot.keyClicks(form.rationale, text)
    page.verdict.queue.setFocus()  # leaving the field saves it (no waiting for the pause)


def _all_text(page: SmePage) -> str:
    """Everything the page shows in text widgets, visible or not."""
    parts = [w.toPlainText() for w in page.findChildren(QTextBrowser)]
    parts += [w.toPlainText() for w in page.findChildren(QPlainTextEdit)]
    parts += [w.text() for w in page.findChildren(QLabel) + page.findChildren(QLineEdit)]
    return "\n".join(parts)


@pytest.mark.usefixtures("stay_after_submit")
def test_a_verdict_by_keys_and_buttons_is_stored_and_survives_reopening(
    qtbot: Any, sme: Any, project_location: str
) -> None:
    page = _page(qtbot, sme)
    assert page.tabs.count() == 1  # no conflicts or results for an SME
    task = _open(page, "it-01", "A-NEG2")
    diff = page.verdict.diff.toPlainText()  # ground truth chest_pain true, output false
    assert "chest_pain" in diff and "changed" in diff and "fever" not in diff
    assert "Double negation" in page.verdict.card.toPlainText()
    _key(qtbot, page, "A")
    assert _stored(sme, task) == {"applicability": "applicable"}
    _key(qtbot, page, "F")
    _key(qtbot, page, "2")  # the second described level, highest first: 3 on 0..4
    assert _stored(sme, task) == {"applicability": "applicable", "outcome": "flag", "score": 3.0}
    form = page.verdict.form
    assert form.condition.isVisible() and not form.failure.isVisible()
    form.condition.setCurrentIndex(2)  # the second "Flag if" condition
    form.condition.activated.emit(2)
    condition = page.verdict.view.benchmark.flag_choices[1]  # type: ignore[union-attr]
    _type_rationale(qtbot, page, "drops the finding")
    form.level_buttons[0][1].click()  # a button: the top level, 4
    assert form.level_buttons[0][1].isChecked() and not form.level_buttons[1][1].isChecked()
    _key(qtbot, page, "Return", ctrl=True)
    assert page.verdict.view.submitted  # type: ignore[union-attr]
    expected = {
        "applicability": "applicable",
        "outcome": "flag",
        "flag_condition": condition,
        "score": 4.0,
        "rationale": "drops the finding",
    }
    assert _stored(sme, task) == expected
    assert page.verdict.entries[page.verdict.queue.currentRow()].state == "submitted"
    page.close()
    QThreadPool.globalInstance().waitForDone(10_000)

    # A new Project object on the same store and a new page show the submitted verdict.
    again = open_project(project_location, create=False, backup=False)
    try:
        reopened = _page(qtbot, again)
        _open(reopened, "it-01", "A-NEG2")
        view = reopened.verdict.view
        assert view is not None and view.submitted and view.fields == expected
        assert reopened.verdict.form.outcome["flag"].isChecked()
        assert reopened.verdict.form.rationale.toPlainText() == "drops the finding"
        assert not reopened.verdict.form.rationale.isEnabled()
        assert not reopened.verdict.submit_button.isEnabled()
    finally:
        again.close()


def test_undo_and_redo_go_through_the_store(qtbot: Any, sme: Any) -> None:
    page = _page(qtbot, sme)
    task = _open(page, "it-02", "A-NEG2")
    _key(qtbot, page, "X")
    _key(qtbot, page, "Z", ctrl=True)
    assert _stored(sme, task) == {}
    _key(qtbot, page, "Z", ctrl=True, shift=True)
    assert _stored(sme, task) == {"applicability": "excluded"}
    _key(qtbot, page, "A")
    _key(qtbot, page, "P")
    _type_rationale(qtbot, page, "fine")
    _type_rationale(qtbot, page, " overall")  # a burst of typing on one field: one step
    assert _stored(sme, task)["rationale"] == "fine overall"
    page.verdict.undo_button.click()
    assert _stored(sme, task) == {"applicability": "applicable", "outcome": "pass"}
    _key(qtbot, page, "Z", ctrl=True)
    _key(qtbot, page, "Z", ctrl=True)
    assert _stored(sme, task) == {"applicability": "excluded"}
    assert page.verdict.form.applicability["excluded"].isChecked()
    assert page.verdict.form.clause.isVisible()  # excluded: name the clause
    # ... and no outcome or score: the core's rule drops them from an excluded verdict.
    assert not page.verdict.form.outcome["pass"].isVisible()
    assert not page.verdict.form.free.isVisible()
    # J / K move through the queue; the undo stack belongs to one task.
    # Typing that pauses is saved by itself, the focus still in the field.
    page.verdict.form.rationale.setFocus()
    qtbot.keyClicks(page.verdict.form.rationale, "template")
    qtbot.waitUntil(lambda: _stored(sme, task).get("rationale") == "template", timeout=5_000)
    assert page.verdict.form.rationale.hasFocus()
    page.verdict.queue.setFocus()
    _key(qtbot, page, "J")
    assert page.verdict.task != task and not page.verdict.undo.canUndo()
    _key(qtbot, page, "K")
    assert page.verdict.task == task


@pytest.mark.usefixtures("stay_after_submit")
def test_blind_before_submit_and_the_automated_verdict_after(qtbot: Any, sme: Any) -> None:
    # Another SME has already submitted this hybrid item with a telling rationale.
    task = sme_review.task_of(sme, "it-03", "A-NEG1")
    other = "a2"
    for key, value in (("applicability", "applicable"), ("outcome", "flag"),
                       ("failure_reason", "secret reason"), ("score", 0.7),
                       ("rationale", "OTHER-SME-RATIONALE")):  # fmt: skip
        kinds.SME.set_field(sme, other, task, key, value)
    kinds.SME.submit(sme, other, task)

    page = _page(qtbot, sme)
    _open(page, "it-03", "A-NEG1")
    shown = _all_text(page)
    for secret in (SYSTEM, "llm-judge-7", "OTHER-SME-RATIONALE", "secret reason", other):
        assert secret not in shown
    assert page.verdict.verdicts.isHidden()
    _key(qtbot, page, "A")
    _key(qtbot, page, "P")
    _key(qtbot, page, "1")  # 1.0, the top level
    _key(qtbot, page, "Return", ctrl=True)
    assert page.verdict.view is not None and page.verdict.view.submitted
    # Submitted: the automated verdict of the hybrid benchmark is shown beside the SME's.
    assert not page.verdict.verdicts.isHidden()
    beside = page.verdict.verdicts.toPlainText()
    assert "llm-judge-7" in beside and "0.8" in beside and "flag" in beside
    assert "OTHER-SME-RATIONALE" not in _all_text(page) and SYSTEM not in _all_text(page)


def test_a_submit_goes_on_to_the_next_open_item(qtbot: Any, sme: Any) -> None:
    page = _page(qtbot, sme)
    task = _open(page, "it-03", "A-NEG1")
    row = page.verdict.queue.currentRow()
    for key in ("A", "P", "1"):
        _key(qtbot, page, key)
    _key(qtbot, page, "Return", ctrl=True)
    assert sme_review.view(sme, "a1", task).submitted
    entries = page.verdict.entries
    assert entries[row].state == "submitted"
    following = page.verdict.queue.currentRow()
    assert following != row and entries[following].state != "submitted"
    assert page.verdict.task == entries[following].task_id


def test_rationale_is_required_when_flagged(qtbot: Any, sme: Any) -> None:
    page = _page(qtbot, sme)
    task = _open(page, "it-04", "A-NEG1")  # no "Flag if": a free-text failure reason
    _key(qtbot, page, "A")
    _key(qtbot, page, "F")
    _key(qtbot, page, "3")
    form = page.verdict.form
    assert form.failure.isVisible() and not form.condition.isVisible()
    form.failure.setFocus()
    qtbot.keyClicks(form.failure, "fever set true")
    page.verdict.queue.setFocus()
    assert form.rationale_label.text() == "Rationale *"
    form.free.setFocus()  # a free value within the scale instead of a described level
    form.free.selectAll()
    qtbot.keyClicks(form.free, "0.85")
    qtbot.keyClick(form.free, Qt.Key.Key_Return)
    assert sme_review.view(sme, "a1", task).fields["score"] == 0.85
    assert not any(button.isChecked() for _v, button in form.level_buttons)
    _key(qtbot, page, "Return", ctrl=True)
    view = sme_review.view(sme, "a1", task)
    assert not view.submitted and view.missing == ["rationale"]
    assert "not given yet: rationale" in page.verdict.status.text()
    # Typing in the rationale never sets a verdict (p, a, x, f are keys elsewhere), and
    # Ctrl+Enter from inside the field saves the text before submitting.
    form.rationale.setFocus()
    qtbot.keyClicks(form.rationale, "pax: denied fever recorded as present 1")
    qtbot.keyClick(form.rationale, Qt.Key.Key_Return, Qt.KeyboardModifier.ControlModifier)
    view = sme_review.view(sme, "a1", task)
    assert view.submitted
    assert view.fields["rationale"] == "pax: denied fever recorded as present 1"
    assert (view.fields["outcome"], view.fields["score"]) == ("flag", 0.85)


def test_a_senior_decides_a_conflict_and_reads_the_results(qtbot: Any, team: Any) -> None:
    from annotator.services.sme import adjudication as sme_adjudication
    from annotator.services.sme.demo import demo_sme_review

    demo_sme_review(team, "cu", "adj", ("a1", "a2", "a3"), seed=7)
    open_before = len(sme_adjudication.list_conflicts(team, "adj", open_only=True))
    assert open_before >= 1
    page = _page(qtbot, team, "adj")
    assert [page.tabs.tabText(i) for i in range(page.tabs.count())] == [
        "Verdict", "Conflicts", "Results",
    ]  # fmt: skip
    # No items of their own: the senior starts on the conflicts, the verdict tab says why.
    assert page.tabs.currentWidget() is page.conflicts
    assert page.verdict.stack.currentWidget() is page.verdict.empty
    conflicts = page.conflicts
    assert conflicts is not None and conflicts.table.rowCount() >= open_before
    row = next(i for i, c in enumerate(conflicts.rows) if c.decided is None)
    conflicts.table.setCurrentCell(row, 0)
    side_by_side = conflicts.verdicts.toPlainText()
    assert "SME A" in side_by_side and "SME B" in side_by_side
    conflicts.value.setCurrentIndex(0)
    conflicts.decide()  # no reason: refused
    assert "reason" in conflicts.status.text()
    assert len(sme_adjudication.list_conflicts(team, "adj", open_only=True)) == open_before
    conflicts.reason.setText("the output matches the narrative")
    conflicts.decide()
    assert len(sme_adjudication.list_conflicts(team, "adj", open_only=True)) == open_before - 1

    page.tabs.setCurrentIndex(2)
    results = page.results
    assert results is not None
    qtbot.waitUntil(lambda: results.results is not None, timeout=60_000)
    codes = [results.table.item(r, 0).text().strip() for r in range(results.table.rowCount())]
    rubrics = {r.code for r in results.results.rubrics}  # type: ignore[union-attr]
    assert {f"{c} (weighted)" for c in rubrics} <= set(codes)
    assert any(c.startswith("A-NEG1 · ") for c in codes)
    assert results.forest.renderer().isValid()
    assert results.forest.width() > 300
    assert "ICC" in results.reliability.toPlainText()
    cells = [results.table.item(r, c).text() for r in range(results.table.rowCount())
             for c in range(results.table.columnCount()) if results.table.item(r, c)]
    # Benchmarks of a few items: the n is shown and no interval pretends to a precision.
    assert any("too few to estimate" in text and "n=" in text for text in cells)
    assert "threshold decision" in [results.table.horizontalHeaderItem(c).text()
                                    for c in range(results.table.columnCount())]

    # Deciding the remaining conflicts makes the results out of date: shown again, they
    # are recomputed and no item is left unresolved.
    first = results.results
    assert first is not None and sum(b.unresolved for b in first.benchmarks) > 0
    page.tabs.setCurrentIndex(1)
    for _ in range(len(conflicts.rows)):
        row = next((i for i, c in enumerate(conflicts.rows) if c.decided is None), None)
        if row is None:
            break
        conflicts.table.setCurrentCell(row, 0)
        conflicts.reason.setText("decided on the criteria")
        conflicts.decide()
    assert all(c.decided is not None for c in conflicts.rows)
    page.tabs.setCurrentIndex(2)
    qtbot.waitUntil(lambda: results.results is not first and not results.busy, timeout=60_000)
    assert sum(b.unresolved for b in results.results.benchmarks) == 0  # type: ignore[union-attr]


def test_in_the_main_window_the_keys_are_registered_and_rebindable(
    qtbot: Any, make_window: Any, gui_project: Any, tmp_path: Path
) -> None:
    import_benchmarks(gui_project, "cu", valid_set(tmp_path))
    path = tmp_path / "items.jsonl"
    path.write_text(json.dumps(_item(1, "A-NEG2")) + "\n")
    import_items(gui_project, "cu", [path])
    sme_review.assign(gui_project, "cu", per_item=2)
    window = make_window()
    window.show_page("sme")
    page = window.page("sme")
    task = page.verdict.task
    assert task is not None
    registry = window.registry
    assert registry.shortcut("sme.excluded") == "X" and not registry.conflicts()
    qtbot.keyClick(QApplication.focusWidget(), Qt.Key.Key_X)  # focus starts in the queue
    assert _stored(gui_project, task) == {"applicability": "excluded"}
    assert registry.rebind("sme.excluded", "E") == []
    qtbot.keyClick(page.verdict.queue, Qt.Key.Key_Z, Qt.KeyboardModifier.ControlModifier)
    assert _stored(gui_project, task) == {}
    qtbot.keyClick(page.verdict.queue, Qt.Key.Key_X)  # no longer bound
    assert _stored(gui_project, task) == {}
    qtbot.keyClick(page.verdict.queue, Qt.Key.Key_E)
    assert _stored(gui_project, task) == {"applicability": "excluded"}
    # Text typed just before the window closes is saved, without waiting for the pause.
    page.verdict.form.rationale.setFocus()
    qtbot.keyClicks(page.verdict.form.rationale, "template")
    assert "rationale" not in _stored(gui_project, task)
    window.close()
    assert _stored(gui_project, task)["rationale"] == "template"


def test_a_save_the_store_refuses_leaves_no_undo_step(
    qtbot: Any, sme: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotator.errors import StoreUnavailable

    page = _page(qtbot, sme)
    task = _open(page, "it-02", "A-NEG2")
    _key(qtbot, page, "A")

    def down(*_args: object) -> None:
        raise StoreUnavailable("the team store at db.example is not answering")

    monkeypatch.setattr(kinds.SME, "set_field", down)
    _key(qtbot, page, "P")
    assert "not answering" in page.verdict.status.text()
    assert page.verdict.undo.count() == 1  # only "applicable"
    assert not page.verdict.form.outcome["pass"].isChecked()
    monkeypatch.undo()
    _key(qtbot, page, "Z", ctrl=True)
    assert _stored(sme, task) == {}


def test_the_queue_filters_by_benchmark_and_shows_a_re_check(
    qtbot: Any, sme: Any, tmp_path: Path
) -> None:
    from sme.specs import benchmark, write

    task = sme_review.task_of(sme, "it-01", "A-NEG2")
    for key, value in (("applicability", "applicable"), ("outcome", "pass"), ("score", 4)):
        kinds.SME.set_field(sme, "a1", task, key, value)
    kinds.SME.submit(sme, "a1", task)
    # The benchmark's criteria change: a1's submitted verdict goes back for a re-check.
    inclusion = benchmark()["inclusion_criteria"].replace("entirely", "or invents one")
    write(tmp_path, "a-neg2.yaml", benchmark(inclusion_criteria=inclusion))
    assert import_benchmarks(sme, "cu", [tmp_path / "a-neg1.yaml", tmp_path / "a-neg2.yaml"])

    page = _page(qtbot, sme)
    verdict = page.verdict
    assert [verdict.filter.itemData(i) for i in range(verdict.filter.count())] == [
        None, "A-NEG1", "A-NEG2",
    ]  # fmt: skip
    verdict.filter.setCurrentIndex(2)
    assert [e.benchmark for e in verdict.entries] == ["A-NEG2", "A-NEG2"]
    assert verdict.queue.item(0).text().startswith("⚠")
    # The re-check opens first (work is left there), editable, with the SME's own fields.
    assert verdict.task == task and verdict.view is not None
    assert "needs re-check" in verdict.title.text()
    assert verdict.form.outcome["pass"].isEnabled() and verdict.form.outcome["pass"].isChecked()
    _key(qtbot, page, "Return", ctrl=True)
    assert sme_review.view(sme, "a1", task).state == "submitted"
    assert verdict.queue.item(0).text().startswith("✓")


def test_a_re_check_after_a_smaller_scale_says_which_answer_to_give_again(
    qtbot: Any, sme: Any, tmp_path: Path
) -> None:
    from sme.specs import benchmark, write

    task = sme_review.task_of(sme, "it-02", "A-NEG2")
    for key, value in (("applicability", "applicable"), ("outcome", "pass"), ("score", 4)):
        kinds.SME.set_field(sme, "a1", task, key, value)
    kinds.SME.submit(sme, "a1", task)
    scale = {"min_value": 0, "max_value": 3, "descriptions": {3: "correct", 0: "wrong"}}
    write(tmp_path, "a-neg2.yaml", benchmark(scoring_scale=scale, threshold=2,
                                            concept="Double negatives. Threshold: 2."))  # fmt: skip
    import_benchmarks(sme, "cu", [tmp_path / "a-neg1.yaml", tmp_path / "a-neg2.yaml"])

    page = _page(qtbot, sme)
    _open(page, "it-02", "A-NEG2")
    status = page.verdict.status
    assert "Re-check: score 4 is outside A-NEG2's scale 0..3" in status.text()
    assert [b.text() for _v, b in page.verdict.form.level_buttons] == ["1: 3", "2: 0"]
    _key(qtbot, page, "Return", ctrl=True)  # refused: the score must be given again
    assert sme_review.view(sme, "a1", task).state == "needs_recheck"
    _key(qtbot, page, "1")
    assert "Re-check" not in status.text()
    _key(qtbot, page, "Return", ctrl=True)
    view = sme_review.view(sme, "a1", task)
    assert view.state == "submitted" and view.fields["score"] == 3.0


def test_the_queue_filters_by_state_and_keeps_its_filters(qtbot: Any, sme: Any) -> None:
    task = sme_review.task_of(sme, "it-01", "A-NEG2")
    for key, value in (("applicability", "applicable"), ("outcome", "pass"), ("score", 4)):
        kinds.SME.set_field(sme, "a1", task, key, value)
    kinds.SME.submit(sme, "a1", task)
    page = _page(qtbot, sme)
    verdict = page.verdict
    states = [verdict.state_filter.itemData(i) for i in range(verdict.state_filter.count())]
    assert states == [None, "assigned", "in_progress", "submitted", "needs_recheck"]
    verdict.state_filter.setCurrentIndex(states.index("submitted"))
    assert [e.task_id for e in verdict.entries] == [task]
    verdict.state_filter.setCurrentIndex(states.index("assigned"))
    assert task not in [e.task_id for e in verdict.entries] and verdict.entries
    verdict.filter.setCurrentIndex(verdict.filter.findData("A-NEG1"))
    assert {(e.benchmark, e.state) for e in verdict.entries} == {("A-NEG1", "assigned")}
    rebuilt = _page(qtbot, sme)  # the page built again (a restart)
    again = rebuilt.verdict
    assert again.filter.currentData() == "A-NEG1"
    assert again.state_filter.currentData() == "assigned"
    assert [e.task_id for e in again.entries] == [e.task_id for e in verdict.entries]
