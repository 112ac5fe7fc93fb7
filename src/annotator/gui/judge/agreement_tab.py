"""The agreement tab: Table 9's upper triangle, and one pair's per-target figures."""

from __future__ import annotations

from typing import Any

from PySide6.QtWidgets import (
    QAbstractItemView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.judging.report import INTERVAL_NOTE, cell_text, table9_cells
from annotator.judging.runfile import ALL_TARGETS

FIELDS = ("n", "n_cases", "binary", "ci", "exact", "within_one", "qwk", "label_agreement",
          "label_kappa")


class AgreementTab(QWidget):
    def __init__(self, load: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.load = load
        self.report: dict[str, Any] = {"raters": [], "pairs": []}
        layout = QVBoxLayout(self)
        refresh = QPushButton("Recompute")
        refresh.clicked.connect(self.refresh)
        layout.addWidget(refresh)
        layout.addWidget(QLabel("<b>Macro binary agreement</b> (0-1 vs 2-3, four targets)"))
        note = QLabel(f"95% intervals: {INTERVAL_NOTE}")
        note.setWordWrap(True)
        layout.addWidget(note)
        self.matrix = QTableWidget(self)
        self.matrix.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.matrix.cellClicked.connect(self.show_pair)
        layout.addWidget(self.matrix, 2)
        self.pair_title = QLabel("Click a cell for its per-target figures.")
        layout.addWidget(self.pair_title)
        self.detail = QTableWidget(len(ALL_TARGETS), len(FIELDS), self)
        self.detail.setHorizontalHeaderLabels(list(FIELDS))
        self.detail.setVerticalHeaderLabels(list(ALL_TARGETS))
        self.detail.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        layout.addWidget(self.detail, 2)

    def refresh(self) -> None:
        self.report = self.load()
        raters = self.report["raters"]
        matrix = table9_cells(self.report)
        self.matrix.setRowCount(max(len(raters) - 1, 0))
        self.matrix.setColumnCount(max(len(raters) - 1, 0))
        self.matrix.setVerticalHeaderLabels(raters[:-1])
        self.matrix.setHorizontalHeaderLabels(raters[1:])
        for i in range(len(raters) - 1):
            for j in range(1, len(raters)):
                text = matrix[i][j] if j > i else ""
                self.matrix.setItem(i, j - 1, QTableWidgetItem(text))
        self.matrix.resizeColumnsToContents()
        if self.report["pairs"]:
            self.show_pair(0, 0)

    def pair(self, a: str, b: str) -> dict[str, Any] | None:
        for pair in self.report["pairs"]:
            if {pair["a"], pair["b"]} == {a, b}:
                return pair
        return None

    def show_pair(self, row: int, column: int) -> None:
        raters = self.report["raters"]
        if column + 1 <= row or column + 1 >= len(raters):
            return
        pair = self.pair(raters[row], raters[column + 1])
        if pair is None:
            return
        self.pair_title.setText(
            f"<b>{pair['a']} vs {pair['b']}</b>: {pair['n_items']} output(s) both scored, "
            f"macro binary {cell_text(pair['macro_binary'])} over {pair.get('macro_n', 0)} case(s)"
        )
        for r, target in enumerate(ALL_TARGETS):
            figures = pair["targets"][target]
            for c, name in enumerate(FIELDS):
                self.detail.setItem(r, c, QTableWidgetItem(cell_text(figures.get(name))))
        self.detail.resizeColumnsToContents()
