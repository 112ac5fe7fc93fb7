"""Repairing template artifacts: diagnostic steps, and the rubric review.

Steps: source exam, text and reason of each step. Rubric: for Diagnosis and Localisation a
"rubric OK" check, the reference answer (Diagnosis: one text that is the final diagnosis;
Localisation: three fields), the four level texts and a comment. Every field autosaves.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from annotator.domain.labels import LOCALISATION_FIELDS, RUBRIC_LEVELS, LabelEdit, label_key
from annotator.gui.workspace.autosave import TextBinding, TextWidget
from annotator.gui.workspace.session import CaseSession
from annotator.services import draft_fixes
from annotator.services.workspace import label_edits

# Step groups kept ready: the bench's and the demo's cases have 3-5 diagnostic steps.
SPARE_GROUPS = 6
LEVEL_HINT = {"3": "3: fully correct", "2": "2: partly", "1": "1: related", "0": "0: wrong"}


def _shown(value: Any) -> str:
    return "" if value is None else str(value)


def _steps(content: dict[str, Any]) -> list[dict[str, Any]]:
    return [x for x in content.get("diagnostic_steps") or [] if isinstance(x, dict)]


def _text_box(height: int = 44) -> QPlainTextEdit:
    box = QPlainTextEdit()
    box.setFixedHeight(height)
    return box


class _StepSlot:
    """The fields of one step (source exam, text, reason), kept for the next cases.

    Made a field at a time (:meth:`add_field`) while the page prepares spare groups, one
    field per turn of the event loop; :meth:`finish` makes the rest at once when a case
    shows the step."""

    FIELDS = (("source", "Source exam"), ("step", "Step"), ("reason", "Reason"))

    def __init__(self, editor: StepsEditor, index: int) -> None:
        # Made in the editor and hidden: a group made parentless and then laid out is
        # re-parented, restyled and shown by Qt in a later turn (5-20 ms of C++ each).
        self.editor, self.index = editor, index
        self.group = QGroupBox(editor)
        self.group.setVisible(False)
        self.form = QFormLayout(self.group)
        self.source = QComboBox()
        self.figures: list[str] = []
        self.fields: dict[tuple[int, str], TextWidget] = {}
        self.bindings: list[TextBinding] = []

    def add_field(self) -> bool:
        """Make the next field; False once every field is made."""
        if len(self.fields) == len(self.FIELDS):
            return False
        field, name = self.FIELDS[len(self.fields)]
        widget: TextWidget
        if field == "source":
            widget = self.source
            widget.setEditable(True)
        else:
            widget = _text_box(40 if field == "step" else 44)
        widget.setObjectName(f"step_{self.index}_{field}")
        self.form.addRow(name, widget)
        self.fields[(self.index, field)] = widget
        self.bindings.append(self.editor.bind(widget, self.index, field))
        return True

    def finish(self) -> None:
        while self.add_field():
            pass

    def show_step(self, index: int, step: dict[str, Any], figures: list[str]) -> None:
        self.group.setTitle(f"Step {index + 1} (draft importance: {step.get('essential')})")
        if figures != self.figures:  # showing a case never counts as typing
            blocked = self.source.blockSignals(True)
            self.source.clear()
            self.source.addItems(figures)
            self.source.blockSignals(blocked)
            self.figures = list(figures)
        for binding in self.bindings:
            binding.echo = None  # an echo of the previous case's save says nothing here


class StepsEditor(QWidget):
    """One group per diagnostic step of the case.

    Cases differ in their number of steps; the groups are kept and reused from case to case
    (hidden when a case has fewer steps), because building them anew cost ~12 ms of the GUI
    thread at every case switch.
    """

    def __init__(self, session: CaseSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(6, 6, 6, 6)
        intro = QLabel("Repair template artifacts in the diagnostic steps (source exam, text, "
                       "reason). Importance is labelled per exam on the Labels tab.")
        intro.setWordWrap(True)
        self.layout_.addWidget(intro)
        self.layout_.addStretch(1)
        self.slots: list[_StepSlot] = []
        self.groups: list[QWidget] = []
        self.bindings: list[TextBinding] = []
        self.fields: dict[tuple[int, str], TextWidget] = {}
        self._editable: bool | None = None
        self._preparing = False

    def rebuild(self) -> None:
        """Show the fields of the current case's steps (making more groups if needed)."""
        s = self.session
        steps = _steps(s.content)
        while len(self.slots) < len(steps):
            self._add_slot()
        self.groups, self.bindings, self.fields = [], [], {}
        for index, slot in enumerate(self.slots):
            if index < len(steps):
                slot.finish()
                slot.show_step(index, steps[index], s.figures)
                self.groups.append(slot.group)
                self.bindings += slot.bindings
                self.fields.update(slot.fields)
            slot.group.setVisible(index < len(steps))

    def prepare(self, content: dict[str, Any]) -> None:
        """Make, hidden, the groups a case read ahead will need, and at least
        :data:`SPARE_GROUPS` (a case opened from the list may have more steps than the ones
        seen so far): a group, then each of its fields, in a turn of the event loop of its
        own (a whole group took ~7 ms), while the physician is still on the current case,
        instead of all of them in the turn that shows the next one (3 groups: 17-33 ms)."""
        if not (self.slots and self.slots[-1].add_field()):
            if len(self.slots) >= max(len(_steps(content)), SPARE_GROUPS):
                self._preparing = False
                return
            self._add_slot()  # hidden until a case shows it
        self._preparing = True
        # Bound to this widget: a window closed meanwhile cancels the rest.
        QTimer.singleShot(0, self, lambda: self.prepare(content))

    def preparing(self) -> bool:
        """True while groups or fields are still being made in turns of their own."""
        return self._preparing

    def _add_slot(self) -> _StepSlot:
        slot = _StepSlot(self, len(self.slots))
        self.layout_.insertWidget(self.layout_.count() - 1, slot.group)  # before the stretch
        self.slots.append(slot)
        return slot

    def bind(self, widget: TextWidget, index: int, field: str) -> TextBinding:
        s = self.session
        key = label_key("step", f"{index}/{field}")
        return TextBinding(
            s, widget, lambda: key,
            lambda t: draft_fixes.step_edits(s.content, index, field, t),
            lambda: _shown(draft_fixes.effective(s.content, s.labels, key)),
            lambda: f"step {index + 1} {field}",
        )

    def refresh(self) -> None:
        for binding in self.bindings:
            binding.refresh()
        if self.session.editable != self._editable:  # setEnabled walks every child widget
            self._editable = self.session.editable
            self.setEnabled(self._editable)


class RubricEditor(QWidget):
    """Diagnosis and Localisation: rubric OK, reference answer, levels 3..0, comment."""

    def __init__(self, session: CaseSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.ok: dict[str, QCheckBox] = {}
        self.fields: dict[str, TextWidget] = {}
        self.bindings: list[TextBinding] = []
        self._editable: bool | None = None
        for part in ("Diagnosis", "Localisation"):
            group = QGroupBox(part)
            form = QFormLayout(group)
            # Titles above the fields: the texts get the panel's full width.
            form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)
            check = QCheckBox("Rubric OK as drafted")
            check.setObjectName(f"rubric_ok_{part}")
            check.clicked.connect(lambda on, p=part: self._ok(p, bool(on)))
            self.ok[part] = check
            form.addRow(check)
            if part == "Diagnosis":
                self._field(form, part, "reference_answer", _text_box(40),
                            "Reference answer (= the final diagnosis)")
            else:
                for sub in LOCALISATION_FIELDS:
                    self._field(form, part, f"reference_answer/{sub}", QLineEdit(), sub)
            for level in RUBRIC_LEVELS:
                self._field(form, part, level, _text_box(58), LEVEL_HINT[level])
            comment = QLineEdit()
            comment.setObjectName(f"rubric_comment_{part}")
            comment.setPlaceholderText("what is weak or wrong in this rubric")
            form.addRow("Comment", comment)
            self._comment(form, part, comment)
            layout.addWidget(group)
        layout.addStretch(1)

    def _comment(self, form: QFormLayout, part: str, comment: QLineEdit) -> None:
        s = self.session
        key = label_key("rubric_comment", part)
        self.fields[key] = comment
        self.bindings.append(TextBinding(
            s, comment, lambda: key,
            lambda t: label_edits("rubric_comment", part, t.strip() or None),
            lambda: _shown(s.labels.get(key)),
            lambda: f"{part} rubric comment",
        ))

    def _field(self, form: QFormLayout, part: str, level: str, widget: TextWidget,
               title: str) -> None:
        s = self.session
        key = draft_fixes.rubric_key(part, level)
        widget.setObjectName(f"rubric_{part}_{level}")
        form.addRow(title, widget)
        self.fields[key] = widget
        self.bindings.append(TextBinding(
            s, widget, lambda: key,
            lambda t: draft_fixes.rubric_edits(s.content, s.labels, part, level, t),
            lambda: _shown(draft_fixes.effective(s.content, s.labels, key)),
            lambda: f"{part} rubric {level.replace('reference_answer', 'reference')}",
        ))

    def _ok(self, part: str, on: bool) -> None:
        self.session.apply([LabelEdit(label_key("rubric_ok", part), on)],
                           f"{part} rubric {'OK' if on else 'not OK'}")

    def refresh(self) -> None:
        for part, check in self.ok.items():
            blocked = check.blockSignals(True)
            check.setChecked(self.session.labels.get(label_key("rubric_ok", part)) is True)
            check.blockSignals(blocked)
        for binding in self.bindings:
            binding.refresh()
        if self.session.editable != self._editable:  # setEnabled walks every child widget
            self._editable = self.session.editable
            self.setEnabled(self._editable)
