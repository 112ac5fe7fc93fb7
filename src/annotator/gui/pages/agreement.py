"""The Agreement page (curators only): Tables 7/8 with CIs, pair matrix, charts, cases.

The report is computed off the GUI thread by the core (``services.agreement``); the worker
only returns the dict, never touches a widget. Charts are the core's SVG. A user without
the curator role sees the refusal instead of any figure (annotators stay blind).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QByteArray, QObject, QRunnable, Qt, QThreadPool, Signal
from PySide6.QtSvgWidgets import QSvgWidget
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from annotator.gui.context import GuiContext
from annotator.gui.pages.agreement_models import FamilyTableModel, PairMatrixModel

REFUSAL = ("The agreement figures are for curators only: annotators stay blind to each "
           "other's labels.\n\n{reason}")


class _Signals(QObject):
    done = Signal(object)  # the function's result
    failed = Signal(object)  # the exception it raised


class _Task(QRunnable):
    """Runs ``work()`` on a pool thread and reports through signals (no widget access)."""

    def __init__(self, work: Callable[[], Any]) -> None:
        super().__init__()
        self.work = work
        self.signals = _Signals()

    def run(self) -> None:
        try:
            result = self.work()
        except Exception as exc:  # reported to the GUI thread, shown there
            self.signals.failed.emit(exc)
        else:
            self.signals.done.emit(result)


def _svg_widget(svg: str) -> QSvgWidget:
    widget = QSvgWidget()
    widget.load(QByteArray(svg.encode("utf-8")))
    widget.setFixedSize(widget.renderer().defaultSize())
    return widget


def _table_widget(header: list[str], rows: list[list[Any]]) -> QTableWidget:
    table = QTableWidget(len(rows), len(header))
    table.setHorizontalHeaderLabels(header)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(str(value)))
    table.resizeColumnsToContents()
    table.horizontalHeader().setStretchLastSection(True)
    table.verticalHeader().setVisible(False)
    return table


class Page(QWidget):
    """The Agreement page; computes the report the first time it is shown (or on Refresh)."""

    report_ready = Signal(dict)  # a report was computed and is on screen
    refused = Signal(str)  # the user may not see agreement figures; carries the reason
    case_requested = Signal(str)  # the curator asked to open a case in meta-review

    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        self.context = context
        self.report: dict[str, Any] | None = None
        self._task: _Task | None = None
        self.table_model = FamilyTableModel(self)
        self.pair_model = PairMatrixModel(self)
        layout = QVBoxLayout(self)
        top = QHBoxLayout()
        top.addWidget(QLabel("<h2>Inter-annotator agreement</h2>"))
        top.addStretch(1)
        self.status = QLabel("")
        top.addWidget(self.status)
        self.refresh_button = QPushButton("Refresh")
        self.csv_button = QPushButton("Export CSV…")
        self.html_button = QPushButton("Export HTML…")
        for button, slot in ((self.refresh_button, self.refresh),
                             (self.csv_button, self._ask_csv), (self.html_button, self._ask_html)):
            button.clicked.connect(slot)
            top.addWidget(button)
        layout.addLayout(top)
        self.basis = QLabel("")
        self.basis.setWordWrap(True)
        self.basis.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.basis)
        self.stack = QStackedWidget()
        self.message = QLabel("")
        self.message.setWordWrap(True)
        self.message.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        self.message.setStyleSheet("font-size: 15px; padding: 24px;")
        self.tabs = QTabWidget()
        self.stack.addWidget(self.message)
        self.stack.addWidget(self.tabs)
        layout.addWidget(self.stack, 1)
        self._build_overview()
        self._set_exports(False)
        self._show_message("The figures are computed when this page is first shown.")

    # --- layout -------------------------------------------------------------------------

    def _build_overview(self) -> None:
        self.table = QTableView()
        self.table.setModel(self.table_model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setWordWrap(True)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.verticalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.table.selectionModel().currentRowChanged.connect(
            lambda current, _old: self._select_family(current.row()))
        self.pairs = QTableView()
        self.pairs.setModel(self.pair_model)
        self.pairs.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.pair_title = QLabel("")
        self.chart_holder = QVBoxLayout()
        bottom = QWidget()
        row = QHBoxLayout(bottom)
        left = QVBoxLayout()
        left.addWidget(self.pair_title)
        left.addWidget(self.pairs, 1)
        row.addLayout(left, 1)
        row.addLayout(self.chart_holder)
        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.addWidget(self.table)
        splitter.addWidget(bottom)
        splitter.setSizes([430, 300])
        self.tabs.addTab(splitter, "Table 8 and pairs")

    def _replace_tab(self, index: int, widget: QWidget, title: str) -> None:
        if self.tabs.count() > index:
            old = self.tabs.widget(index)
            self.tabs.removeTab(index)
            old.deleteLater()
        self.tabs.insertTab(index, widget, title)

    def _scroll(self, inner: QWidget) -> QScrollArea:
        area = QScrollArea()
        area.setWidget(inner)
        area.setWidgetResizable(True)
        return area

    def _summary_tab(self, report: dict[str, Any]) -> QWidget:
        from annotator.agreement.charts import overview_chart, timeline_chart
        from annotator.agreement.tables import table7_rows

        inner = QWidget()
        grid = QGridLayout(inner)
        rows = table7_rows(report)
        grid.addWidget(QLabel("<b>Annotation quantity and quality (Table 7)</b>"), 0, 0)
        self.table7 = _table_widget(["Metric", "Value"], rows)
        grid.addWidget(self.table7, 1, 0)
        grid.addWidget(_svg_widget(overview_chart(report)), 1, 1)
        grid.addWidget(_svg_widget(timeline_chart(report)), 2, 1)
        basis = report["basis"]
        left_out = [[e["case_id"], e.get("figure", ""), e["detail"]]
                    for e in basis["excluded_cases"] + basis["excluded_exams"]]
        grid.addWidget(QLabel("<b>Left out of the figures</b>"), 2, 0,
                       Qt.AlignmentFlag.AlignBottom)
        grid.addWidget(_table_widget(["Case", "Exam", "Why"], left_out), 3, 0)
        grid.setRowStretch(3, 1)
        return self._scroll(inner)

    def _charts_tab(self, report: dict[str, Any]) -> QWidget:
        from annotator.agreement.charts import family_chart

        inner = QWidget()
        grid = QGridLayout(inner)
        for i, fam in enumerate(report["families"]):
            grid.addWidget(_svg_widget(family_chart(fam)), i // 2, i % 2)
        grid.setRowStretch(len(report["families"]) // 2 + 1, 1)
        return self._scroll(inner)

    def _cases_tab(self, report: dict[str, Any]) -> QWidget:
        rows = [[c["case_id"], c["disagreeing_pairs"],
                 ", ".join(f"{k}: {v}" for k, v in c["by_family"].items())]
                for c in report["top_cases"]]
        self.cases = _table_widget(["Case", "Disagreeing rating pairs", "By family"], rows)
        self.cases.cellDoubleClicked.connect(lambda r, _c: self.open_case(rows[r][0]))
        box = QWidget()
        column = QVBoxLayout(box)
        column.addWidget(QLabel("Cases contributing most disagreement; double-click one to "
                                "open it in meta-review."))
        column.addWidget(self.cases, 1)
        return box

    def _annotators_tab(self, report: dict[str, Any]) -> QWidget:
        headline = (("importance", "essential"), ("difficulty", "hard"), ("rarity", "rare"),
                    ("discard", "discard"), ("meta_ok", "not correct"))
        from annotator.agreement.tables import fmt_pct

        rows = []
        for a in report["annotators"]:
            dist = a["label_distribution"]
            rows.append([a["label"], a["name"], a["assigned"], a["submitted"], a["open"],
                         a["in_basis"],
                         *(fmt_pct((dist.get(f) or {}).get(lab)) for f, lab in headline)])
        header = ["Annotator", "Name", "Assigned", "Submitted", "Open", "In these figures",
                  "Essential", "Hard", "Rare", "Discarded", "Metadata not correct"]
        return _table_widget(header, rows)

    # --- behaviour ----------------------------------------------------------------------

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if self.report is None and self._task is None and self.context.project is not None:
            self.refresh()
        elif self.context.project is None:
            self._show_message("Open a project to see its agreement figures.")

    def refresh(self) -> None:
        """Recompute the report on a pool thread (the page stays responsive)."""
        from annotator.services.agreement import agreement_report

        project, user = self.context.project, self.context.user
        if project is None:
            self._show_message("Open a project to see its agreement figures.")
            return
        self.status.setText("Computing agreement…")
        self.refresh_button.setEnabled(False)
        task = _Task(lambda: agreement_report(project, user or ""))
        task.signals.done.connect(self._show_report)
        task.signals.failed.connect(self._show_error)
        self._task = task
        QThreadPool.globalInstance().start(task)

    def _show_report(self, report: dict[str, Any]) -> None:
        from annotator.agreement.charts import family_chart  # noqa: F401  (warm import)

        self._task = None
        self.report = report
        self.refresh_button.setEnabled(True)
        self.status.setText("")
        self.basis.setText(report["basis"]["statement"])
        self.table_model.set_report(report)
        self._replace_tab(1, self._summary_tab(report), "Table 7 and timeline")
        self._replace_tab(2, self._charts_tab(report), "Charts")
        self._replace_tab(3, self._cases_tab(report), "Cases")
        self._replace_tab(4, self._annotators_tab(report), "Annotators")
        self.table.resizeColumnsToContents()
        self.table.selectRow(0)
        self._select_family(0)
        self.stack.setCurrentWidget(self.tabs)
        self._set_exports(True)
        self.report_ready.emit(report)

    def _show_error(self, exc: Exception) -> None:
        from annotator.errors import AnnotatorError, PermissionDenied

        self._task = None
        self.refresh_button.setEnabled(True)
        self.status.setText("")
        if isinstance(exc, PermissionDenied):
            self._show_message(REFUSAL.format(reason=exc))
            self.refresh_button.setEnabled(False)
            self.refused.emit(str(exc))
        elif isinstance(exc, AnnotatorError):
            self._show_message(f"The agreement figures could not be computed: {exc}")
        else:
            self._show_message(f"Internal error while computing agreement: "
                               f"{type(exc).__name__}: {exc}")

    def _show_message(self, text: str) -> None:
        self.report = None
        self.basis.setText("")
        self.message.setText(text)
        self.stack.setCurrentWidget(self.message)
        self._set_exports(False)

    def _set_exports(self, enabled: bool) -> None:
        self.csv_button.setEnabled(enabled)
        self.html_button.setEnabled(enabled)

    def _select_family(self, row: int) -> None:
        if self.report is None or not 0 <= row < self.table_model.rowCount():
            return
        fam = self.table_model.family_at(row)
        self.pair_model.set_family(fam)
        self.pair_title.setText(f"<b>Annotator pairs: {fam['title']}</b> (agreement · Cohen's "
                                "κ, n shared units; κ n/a below the minimum)")
        while self.chart_holder.count():
            item = self.chart_holder.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        from annotator.agreement.charts import family_chart

        self.chart = _svg_widget(family_chart(fam))
        self.chart_holder.addWidget(self.chart)
        self.chart_holder.addStretch(1)

    def open_case(self, case_id: str) -> None:
        """Drill down: announce the case and open it in meta-review when that page can."""
        self.case_requested.emit(case_id)
        window = self.window()
        if hasattr(window, "show_page") and "review" in getattr(window, "page_ids", []):
            window.show_page("review")
            review = window.page("review")
            if hasattr(review, "open_case"):
                review.open_case(case_id)

    # --- export -------------------------------------------------------------------------

    def export_csv(self, path: Path) -> Path:
        """Write the Table 8 CSV of the report on screen."""
        from annotator.agreement.tables import write_csv

        assert self.report is not None
        return write_csv(self.report, path)

    def export_html(self, path: Path) -> Path:
        """Write the HTML report (with the same charts) of the report on screen."""
        from annotator.agreement.html_report import write_html

        assert self.report is not None
        return write_html(self.report, path)

    def _ask(self, title: str, default: str, pattern: str,
             write: Callable[[Path], Path]) -> None:
        name, _ = QFileDialog.getSaveFileName(self, title, default, pattern)
        if not name:
            return
        from annotator.errors import AnnotatorError

        try:
            self.status.setText(f"Wrote {write(Path(name))}")
        except AnnotatorError as exc:
            QMessageBox.warning(self, title, str(exc))

    def _ask_csv(self) -> None:
        self._ask("Export agreement CSV", "agreement.csv", "CSV files (*.csv)", self.export_csv)

    def _ask_html(self) -> None:
        self._ask("Export agreement report", "agreement.html", "HTML files (*.html)",
                  self.export_html)
