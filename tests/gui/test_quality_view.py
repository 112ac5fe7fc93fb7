"""The Quality view shows the core's snapshot: raters best first, figures per family."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from annotator.domain.labels import LabelEdit
from annotator.gui.quality.shot import render
from annotator.gui.quality.view import SUMMARY_HEADERS, QualityView
from annotator.services import annotating, kinds
from annotator.services.quality import detail_rows, mark_item, set_quality_settings, snapshot
from annotator.services.rating.repeats import add_repeats


def _complete(project: Any, name: str, case_id: str, fig3: str) -> None:
    annotating.accept_suggestions(project, name, case_id)
    kinds.CASES.set_fields(project, name, case_id,
                           [LabelEdit("importance:Figure 3", {"value": fig3, "how": "set"})])
    kinds.CASES.submit(project, name, case_id)


def test_the_view_lists_raters_best_first_with_their_figures(
    qtbot: Any, gui_project: Any, tmp_path: Path
) -> None:
    view = QualityView()
    qtbot.addWidget(view)
    assert view.raters.rowCount() == 0 and "Nothing measured" in view.summary.text()
    view.show_measuring()  # the desk reads the snapshot off the GUI thread meanwhile
    assert "Measuring" in view.summary.text() and "Nothing" not in view.summary.text()
    view.set_snapshot(None)
    assert "Nothing measured" in view.summary.text()

    set_quality_settings(gui_project, "cu", gold=True)
    answer = {"importance:Figure 1": "essential", "importance:Figure 2": "essential",
              "importance:Figure 3": "optional"}
    mark_item(gui_project, "cu", "case", "T1", "gold", answer, "panel answer")
    for name, fig3 in (("a1", "optional"), ("a2", "essential")):
        _complete(gui_project, name, "T1", fig3)
        _complete(gui_project, name, "T2", fig3)
    add_repeats(gui_project, "cu", "case", 1.0, 0)
    _complete(gui_project, "a1", "T1", "optional")
    snap = snapshot(gui_project, "cu")

    view.set_snapshot(snap)
    view.show_measuring()  # a refresh keeps the figures shown until the next snapshot
    assert "1 gold item(s)" in view.summary.text()
    assert view.raters.columnCount() == len(SUMMARY_HEADERS)
    ranked = [view.raters.item(r, 1).text() for r in range(view.raters.rowCount())]
    assert ranked == [q.rater for q in snap.raters] == ["a1", "a2"]
    assert view.raters.item(0, 4).text() == "1.00"  # a1's gold accuracy
    assert view.raters.item(1, 4).text() == "0.67"
    assert "1 gold item(s)" in view.summary.text()
    assert "1 hidden repeat(s) done, 3 waiting" in view.summary.text()
    # The selected rater's figures, as the core words them.
    assert view.detail.rowCount() == len(detail_rows(snap.raters[0]))
    shown = {view.detail.item(r, 0).text() for r in range(view.detail.rowCount())}
    assert {"gold items", "hidden repeats"} <= shown
    view.raters.selectRow(1)
    assert "a2" in view.detail_title.text()
    assert view.detail.rowCount() == len(detail_rows(snap.raters[1]))

    out = render(view, tmp_path / "quality.png", 1366, 768)
    assert out.stat().st_size > 0
