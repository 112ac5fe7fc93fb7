"""The Quality view: a read-only widget over :class:`annotator.services.quality.
QualitySnapshot` (the curator's desk embeds it; a curator can also open it as a window).

Raters are listed best first; selecting one shows their figures per family with intervals.
Everything here is the curator's: raters never see this view (items done much faster than a
rater's own median are flagged here only).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QHeaderView,
    QLabel,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.gui import theme
from annotator.services.quality import (
    DETAIL_COLUMNS,
    QualitySnapshot,
    detail_rows,
    summary_rows,
)

SUMMARY_HEADERS = ("#", "Rater", "Score", "Calibration", "Gold", "Intra-rater",
                   "Latent accuracy", "Median time", "Fast items", "Drift", "In calibration")
NOTE = ("Score: the mean of calibration, gold and intra-rater exact agreement and the "
        "latent-class accuracy, whichever are measured. Intervals are 95%; fast items and "
        "these figures are shown to curators only.")


def _cell(value: Any, suffix: str = "") -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.2f}{suffix}" if not suffix else f"{value:.0f}{suffix}"
    return f"{value}{suffix}"


def _table(headers: tuple[str, ...]) -> QTableWidget:
    table = QTableWidget(0, len(headers))
    table.setHorizontalHeaderLabels(list(headers))
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.verticalHeader().setVisible(False)
    table.setWordWrap(False)
    return table


class QualityView(QWidget):
    """The quality snapshot: a table of raters and the selected rater's figures."""

    def __init__(self, snapshot: QualitySnapshot | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("qualityView")
        self.snapshot: QualitySnapshot | None = None
        self.summary = QLabel()
        self.summary.setObjectName("qualitySummary")
        self.summary.setWordWrap(True)
        self.raters = _table(SUMMARY_HEADERS)
        self.raters.setObjectName("qualityRaters")
        self.raters.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.raters.horizontalHeader().setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        self.detail_title = QLabel()
        self.detail = _table(DETAIL_COLUMNS)
        self.detail.setObjectName("qualityDetail")
        self.detail.horizontalHeader().setSectionResizeMode(
            QHeaderView.ResizeMode.ResizeToContents)
        self.detail.horizontalHeader().setStretchLastSection(True)
        self.note = QLabel(NOTE)
        self.note.setWordWrap(True)
        self.note.setStyleSheet(theme.css("color: $text_dim;"))

        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.detail_title)
        lower_layout.addWidget(self.detail)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.raters)
        split.addWidget(lower)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(split, 1)
        layout.addWidget(self.note)
        self.raters.itemSelectionChanged.connect(self._show_selected)
        self.set_snapshot(snapshot)

    def show_measuring(self) -> None:
        """While a snapshot is read off the GUI thread: say so, keep what is shown."""
        if self.snapshot is None:
            self.summary.setText("Measuring each physician's quality…")

    def set_snapshot(self, snapshot: QualitySnapshot | None) -> None:
        """Show ``snapshot`` (None: nothing measured yet)."""
        self.snapshot = snapshot
        if snapshot is None or not snapshot.raters:
            self.summary.setText("Nothing measured yet: no rater has submitted work.")
            self.raters.setRowCount(0)
            self.detail.setRowCount(0)
            self.detail_title.setText("")
            return
        items = snapshot.items
        self.summary.setText(
            f"<b>{len(snapshot.raters)} raters</b>, best first · "
            f"{items['calibration']} calibration item(s) · {items['gold']} gold item(s) · "
            f"{items['repeats_done']} hidden repeat(s) done, {items['repeats_waiting']} waiting")
        rows = summary_rows(snapshot)
        self.raters.setRowCount(len(rows))
        for r, row in enumerate(rows):
            cells = [row["rank"], row["rater"], row["score"], row["calibration"], row["gold"],
                     row["intra"], row["latent_accuracy"], row["median_seconds"],
                     row["fast_items"], row["drift_max"], row["in_calibration"]]
            for c, value in enumerate(cells):
                text = _cell(value, " s") if c == 7 else _cell(value)
                item = QTableWidgetItem(text)
                if c == 8 and value:
                    item.setForeground(theme.qcolour("warning"))
                    item.setToolTip("items done in under a quarter of this rater's median time")
                self.raters.setItem(r, c, item)
        self.raters.selectRow(0)
        self._show_selected()

    def _show_selected(self) -> None:
        if self.snapshot is None:
            return
        selected = self.raters.selectionModel().selectedRows()
        index = selected[0].row() if selected else 0
        if index >= len(self.snapshot.raters):
            return
        rater = self.snapshot.raters[index]
        self.detail_title.setText(f"<b>{rater.rater}</b>: figures per family")
        rows = detail_rows(rater)
        self.detail.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                item = QTableWidgetItem(text)
                item.setToolTip(text)
                self.detail.setItem(r, c, item)
