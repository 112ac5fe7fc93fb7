"""The scoring form: one row per key, buttons 0-3 (or E/A/U) with the rubric text beside.

The form only shows values and emits ``chosen(key, value)``; the page saves through the
service and the undo stack.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from annotator.gui import theme
from annotator.judging.rubrics import TRAJECTORY_LABELS, case_rubric
from annotator.judging.sheet import trajectory_key
from annotator.services.judging.scoring import ScoringView

STYLE = (
    "QGroupBox { border: $border; border-radius: 3px; margin-top: 1.1em; padding-top: 4px; }"
    "QGroupBox::title { subcontrol-origin: margin; left: 6px; padding: 0 3px; }"
    # A chosen value keeps its colours when the form is read-only (submitted): drawn by
    # the style sheet alone (with a border), so the style does not pale it to 3.9:1.
    "QPushButton:checked { background: $choice; color: $on_choice; font-weight: bold;"
    " border: 1px solid $choice; border-radius: 3px; padding: 3px 6px; }"
)
TITLES = {
    "diagnosis": "Final diagnosis (case rubric)",
    "localization": "Localisation (case rubric)",
    "differential_list": "Differential list (global rubric)",
}


class ScoreRow(QGroupBox):
    """A titled row of exclusive buttons; ``texts`` maps each value to its rubric text."""

    def __init__(self, key: str, title: str, texts: dict[Any, str], parent: QWidget) -> None:
        super().__init__(title, parent)
        self.key = key
        self.group = QButtonGroup(self)
        self.group.setExclusive(False)
        self.buttons: dict[Any, QPushButton] = {}
        grid = QGridLayout(self)
        grid.setColumnStretch(1, 1)
        for row, (value, text) in enumerate(texts.items()):
            button = QPushButton(str(value))
            button.setCheckable(True)
            button.setFixedWidth(34)
            self.group.addButton(button)
            self.buttons[value] = button
            label = QLabel(text)
            label.setWordWrap(True)
            grid.addWidget(button, row, 0)
            grid.addWidget(label, row, 1)

    def show_value(self, value: Any) -> None:
        for v, button in self.buttons.items():
            button.setChecked(v == value)

    def set_current(self, current: bool) -> None:
        border = "2px solid $choice" if current else "1px solid $frame_border"
        self.setStyleSheet(theme.css(STYLE.replace("$border", border)))


class ScoringForm(QWidget):
    chosen = Signal(str, object)
    """Emitted with (key, value) when a button is pressed."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[ScoreRow] = []
        self.current = 0
        self.layout_ = QVBoxLayout(self)

    def load(self, view: ScoringView) -> None:
        while self.layout_.count():
            item = self.layout_.takeAt(0)
            if item.widget():
                item.widget().deleteLater()
        self.rows = []
        for target, title in TITLES.items():
            texts = case_rubric(view.case_payload, target)
            self._add(ScoreRow(target, title, {k: v or "—" for k, v in texts.items()}, self))
        diagnosis_levels = case_rubric(view.case_payload, "diagnosis")
        for dx in view.trajectory:
            heading = QLabel(f"<b>Trajectory diagnosis:</b> {dx}")
            heading.setWordWrap(True)
            line = QFrame()
            line.setFrameShape(QFrame.Shape.HLine)
            self.layout_.addWidget(line)
            self.layout_.addWidget(heading)
            box = QWidget(self)
            pair = QHBoxLayout(box)
            pair.setContentsMargins(0, 0, 0, 0)
            label_row = ScoreRow(trajectory_key(dx, "label"), "E / A / U", TRAJECTORY_LABELS, box)
            score_row = ScoreRow(
                trajectory_key(dx, "score"),
                "0-3 (case diagnosis rubric)",
                {k: v or "—" for k, v in diagnosis_levels.items()},
                box,
            )
            pair.addWidget(label_row, 1)
            pair.addWidget(score_row, 1)
            self.layout_.addWidget(box)
            self._wire(label_row)
            self._wire(score_row)
        self.layout_.addStretch(1)
        self.show_values(view.scores)
        self.set_current(0)

    def _add(self, row: ScoreRow) -> None:
        self.layout_.addWidget(row)
        self._wire(row)

    def _wire(self, row: ScoreRow) -> None:
        self.rows.append(row)
        for value, button in row.buttons.items():
            button.clicked.connect(lambda _=False, r=row, v=value: self._pick(r, v))

    def _pick(self, row: ScoreRow, value: Any) -> None:
        self.set_current(self.rows.index(row))
        self.chosen.emit(row.key, value)

    def show_values(self, scores: dict[str, Any]) -> None:
        for row in self.rows:
            row.show_value(scores.get(row.key))

    def set_current(self, index: int) -> None:
        if not self.rows:
            return
        self.current = max(0, min(index, len(self.rows) - 1))
        for i, row in enumerate(self.rows):
            row.set_current(i == self.current)

    def press(self, value: Any) -> bool:
        """Keyboard: choose ``value`` on the current row if it offers it, then move on."""
        if not self.rows:
            return False
        row = self.rows[self.current]
        if value not in row.buttons:
            return False
        self.chosen.emit(row.key, value)
        self.set_current(self.current + 1)
        return True
