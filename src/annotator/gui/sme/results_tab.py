"""The SME results tab (seniors and curators): one row per parent rubric (weighted score
with its CI) followed by its benchmarks (pass rate, mean normalised score, CIs, threshold,
reliability), and the forest plot the core draws (``sme.report.forest_svg``).

The bootstrap runs off the GUI thread (``workers.run_in_background``).
"""

from __future__ import annotations

import html
from typing import Any

import shiboken6
from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QBrush, QColor
from PySide6.QtSvgWidgets import QSvgWidget
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from annotator.agreement.intervals import Interval, interval_text
from annotator.gui.context import GuiContext
from annotator.gui.workers import run_in_background
from annotator.services import sme_results
from annotator.sme.report import forest_svg
from annotator.sme.results import BenchmarkResult

COLUMNS = [
    "rubric / benchmark", "weight", "items", "applicable", "pass rate [95% CI] n",
    "score [95% CI] n", "threshold", "threshold decision", "ICC", "κ pass/flag",
    "reliability flags",
]  # fmt: skip
RUBRIC_BACKGROUND = QColor("#eee8f6")
FLAG_COLOUR = QColor("#c0392b")
FOREST_WIDTH = 540  # leaves the reliability table room beside it at 1280 px


def _num(value: float | None) -> str:
    return "–" if value is None else f"{value:.2f}"


def _ci(value: float | None, ci: tuple[float, float] | None, n: int) -> str:
    """``0.83 [0.70, 0.95] n=12``, or the figure with "too few to estimate" and its n."""
    return interval_text(value, None if ci is None else Interval(ci[0], ci[1], n), n)


def _items(b: BenchmarkResult) -> str:
    open_ = [f"{count} {word}" for count, word in ((b.undecided, "undecided"),
                                                   (b.unsubmitted, "unsubmitted")) if count]
    return f"{b.items} (+{', '.join(open_)})" if open_ else str(b.items)


def table_rows(results: sme_results.SmeResults) -> list[tuple[bool, list[str], bool]]:
    """(is_rubric, cells, flagged) rows: each rubric, then its benchmarks."""
    checks = {r.code: r for r in results.reliability}
    out: list[tuple[bool, list[str], bool]] = []
    for rubric in results.rubrics:
        out.append(
            (True, [f"{rubric.code} (weighted)",
                    f"{rubric.weight_scored:g} ({rubric.weight_covered:.0%} covered)", "", "",
                    "", _ci(rubric.score, rubric.score_ci, rubric.score_n), "", "", "", "",
                    rubric.cronbach.flag or ""], bool(rubric.cronbach.flag))
        )  # fmt: skip
        for b in (b for b in results.benchmarks if b.parent_rubric == rubric.code):
            rel = checks.get(b.code)
            decision = b.threshold_decision or "–"
            kappa = None if rel is None else rel.kappa.get("outcome")
            flags = "; ".join(rel.flags) if rel else ""
            out.append(
                (False, [f"  {b.code} · {b.label}", f"{b.weight:g}",
                         _items(b), str(b.applicable),
                         _ci(b.pass_rate, b.pass_rate_ci, b.pass_rate_n),
                         _ci(b.score, b.score_ci, b.score_n), _num(b.threshold), decision,
                         _num(rel.icc if rel else None), _num(kappa), flags], bool(flags))
            )  # fmt: skip
    return out


def _cell(
    value: float | None, ci: dict[str, Any], family: str, stat: str, n: int | None = None
) -> str:
    """A right-aligned figure with its 95% CI (when the core gives one) and n below it."""
    interval = (ci.get(family) or {}).get(stat)
    below = (
        ""
        if value is None or interval is None
        else f"<br><small>[{interval[0]:.2f}, {interval[1]:.2f}]</small>"
    )
    count = "" if n is None else f"<br><small>n={n}</small>"
    return f"<td align='right'>{_num(value)}{below}{count}</td>"


def reliability_html(results: sme_results.SmeResults) -> str:
    """Per benchmark: kappa and alpha on applicability and pass/flag, ICC and interval alpha
    on scores, SME vs automated agreement (hybrid), and each rubric's Cronbach's alpha over
    its benchmarks; flags in red."""
    head = (
        "<tr><th align='left'>code</th><th>κ appl.</th><th>α appl.</th><th>κ pass/flag</th>"
        "<th>α pass/flag</th><th>ICC (n)</th><th>α score</th>"
        "<th>vs auto κ / qwk</th></tr>"
    )
    rows = ""
    for r in results.reliability:
        auto = r.automated or {}
        versus = (
            f"{_num(auto.get('outcome_kappa'))} / {_num(auto.get('score_weighted_kappa'))}"
            if r.automated
            else "–"
        )
        ci = r.ci or {}
        cells = (
            _cell(r.kappa.get("applicability"), ci, "applicability", "kappa"),
            _cell(r.alpha.get("applicability"), ci, "applicability", "alpha",
                  r.units.get("applicability")),
            _cell(r.kappa.get("outcome"), ci, "outcome", "kappa"),
            _cell(r.alpha.get("outcome"), ci, "outcome", "alpha", r.units.get("outcome")),
            _cell(r.icc, ci, "score", "icc", r.icc_units),
            _cell(r.alpha.get("score"), ci, "score", "alpha", r.units.get("score")),
        )
        rows += (
            f"<tr><td>{html.escape(r.code)}</td>"
            + "".join(cells)
            + f"<td align='right'>{versus}</td></tr>"
        )
        if r.flags:
            rows += (
                f"<tr><td></td><td colspan='7' style='color:#c0392b'>"
                f"⚠ {html.escape('; '.join(r.flags))}</td></tr>"
            )
    rubrics = "".join(
        f"<tr><td>{html.escape(r.code)}</td>"
        + _cell(r.cronbach.value, {"c": {"a": r.cronbach.ci}}, "c", "a")
        + f"<td align='right'>{r.cronbach.cases}</td>"
        f"<td style='color:#c0392b'>{html.escape(r.cronbach.flag or '')}</td></tr>"
        for r in results.rubrics
    )
    return (
        "<p><b>Reliability</b> (items with 2+ SME verdicts; 95% CI below each figure; "
        "ICC flagged 'below 0.75' when its interval is under 0.75, 'possibly below' when it "
        "straddles, not from fewer than 10 tasks)</p>"
        f"<table cellspacing='0' cellpadding='3' border='1' width='100%'>{head}{rows}</table>"
        "<p><b>Rubric consistency</b>: Cronbach's alpha with each benchmark an item and each "
        "test case scored on all of them a subject (Feldt 95% CI; flagged against 0.7)</p>"
        "<table cellspacing='0' cellpadding='3' border='1' width='100%'><tr><th>rubric</th>"
        f"<th>Cronbach α</th><th>cases</th><th>flag</th></tr>{rubrics}</table>"
    )


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
        self.table.setRowCount(len(rows))
        for r, (rubric, cells, flagged) in enumerate(rows):
            for c, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                if rubric:
                    cell.setBackground(QBrush(RUBRIC_BACKGROUND))
                    font = cell.font()
                    font.setBold(True)
                    cell.setFont(font)
                if flagged and c == len(cells) - 1:
                    cell.setForeground(QBrush(FLAG_COLOUR))
                self.table.setItem(r, c, cell)
        self.table.resizeColumnsToContents()
        svg = forest_svg(results, width=FOREST_WIDTH)
        self.forest.load(QByteArray(svg.encode("utf-8")))
        size = self.forest.renderer().defaultSize()
        self.forest.setFixedSize(size)
        self.reliability.setHtml(reliability_html(results))
        basis = results.basis
        self.status.setText(
            f"{len(results.benchmarks)} benchmark(s), {len(results.rubrics)} rubric(s); "
            f"{basis['n_resamples']:,} bootstrap resamples, seed {basis['seed']}; "
            f"reference: {basis['reference']}. Threshold {basis['threshold_rule']}. "
            f"Rubric weights {basis['rubric_weights']}."
        )
