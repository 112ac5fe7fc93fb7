"""The case list filters by modality, red flag and needs-fix (the core filters; the list
only offers the choices the core reports)."""

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
