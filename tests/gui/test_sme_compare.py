"""The SME results tab compares two systems for curators and adjudicators: the table is the
HTML report's (per benchmark and rubric, difference with its interval, Holm and Bonferroni
p, the plain conclusion) and the forest plot its SVG; an SME's page has no such view."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from annotator.gui.context import GuiContext
from annotator.gui.pages.sme import SmePage
from annotator.services.sme.results import compare
from annotator.sme.compare_report import COLUMNS, table_rows
from sme.reviews import review_two_systems


def test_the_results_tab_compares_two_systems(qtbot: Any, team: Any, tmp_path: Path) -> None:
    review_two_systems(team, tmp_path)
    page = SmePage(GuiContext(team, "adj"))
    qtbot.addWidget(page)
    page.resize(1366, 768)
    page.show()
    qtbot.waitExposed(page)
    results = page.results
    assert results is not None and results.compare is not None
    view = results.compare
    systems = [view.system_a.itemText(i) for i in range(view.system_a.count())]
    assert systems == ["copilot@1.3", "copilot@1.4"]
    assert (view.system_a.currentText(), view.system_b.currentText()) == tuple(systems)
    page.tabs.setCurrentWidget(results)
    results.views.setCurrentWidget(view)
    view.run.click()
    qtbot.waitUntil(lambda: view.found is not None and not view.busy, timeout=60_000)
    expected = table_rows(compare(team, "adj", "copilot@1.3", "copilot@1.4"))
    shown = [[view.table.item(r, c).text() for c in range(len(COLUMNS))]
             for r in range(view.table.rowCount())]
    assert shown == [cells for _rubric, cells in expected]
    header = [view.table.horizontalHeaderItem(c).text() for c in range(len(COLUMNS))]
    assert {"Holm p", "Bonferroni p", "conclusion", "95% interval"} <= set(header)
    neg2 = shown[0]
    assert neg2[0] == "A-NEG2" and neg2[header.index("conclusion")] == "B better"
    assert neg2[header.index("method")] == "paired t"
    assert shown[1][:3] == ["A-NEG (rubric)", "", "weighted: A-NEG2"]  # the parent rubric
    assert view.forest.renderer().isValid() and view.forest.width() > 300
    assert "copilot@1.4 - copilot@1.3" in view.status.text()
    # The same system twice is not a comparison.
    view.system_b.setCurrentIndex(0)
    view.run.click()
    assert "two different systems" in view.status.text()


def test_an_sme_sees_no_comparison(qtbot: Any, team: Any, tmp_path: Path) -> None:
    review_two_systems(team, tmp_path)
    page = SmePage(GuiContext(team, "a1"))
    qtbot.addWidget(page)
    assert page.results is None  # SMEs review blind to the systems: no results, no compare
    assert [page.tabs.tabText(i) for i in range(page.tabs.count())] == ["Verdict"]
