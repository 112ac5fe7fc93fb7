"""The verdict form: applicability, exclusion clause, pass/flag, failed condition or failure
reason, score (level buttons and a free value) and rationale.

The form only shows values and emits what the SME chose; the page saves through the
service and the undo stack. ``chosen(key, value)`` fires at once for a choice; typed text
fires ``typed(key, text)`` after a short pause, on leaving the field, or on ``flush()``.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QAbstractSpinBox,
    QButtonGroup,
    QComboBox,
    QDoubleSpinBox,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QWidget,
)

from annotator.gui import theme
from annotator.gui.text_fields import TypingPause, set_widget_text, widget_text
from annotator.services.sme.review import BenchmarkCard
from annotator.sme.verdict import fields_that_apply, required_fields

# A chosen value keeps its colours when the form is read-only (submitted): drawn by the
# style sheet alone (with a border), so the style does not pale it to 3.9:1.
CHOICE_STYLE = ("QPushButton:checked { background: $choice; color: $on_choice; font-weight: bold;"
                " border: 1px solid $choice; border-radius: 3px; padding: 3px 6px; }")
PICK = "— choose —"


def _buttons(pairs: list[tuple[str, str]], parent: QWidget) -> dict[str, QPushButton]:
    out = {}
    for value, text in pairs:
        button = QPushButton(text, parent)
        button.setCheckable(True)
        button.setAutoExclusive(False)  # the store, not the button group, says what is set
        out[value] = button
    return out


class VerdictForm(QWidget):
    chosen = Signal(str, object)
    """(key, value) of a choice, emitted at once."""
    typed = Signal(str, str)
    """(key, text) of a text field, emitted when the typing pauses."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setStyleSheet(theme.css(CHOICE_STYLE))
        self.card: BenchmarkCard | None = None
        self.fields: dict[str, Any] = {}
        grid = QGridLayout(self)
        grid.setColumnStretch(1, 1)
        self.applicability = _buttons(
            [("applicable", "Applicable (A)"), ("excluded", "Excluded (X)")], self
        )
        self.outcome = _buttons([("pass", "Pass (P)"), ("flag", "Flag (F)")], self)
        self.clause = QComboBox(self)
        self.condition = QComboBox(self)
        for combo, key in ((self.clause, "exclusion_clause"), (self.condition, "flag_condition")):
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(16)
            combo.activated.connect(lambda _i, c=combo, k=key: self._combo(c, k))
        self.failure = QLineEdit(self)
        self.failure.setPlaceholderText("what failed (this benchmark has no 'Flag if' list)")
        self.levels_box = QWidget(self)
        self.levels_layout = QHBoxLayout(self.levels_box)
        self.levels_layout.setContentsMargins(0, 0, 0, 0)
        self.level_buttons: list[tuple[float, QPushButton]] = []
        self.level_group = QButtonGroup(self)
        self.level_group.setExclusive(False)
        self.free = QDoubleSpinBox(self)
        self.free.setDecimals(2)
        self.free.setButtonSymbols(QAbstractSpinBox.ButtonSymbols.NoButtons)
        self.free.setToolTip("Any value within the scale; Enter saves it")
        self.free.setKeyboardTracking(False)
        self.free.editingFinished.connect(self._free_value)
        self.free_touched = False  # typed into since shown: only then is its value a choice
        self.free.textChanged.connect(lambda _t: setattr(self, "free_touched", True))
        self.editable = False
        self.rationale = QPlainTextEdit(self)
        self.rationale.setPlaceholderText("rationale (required when flagged or excluded)")
        self.rationale.setFixedHeight(64)
        self.rationale.setTabChangesFocus(True)
        self.rationale_label = QLabel("Rationale")
        self.clause_label = QLabel("Exclusion clause")
        self.condition_label = QLabel("Failed condition")
        self.failure_label = QLabel("Failure reason")
        rows: dict[str, tuple[QLabel, QWidget]] = {
            "applicability": (QLabel("Applicability"), self._row(self.applicability)),
            "exclusion_clause": (self.clause_label, self.clause),
            "outcome": (QLabel("Outcome"), self._row(self.outcome)),
            "flag_condition": (self.condition_label, self.condition),
            "failure_reason": (self.failure_label, self.failure),
            "score": (QLabel("Score"), self._score_row()),
            "rationale": (self.rationale_label, self.rationale),
        }
        self.rows = rows  # verdict field -> its label and input, shown when the field applies
        for r, (label, widget) in enumerate(rows.values()):
            grid.addWidget(label, r, 0)
            grid.addWidget(widget, r, 1)
        grid.setRowStretch(len(rows), 1)  # rows keep their height; spare room goes below
        for value, button in self.applicability.items():
            button.clicked.connect(lambda _=False, v=value: self.chosen.emit("applicability", v))
        for value, button in self.outcome.items():
            button.clicked.connect(lambda _=False, v=value: self.chosen.emit("outcome", v))
        self.texts = {"rationale": self.rationale, "failure_reason": self.failure}
        self.pending: set[str] = set()
        self.pause = TypingPause(self, self.flush, lambda: bool(self.pending))
        self.rationale.textChanged.connect(lambda: self._typing("rationale"))
        self.failure.textEdited.connect(lambda _t: self._typing("failure_reason"))
        for widget in self.texts.values():
            self.pause.watch(widget)

    def _row(self, buttons: dict[str, QPushButton]) -> QWidget:
        box = QWidget(self)
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        for button in buttons.values():
            row.addWidget(button)
        row.addStretch(1)
        return box

    def _score_row(self) -> QWidget:
        box = QWidget(self)
        row = QHBoxLayout(box)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(self.levels_box)
        row.addWidget(QLabel("or"))
        row.addWidget(self.free)
        row.addStretch(1)
        return box

    # -- loading and showing ---------------------------------------------------------------

    def load(self, card: BenchmarkCard, fields: dict[str, Any], editable: bool) -> None:
        """Show a task's benchmark choices and the SME's fields (never emits)."""
        self.pause.stop()
        self.pending.clear()
        self.card = card
        for combo, choices in ((self.clause, card.exclusion_choices),
                               (self.condition, card.flag_choices)):
            combo.blockSignals(True)
            combo.clear()
            combo.addItem(PICK, None)
            for choice in choices:
                combo.addItem(choice, choice)
                combo.setItemData(combo.count() - 1, choice, 3)  # full text as tooltip
            combo.blockSignals(False)
        for _value, button in self.level_buttons:
            self.level_group.removeButton(button)
            self.levels_layout.removeWidget(button)
            button.hide()  # gone now, not at the next event loop turn
            button.deleteLater()
        self.level_buttons = []
        for i, level in enumerate(card.levels, start=1):
            button = QPushButton(f"{i}: {level.value:g}", self.levels_box)
            button.setCheckable(True)
            button.setToolTip(level.description)
            button.clicked.connect(lambda _=False, v=level.value: self.chosen.emit("score", v))
            self.level_group.addButton(button)
            self.levels_layout.addWidget(button)
            self.level_buttons.append((level.value, button))
        self.free.blockSignals(True)
        self.free.setRange(card.min_value, card.max_value)
        step = (card.max_value - card.min_value) / 20
        self.free.setSingleStep(step if step > 0 else 1)
        self.free.blockSignals(False)
        self.show_fields(fields)
        self.editable = editable
        for widget in self.findChildren(QWidget):
            if widget is not self.levels_box:
                widget.setEnabled(editable)

    def show_fields(self, fields: dict[str, Any]) -> None:
        """Show stored values; fields that do not apply to the answers so far are hidden."""
        self.fields = dict(fields)
        for value, button in self.applicability.items():
            button.setChecked(fields.get("applicability") == value)
        for value, button in self.outcome.items():
            button.setChecked(fields.get("outcome") == value)
        self._show_combo(self.clause, fields.get("exclusion_clause"))
        self._show_combo(self.condition, fields.get("flag_condition"))
        score = fields.get("score")
        for value, button in self.level_buttons:
            button.setChecked(score is not None and float(score) == value)
        self.free.blockSignals(True)
        self.free.setValue(float(score) if score is not None else self.free.minimum())
        self.free.setSpecialValueText("" if score is not None else "–")
        self.free.blockSignals(False)
        self.free_touched = False
        for key, widget in self.texts.items():
            if key not in self.pending:
                set_widget_text(widget, str(fields.get(key) or ""))
        self._visibility()

    def _visibility(self) -> None:
        """Show the rows of the fields that apply, as the core's verdict rule says."""
        has_flag_if = bool(self.card and self.card.flag_choices)
        shown = fields_that_apply(self.fields, has_flag_if)
        for key, widgets in self.rows.items():
            for widget in widgets:
                widget.setVisible(key in shown)
        required = "rationale" in required_fields(self.fields, has_flag_if)
        self.rationale_label.setText("Rationale *" if required else "Rationale")

    @staticmethod
    def _show_combo(combo: QComboBox, value: Any) -> None:
        combo.blockSignals(True)
        index = combo.findData(value) if value is not None else 0
        combo.setCurrentIndex(max(index, 0))
        combo.blockSignals(False)

    # -- input -----------------------------------------------------------------------------

    def _combo(self, combo: QComboBox, key: str) -> None:
        self.chosen.emit(key, combo.currentData())

    def _free_value(self) -> None:
        if not self.free_touched:
            return
        self.free_touched = False
        value = round(self.free.value(), 6)
        score = self.fields.get("score")
        if score is None or float(score) != value:
            self.chosen.emit("score", value)

    def press_level(self, n: int) -> bool:
        """Keyboard: digit ``n`` picks the n-th described level (highest first)."""
        if not 1 <= n <= len(self.level_buttons) or not self.editable:
            return False
        self.chosen.emit("score", self.level_buttons[n - 1][0])
        return True

    def _typing(self, key: str) -> None:
        if self.texts[key].signalsBlocked():
            return
        self.pending.add(key)
        self.pause.typed()

    def flush(self) -> None:
        """Emit the typed text of every field typed in since the last save."""
        self.pause.stop()
        for key in sorted(self.pending):
            self.pending.discard(key)
            self.typed.emit(key, widget_text(self.texts[key]))
