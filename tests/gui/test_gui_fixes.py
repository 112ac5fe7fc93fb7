"""Fixing the draft in the editors: metadata, caption, steps, rubric, final diagnosis."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui


def type_into(qtbot, widget, text: str) -> None:  # type: ignore[no-untyped-def]
    """Replace a field's text by typing, as a physician would (select all, type)."""
    target = widget.lineEdit() if hasattr(widget, "lineEdit") and widget.lineEdit() else widget
    target.setFocus()
    qtbot.keyClick(target, Qt.Key.Key_A, Qt.KeyboardModifier.ControlModifier)
    qtbot.keyClicks(target, text)


def test_metadata_correct_in_one_key(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(page.viewer, "m")
    assert stored()["meta_ok:Figure 1"] is True
    assert page.metadata.meta_ok.isChecked() and page.labels_panel.meta_ok.isChecked()
    qtbot.keyClick(page.viewer, "m")
    assert stored()["meta_ok:Figure 1"] is False


def test_correct_metadata_in_the_editor(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    qtbot.keyClick(page.viewer, "e", Qt.KeyboardModifier.ControlModifier)  # Ctrl+E: editor
    assert page.tabs.currentIndex() == 1
    contrast = page.metadata.fields["contrast"]
    assert contrast.findText("non-contrast") >= 0  # the matcher's spellings are offered
    type_into(qtbot, contrast, "No contrast")
    # saved after a short pause, without leaving the field
    qtbot.waitUntil(lambda: stored().get("meta:Figure 1/contrast") == "No contrast")
    labels = stored()
    assert labels["meta_ok:Figure 1"] is False  # a fix means the draft was not correct
    assert "read as WITH contrast" in page.metadata.warnings.text()
    assert page.strip_model.cards[0].warnings
    type_into(qtbot, page.metadata.fields["time_past"], "-2")
    page.session.flush()
    assert stored()["meta:Figure 1/time_past"] == -2  # typed as a number, not text
    type_into(qtbot, page.metadata.caption, "T2 sagittal: long cord lesion.")
    page.session.flush()
    assert stored()["caption:Figure 1"] == "T2 sagittal: long cord lesion."


def test_dicom_header_values_beside_the_draft(qtbot, make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(case_id="D1")
    page = window.page("annotate")
    labels = page.metadata.header_labels
    qtbot.waitUntil(lambda: labels["modality"].text() == "CT", timeout=10_000)  # read off-thread
    assert page.metadata.draft_labels["modality"].text() == "CT"
    page.select_exam("Figure 3")
    qtbot.waitUntil(lambda: labels["modality"].text() == "MRI", timeout=10_000)
    assert page.metadata.draft_labels["modality"].text() == "MRI"


def test_edit_a_step_and_a_rubric_level(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    step = page.steps.fields[(1, "step")]
    assert step.toPlainText() == "Review Figure 2"
    type_into(qtbot, step, "Post-contrast T1 of the cervical cord")
    qtbot.waitUntil(lambda: "step:1/step" in stored())
    assert stored()["step:1/step"] == "Post-contrast T1 of the cervical cord"
    level = page.rubric.fields["rubric:Localisation/2"]
    type_into(qtbot, level, "Spinal cord, any level.")
    page.session.flush()
    assert stored()["rubric:Localisation/2"] == "Spinal cord, any level."
    page.rubric.ok["Diagnosis"].click()
    assert stored()["rubric_ok:Diagnosis"] is True
    laterality = page.rubric.fields["rubric:Localisation/reference_answer/Laterality"]
    type_into(qtbot, laterality, "Bilateral")
    page.session.flush()
    assert stored()["rubric:Localisation/reference_answer/Laterality"] == "Bilateral"


def test_diagnosis_reference_edits_the_final_diagnosis(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    reference = page.rubric.fields["rubric:Diagnosis/reference_answer"]
    assert reference.toPlainText() == "Longitudinally extensive transverse myelitis"
    type_into(qtbot, reference, "NMOSD myelitis")
    page.session.flush()
    assert stored()["rubric:Diagnosis/reference_answer"] == "NMOSD myelitis"
    html = page.case_text.toHtml()
    assert "NMOSD myelitis" in html and "your fix" in html
    # back to the draft's value: the fix disappears instead of storing a copy
    type_into(qtbot, reference, "Longitudinally extensive transverse myelitis")
    page.session.flush()
    assert "rubric:Diagnosis/reference_answer" not in stored()


def test_draft_problems_are_rechecked_on_the_fixes(qtbot, make_window, stored) -> None:  # type: ignore[no-untyped-def]
    window = make_window(case_id="T3")
    page = window.page("annotate")
    qtbot.waitUntil(page.ready, timeout=10_000)  # the tabs' titles come with the case's rest
    note = page.notes["Metadata"]
    assert page.tabs.tabText(1) == "Metadata ⚠1"
    assert "read as WITH contrast" in note.text()
    page.select_exam("Figure 2")
    type_into(qtbot, page.metadata.fields["contrast"], "non-contrast")
    page.session.flush()
    assert stored("T3")["meta:Figure 2/contrast"] == "non-contrast"
    assert page.tabs.tabText(1) == "Metadata"
    assert "fixed" in note.text()


def test_step_fields_are_reused_from_case_to_case(qtbot, page, stored) -> None:  # type: ignore[no-untyped-def]
    field = page.steps.fields[(1, "step")]
    type_into(qtbot, field, "Post-contrast T1 of the cervical cord")
    page.session.flush()
    page.open_case("T2")
    qtbot.waitUntil(page.ready, timeout=10_000)
    assert page.steps.fields[(1, "step")] is field  # the same widget, not a rebuilt one
    assert field.toPlainText() == "Review Figure 2"  # T2's draft, not T1's fix
    assert page.steps.fields[(0, "source")].currentText() == "Figure 1"
    type_into(qtbot, field, "T2's own step")
    page.session.flush()
    assert stored("T2")["step:1/step"] == "T2's own step"
    assert stored("T1")["step:1/step"] == "Post-contrast T1 of the cervical cord"
    page.open_case("T1")
    qtbot.waitUntil(page.ready, timeout=10_000)
    assert field.toPlainText() == "Post-contrast T1 of the cervical cord"
