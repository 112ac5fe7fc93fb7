"""The secondary tabs of the Agreement page, built from the report dict (read-only widgets).

Table 7 with the overview and timeline charts, every family chart, the cases contributing
most disagreement, and per-annotator monitoring. Charts are the core's SVG
(:mod:`annotator.agreement.charts`); texts come from :mod:`annotator.agreement.tables`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtSvgWidgets import QSvgWidget
from PySide6.QtWidgets import (
    QAbstractItemView,
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.agreement.charts import family_chart, overview_chart, timeline_chart
from annotator.agreement.tables import fmt_pct, table7_rows

HEADLINE = (("importance", "essential"), ("difficulty", "hard"), ("rarity", "rare"),
            ("discard", "discard"), ("meta_ok", "not correct"))
HEADLINE_TITLES = ["Essential", "Hard", "Rare", "Discarded", "Metadata not correct"]


def svg_widget(svg: str) -> QSvgWidget:
    """The SVG at its own pixel size."""
    widget = QSvgWidget()
    widget.load(QByteArray(svg.encode("utf-8")))
    widget.setFixedSize(widget.renderer().defaultSize())
    return widget


def fill(table: QTableWidget, header: list[str], rows: list[list[Any]]) -> None:
    """Replace a table's contents with ``rows`` of text."""
    table.clear()
    table.setRowCount(len(rows))
    table.setColumnCount(len(header))
    table.setHorizontalHeaderLabels(header)
    for r, row in enumerate(rows):
        for c, value in enumerate(row):
            table.setItem(r, c, QTableWidgetItem(str(value)))
    table.resizeColumnsToContents()
    table.horizontalHeader().setStretchLastSection(True)
    table.verticalHeader().setVisible(False)


def table_widget(header: list[str], rows: list[list[Any]]) -> QTableWidget:
    """A read-only table of text rows."""
    table = QTableWidget()
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    fill(table, header, rows)
    return table


def fit_height(table: QTableWidget) -> None:
    """Show every row without a scroll bar (short tables)."""
    table.resizeRowsToContents()
    height = table.horizontalHeader().height() + 2 * table.frameWidth()
    height += sum(table.rowHeight(r) for r in range(table.rowCount()))
    table.setFixedHeight(height)


def _scroll(inner: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidget(inner)
    area.setWidgetResizable(True)
    return area


def summary_tab(report: dict[str, Any]) -> tuple[QWidget, QTableWidget]:
    """Table 7 and what is left out (left), overview and timeline charts (right)."""
    inner = QWidget()
    columns = QHBoxLayout(inner)
    left, right = QVBoxLayout(), QVBoxLayout()
    left.addWidget(QLabel("<b>Annotation quantity and quality (Table 7)</b>"))
    table7 = table_widget(["Metric", "Value"], table7_rows(report))
    fit_height(table7)
    left.addWidget(table7)
    basis = report["basis"]
    left_out = [[e["case_id"], e.get("figure", ""), e["detail"]]
                for e in basis["excluded_cases"] + basis["excluded_exams"]]
    left.addWidget(QLabel("<b>Left out of the figures</b>"))
    left.addWidget(table_widget(["Case", "Exam", "Why"], left_out), 1)
    right.addWidget(svg_widget(overview_chart(report)))
    right.addWidget(svg_widget(timeline_chart(report)))
    right.addStretch(1)
    columns.addLayout(left, 1)
    columns.addLayout(right)
    return _scroll(inner), table7


def charts_tab(report: dict[str, Any]) -> QWidget:
    """Every family's chart, two per row."""
    inner = QWidget()
    grid = QGridLayout(inner)
    for i, fam in enumerate(report["families"]):
        grid.addWidget(svg_widget(family_chart(fam)), i // 2, i % 2,
                       Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
    grid.setRowStretch(len(report["families"]) // 2 + 1, 1)
    return _scroll(inner)


def cases_tab(report: dict[str, Any], open_case: Callable[[str], None]) -> tuple[
    QWidget, QTableWidget
]:
    """The cases contributing most disagreement; a double-click opens one."""
    rows = [[c["case_id"], c["disagreeing_pairs"],
             ", ".join(f"{k}: {v}" for k, v in c["by_family"].items())]
            for c in report["top_cases"]]
    cases = table_widget(["Case", "Disagreeing rating pairs", "By family"], rows)
    cases.cellDoubleClicked.connect(lambda r, _c: open_case(str(rows[r][0])))
    box = QWidget()
    column = QVBoxLayout(box)
    column.addWidget(QLabel("Cases contributing most disagreement; double-click one to "
                            "open it in meta-review."))
    column.addWidget(cases, 1)
    return box, cases


def _share(counts: dict[str, int] | None, label: str) -> float | None:
    total = sum((counts or {}).values())
    return (counts or {}).get(label, 0) / total if total else None


def annotators_tab(report: dict[str, Any]) -> QWidget:
    """Progress and label distribution per annotator, then per week (drift)."""
    rows, weekly = [], []
    for a in report["annotators"]:
        dist = a["label_distribution"]
        rows.append([a["label"], a["name"], a["assigned"], a["submitted"], a["open"],
                     a["in_basis"],
                     *(fmt_pct((dist.get(f) or {}).get(lab)) for f, lab in HEADLINE)])
        for week in a["by_week"]:
            weekly.append([week["week"] or "unknown", a["label"], week["submitted"],
                           *(fmt_pct(_share(week["labels"].get(f), lab)) for f, lab in HEADLINE)])
    box = QWidget()
    column = QVBoxLayout(box)
    column.addWidget(QLabel("<b>Progress and label distribution</b> (contributing cases)"))
    people = table_widget(["Annotator", "Name", "Assigned", "Submitted", "Open",
                           "In these figures", *HEADLINE_TITLES], rows)
    fit_height(people)
    column.addWidget(people)
    column.addWidget(QLabel("<b>Per week of submission</b>: a label share that moves for one "
                            "annotator shows drift before kappa does"))
    weekly.sort(key=lambda r: (r[0], int(str(r[1]).rsplit(" ", 1)[-1])))
    column.addWidget(table_widget(["Week", "Annotator", "Submitted", *HEADLINE_TITLES], weekly),
                     1)
    return box
