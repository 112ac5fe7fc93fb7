"""System B against system A in the SME results tab (curators and adjudicators only).

Two combo boxes choose A and B among the systems with SME items; the table is
``sme.compare_report.table_rows`` (the HTML report's rows: per benchmark and per parent
rubric, the difference with its 95% interval, paired or Welch, Holm and Bonferroni p, and
the plain better / worse / no detectable difference line) and the forest plot is the
report's SVG. SMEs review blind to systems, so the view exists only for a user
``domain.permissions`` lets compare systems (``Action.COMPARE_SYSTEMS``); the service
refuses anyone else too. The comparison runs off the GUI thread.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import shiboken6
from PySide6.QtCore import QByteArray, Qt
from PySide6.QtSvgWidgets import QSvgWidget
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.gui import theme
from annotator.gui.context import GuiContext
from annotator.gui.workers import run_in_background
from annotator.services.sme import results as sme_results
from annotator.sme.compare import Comparison
from annotator.sme.compare_report import COLUMNS, forest_svg, table_rows

FOREST_WIDTH = 720
CONCLUSION = COLUMNS.index("conclusion")
DRIFT = COLUMNS.index("drift")
DRIFT_WIDTH = 120


def fill_results(
    table: QTableWidget, rows: Sequence[tuple[bool, Sequence[str]]],
    foreground: Callable[[int, int, str], str | None],
) -> None:
    """Show ``rows`` (is it a rubric's row, its cells) in a results table: a rubric's row
    shaded and bold, a cell in the theme colour ``foreground(row, column, text)`` names."""
    table.setRowCount(len(rows))
    for r, (rubric, cells) in enumerate(rows):
        for c, text in enumerate(cells):
            cell = QTableWidgetItem(text)
            if rubric:
                cell.setBackground(theme.qcolour("rubric"))
                font = cell.font()
                font.setBold(True)
                cell.setFont(font)
            colour = foreground(r, c, text)
            if colour is not None:
                cell.setForeground(theme.qcolour(colour))
            table.setItem(r, c, cell)


def _conclusion_colour(_row: int, column: int, text: str) -> str | None:
    if column == CONCLUSION and text in ("B better", "B worse"):
        return "success" if text == "B better" else "danger"
    return None


class CompareView(QWidget):
    def __init__(self, context: GuiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.found: Comparison | None = None
        self.busy = False
        column = QVBoxLayout(self)
        top = QHBoxLayout()
        self.system_a = QComboBox()
        self.system_b = QComboBox()
        for combo, name in ((self.system_a, "A"), (self.system_b, "B")):
            combo.setMinimumContentsLength(14)
            combo.setToolTip(f"System {name} (a version is part of its name)")
            top.addWidget(QLabel(f"System {name}:"))
            top.addWidget(combo)
        self.run = QPushButton("Compare B with A")
        self.run.clicked.connect(self.compare)
        top.addWidget(self.run)
        top.addStretch(1)
        column.addLayout(top)
        self.status = QLabel("Choose two systems and compare them.")
        self.status.setWordWrap(True)
        column.addWidget(self.status)
        split = QSplitter(Qt.Orientation.Vertical, self)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.setWordWrap(True)
        self.forest = QSvgWidget()
        plot = QScrollArea()
        plot.setWidget(self.forest)
        plot.setWidgetResizable(False)
        split.addWidget(self.table)
        split.addWidget(plot)
        split.setSizes([260, 360])
        column.addWidget(split, 1)

    def load_systems(self) -> None:
        """Fill both combo boxes; B defaults to the last system (often the newest version)."""
        project, user = self.context.project, self.context.user
        if project is None or user is None:
            return
        names = sme_results.systems(project, user)
        for combo in (self.system_a, self.system_b):
            combo.clear()
            combo.addItems(names)
        if len(names) >= 2:
            self.system_a.setCurrentIndex(len(names) - 2)
            self.system_b.setCurrentIndex(len(names) - 1)
        self.run.setEnabled(len(names) >= 2)
        if len(names) < 2:
            self.status.setText("Comparing needs SME items of two systems "
                                f"({len(names)} here).")

    def compare(self) -> None:
        """Compare the chosen systems off the GUI thread; the view shows them when done."""
        project, user = self.context.project, self.context.user
        a, b = self.system_a.currentText(), self.system_b.currentText()
        if self.busy or project is None or user is None or not a or not b:
            return
        if a == b:
            self.status.setText("Choose two different systems.")
            return
        self.busy = True
        self.run.setEnabled(False)
        self.status.setText(f"Comparing {b} with {a}…")

        def done(found: Comparison) -> None:
            if shiboken6.isValid(self):
                self.display(found)

        def failed(exc: BaseException) -> None:
            if shiboken6.isValid(self):
                self.busy = False
                self.run.setEnabled(True)
                self.status.setText(f"Could not compare: {exc}")

        run_in_background(lambda: sme_results.compare(project, user, a, b), done, failed)

    def display(self, found: Comparison) -> None:
        self.busy = False
        self.run.setEnabled(True)
        self.found = found
        fill_results(self.table, table_rows(found), _conclusion_colour)
        self.table.resizeColumnsToContents()
        # The drift cell wraps instead of pushing the table past 1366 px.
        self.table.setColumnWidth(DRIFT, min(self.table.columnWidth(DRIFT), DRIFT_WIDTH))
        self.table.resizeRowsToContents()
        self.forest.load(QByteArray(forest_svg(found, width=FOREST_WIDTH).encode("utf-8")))
        self.forest.setFixedSize(self.forest.renderer().defaultSize())
        tested = sum(1 for c in found.benchmarks if c.p_holm is not None)
        self.status.setText(
            f"{found.b} - {found.a}: {len(found.benchmarks)} benchmark(s) scored for both, "
            f"{tested} tested; {found.basis['paired']}; else {found.basis['unpaired']}. "
            f"{found.basis['multiplicity']}.")
