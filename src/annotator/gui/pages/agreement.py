"""The Agreement page (curators only): Tables 7/8 with CIs, pair matrix, charts, cases.

The report is computed off the GUI thread by the core (``services.agreement``); the worker
only returns the dict, never touches a widget. The point estimates come first (summed from
the stored per-case statistics: one more submission recomputes one case), then the whole
report with its bootstrap intervals, computed in the background after them. Charts are the
core's SVG. A user without the curator role sees the refusal instead of any figure
(annotators stay blind).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QMessageBox,
    QPushButton,
    QSplitter,
    QStackedWidget,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from annotator.gui.actions import ActionSpec
from annotator.gui.context import GuiContext
from annotator.gui.pages import agreement_tabs as tabs
from annotator.gui.pages.agreement_models import FamilyTableModel, PairMatrixModel
from annotator.gui.workers import run_in_background

ACTIONS = (
    ActionSpec("agreement.refresh", "Recompute agreement", "F5", "Agreement", context="page"),
    ActionSpec("agreement.export_csv", "Export agreement CSV", "", "Agreement", context="page"),
    ActionSpec("agreement.export_html", "Export agreement HTML", "", "Agreement",
               context="page"),
)
REFUSAL = ("The agreement figures are for curators only: annotators stay blind to each "
           "other's labels.\n\n{reason}")


ESTIMATE_COLUMNS = (("percent_agreement", "agreement"), ("krippendorff_alpha", "alpha"),
                    ("kappa", "kappa"), ("gwet_ac1", "AC1"))


def estimates_text(found: dict[str, Any]) -> str:
    """The point estimates as a few lines of text, until the report with intervals arrives."""
    lines = ["Point estimates (the 95% intervals are being computed):", ""]
    for family in found["families"]:
        values = family["coefficients"]
        cells = ", ".join(
            f"{word} {'n/a' if values[key] is None else format(values[key], '.3f')}"
            for key, word in ESTIMATE_COLUMNS)
        lines.append(f"{family['title']} ({family['n_units']} units): {cells}")
    return "\n".join(lines)


class Page(QWidget):
    """The Agreement page; computes the report the first time it is shown (or on Refresh)."""

    report_ready = Signal(dict)  # a report was computed and is on screen
    estimates_ready = Signal(dict)  # the point estimates are on screen; intervals follow
    refused = Signal(str)  # the user may not see agreement figures; carries the reason
    case_requested = Signal(str)  # the curator asked to open a case in meta-review

    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        self.context = context
        self.report: dict[str, Any] | None = None
        self.estimates: dict[str, Any] | None = None
        self._computing = 0  # generation of the running computation (0: none)
        self._generation = 0
        self._started = False
        self._closed = False
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
        if context.actions is not None:
            handlers = {"agreement.refresh": self.refresh, "agreement.export_csv": self._ask_csv,
                        "agreement.export_html": self._ask_html}
            for spec in ACTIONS:
                context.actions.register(spec, handlers[spec.id], self, page="agreement")

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
        self.family_disagreements = tabs.table_widget(["Disagreement", "Rating pairs"], [])
        self.family_cases = tabs.table_widget(["Case", "Disagreeing pairs", "Items"], [])
        self.family_cases.cellDoubleClicked.connect(
            lambda r, _c: self.open_case(self.family_cases.item(r, 0).text()))
        bottom = QWidget()
        row = QHBoxLayout(bottom)
        left = QVBoxLayout()
        left.addWidget(self.pair_title)
        left.addWidget(self.pairs, 2)
        details = QHBoxLayout()
        details.addWidget(self.family_disagreements, 2)
        details.addWidget(self.family_cases, 3)
        left.addLayout(details, 3)
        row.addLayout(left, 1)
        row.addLayout(self.chart_holder)
        self.splitter = QSplitter(Qt.Orientation.Vertical)
        self.splitter.addWidget(self.table)
        self.splitter.addWidget(bottom)
        self.splitter.setSizes([360, 400])
        self.tabs.addTab(self.splitter, "Table 8 and pairs")

    def _replace_tab(self, index: int, widget: QWidget, title: str) -> None:
        if self.tabs.count() > index:
            old = self.tabs.widget(index)
            self.tabs.removeTab(index)
            old.deleteLater()
        self.tabs.insertTab(index, widget, title)

    # --- behaviour ----------------------------------------------------------------------

    def showEvent(self, event: Any) -> None:
        super().showEvent(event)
        if not self._started:
            self.refresh()

    def refresh(self) -> None:
        """Recompute the report on a pool thread (the page stays responsive)."""
        from annotator.services.agreement import point_estimates

        self._started = True
        project, user = self.context.project, self.context.user
        if project is None:
            self._show_message("Open a project to see its agreement figures.")
            return
        self.status.setText("Computing agreement…")
        self.refresh_button.setEnabled(False)
        self._generation += 1
        generation = self._computing = self._generation
        run_in_background(lambda: point_estimates(project, user or ""),
                          lambda found: self._estimated(generation, found),
                          lambda exc: self._finished(generation, None, exc))

    def _estimated(self, generation: int, found: dict[str, Any]) -> None:
        """Show the point estimates, then compute the report with its intervals."""
        import shiboken6

        from annotator.services.agreement import agreement_report

        if self._closed or generation != self._generation or not shiboken6.isValid(self):
            return
        self.estimates = found
        if self.report is None:
            self.message.setText(estimates_text(found))
            self.stack.setCurrentWidget(self.message)
        self.status.setText("Point estimates shown; computing the intervals…")
        self.estimates_ready.emit(found)
        project, user = self.context.project, self.context.user
        run_in_background(lambda: agreement_report(project, user or ""),
                          lambda report: self._finished(generation, report),
                          lambda exc: self._finished(generation, None, exc))

    def ready(self) -> bool:
        """True when no computation is running (the screenshot mode waits for this)."""
        return self._closed or not self._computing

    def shutdown(self) -> None:
        """The window is closing or rebuilding its pages: drop any late result."""
        self._closed = True

    def _finished(self, generation: int, report: dict[str, Any] | None,
                  exc: BaseException | None = None) -> None:
        import shiboken6

        if self._closed or generation != self._generation or not shiboken6.isValid(self):
            return  # a newer computation is running, or the page is gone
        self._computing = 0
        self.refresh_button.setEnabled(True)
        self.status.setText("")
        if report is not None:
            self._show_report(report)
        else:
            self._show_error(exc or RuntimeError("no result"))

    def _show_report(self, report: dict[str, Any]) -> None:
        self.report = report
        self.basis.setText(report["basis"]["statement"])
        self.table_model.set_report(report)
        summary, self.table7 = tabs.summary_tab(report)
        self._replace_tab(1, summary, "Table 7 and timeline")
        self._replace_tab(2, tabs.charts_tab(report), "Charts")
        cases, self.cases = tabs.cases_tab(report, self.open_case)
        self._replace_tab(3, cases, "Cases")
        self._replace_tab(4, tabs.annotators_tab(report), "Annotators")
        self.table.resizeColumnsToContents()
        self.table.resizeRowsToContents()
        # The table is as tall as its rows; the pairs and the chart get the rest.
        rows = sum(self.table.rowHeight(r) for r in range(self.table_model.rowCount()))
        self.table.setMaximumHeight(
            rows + self.table.horizontalHeader().sizeHint().height() + 2 * self.table.frameWidth()
            + 4)
        self.table.selectRow(0)
        self._select_family(0)
        self.stack.setCurrentWidget(self.tabs)
        self._set_exports(True)
        self.report_ready.emit(report)

    def _show_error(self, exc: BaseException) -> None:
        from annotator.errors import AnnotatorError, PermissionDenied

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
        kinds = [[" vs ".join(d["labels"]), d["pairs"]] for d in fam["disagreements"]]
        types = (fam.get("details") or {}).get("disagreement_types") or {}
        # Typed per case and annotator pair (whole rankings), not per rating pair.
        kinds += [[f"order ranking (per case): {k.replace('_', ' ')}", n]
                  for k, n in types.items()]
        tabs.fill(self.family_disagreements, ["Disagreement", "Rating pairs"], kinds)
        tabs.fill(self.family_cases, ["Case", "Disagreeing pairs", "Items (double-click: review)"],
              [[c["case_id"], c["disagreeing_pairs"], ", ".join(c["items"])]
               for c in fam["top_cases"]])
        self.pair_title.setText(f"<b>Annotator pairs: {fam['title']}</b> (agreement · Cohen's "
                                "κ, n shared units; κ n/a below the minimum)")
        while self.chart_holder.count():
            item = self.chart_holder.takeAt(0)
            if item.widget() is not None:
                item.widget().deleteLater()
        from annotator.agreement.charts import family_chart

        self.chart = tabs.svg_widget(family_chart(fam))
        self.chart_holder.addWidget(self.chart)
        self.chart_holder.addStretch(1)

    def open_case(self, case_id: str) -> None:
        """Drill down: announce the case and open it in meta-review when that page can."""
        self.case_requested.emit(case_id)
        window = self.window()
        if hasattr(window, "show_page") and "review" in getattr(window, "page_ids", []):
            window.show_page("review")
            review = window.page("review")
            for name in ("load_case", "open_case"):
                if callable(getattr(review, name, None)):
                    getattr(review, name)(case_id)
                    break

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
        if self.report is None:
            return  # nothing on screen to export (the buttons are disabled then)
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
