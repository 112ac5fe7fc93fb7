"""The SME results tab (seniors and curators): one row per parent rubric (weighted score
with its CI) followed by its benchmarks (pass rate, mean normalised score, CIs, threshold,
reliability), and the forest plot the core draws (``sme.report.forest_svg``).

The rows and the reliability table are ``sme.results_view``'s, shared with the HTML report.
Curators and adjudicators also get a second view, system B against system A
(``gui/sme/compare_view.py``).
The bootstrap runs off the GUI thread (``workers.run_in_background``).
"""

from __future__ import annotations

from typing import Any

import shiboken6
from PySide6.QtCore import QByteArray, Qt
from PySide6.QtSvgWidgets import QSvgWidget
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from annotator.gui import theme
from annotator.gui.context import GuiContext
from annotator.gui.sme.compare_view import CompareView, fill_results
from annotator.gui.workers import run_in_background
from annotator.services.sme import results as sme_results
from annotator.services.sme.view_extra import may_compare
from annotator.sme import results_view
from annotator.sme.report import forest_svg

FOREST_WIDTH = 540  # leaves the reliability table room beside it at 1280 px
COLUMNS = results_view.COLUMNS
table_rows = results_view.table_rows
reliability_html = results_view.reliability_html


class ResultsTab(QWidget):
    def __init__(self, context: GuiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.results: sme_results.SmeResults | None = None
        self.busy = False
        self.stale = True  # nothing computed yet, or a decision changed the reference
        column = QVBoxLayout(self)
        top = QHBoxLayout()
        self.recompute = QPushButton("Recompute")
        self.recompute.clicked.connect(self.refresh)
        self.status = QLabel("Results are computed when this tab is first shown.")
        self.status.setWordWrap(True)
        top.addWidget(self.recompute)
        top.addWidget(self.status, 1)
        column.addLayout(top)
        split = QSplitter(Qt.Orientation.Vertical, self)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.forest = QSvgWidget()
        self.reliability = QTextBrowser()
        plot = QWidget()
        holder = QHBoxLayout(plot)
        holder.setContentsMargins(0, 0, 0, 0)
        holder.addWidget(self.forest, 0, Qt.AlignmentFlag.AlignTop)
        holder.addWidget(self.reliability, 1)
        split.addWidget(self.table)
        split.addWidget(plot)
        split.setSizes([215, 450])
        self.compare: CompareView | None = None
        project, user = context.project, context.user
        if project is not None and user is not None and may_compare(project, user):
            self.views = QTabWidget(self)
            self.views.addTab(split, "Benchmarks and rubrics")
            self.compare = CompareView(context)
            self.views.addTab(self.compare, "Compare systems")
            self.compare.load_systems()
            column.addWidget(self.views, 1)
        else:
            column.addWidget(split, 1)

    def refresh(self) -> None:
        """Compute the results off the GUI thread; the tab shows them when they arrive."""
        if self.busy or self.context.project is None or self.context.user is None:
            return
        project, user = self.context.project, self.context.user
        self.busy, self.stale = True, False
        self.recompute.setEnabled(False)
        self.status.setText("Computing (1,000 bootstrap resamples per benchmark)…")

        def done(results: sme_results.SmeResults) -> None:
            if shiboken6.isValid(self):  # the page may have closed meanwhile
                self.display(results)

        def failed(exc: BaseException) -> None:
            if shiboken6.isValid(self):
                self.failed(exc)

        run_in_background(lambda: sme_results.results(project, user), done, failed)

    def failed(self, exc: BaseException) -> None:
        self.busy, self.stale = False, True
        self.recompute.setEnabled(True)
        self.status.setText(f"Results could not be computed: {exc}")

    def display(self, results: Any) -> None:
        self.busy = False
        self.recompute.setEnabled(True)
        self.results = results
        rows = table_rows(results)

        def flag(r: int, c: int, _text: str) -> str | None:
            _rubric, cells, flagged = rows[r]
            return "flag_text" if flagged and c == len(cells) - 1 else None

        fill_results(self.table, [(rubric, cells) for rubric, cells, _ in rows], flag)
        self.table.resizeColumnsToContents()
        svg = forest_svg(results, width=FOREST_WIDTH)
        self.forest.load(QByteArray(svg.encode("utf-8")))
        size = self.forest.renderer().defaultSize()
        self.forest.setFixedSize(size)
        self.reliability.setHtml(reliability_html(results, theme.colour("flag_text")))
        basis = results.basis
        self.status.setText(
            f"{len(results.benchmarks)} benchmark(s), {len(results.rubrics)} rubric(s); "
            f"{basis['n_resamples']:,} bootstrap resamples, seed {basis['seed']}; "
            f"reference: {basis['reference']}. Threshold {basis['threshold_rule']}. "
            f"Rubric weights {basis['rubric_weights']}."
        )
