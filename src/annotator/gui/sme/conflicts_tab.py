"""The SME conflicts tab (seniors and curators): conflicting fields of submitted verdicts,
the item and the verdicts side by side under letters, and the senior's decision with its
required reason (``sme_adjudication``)."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from annotator.errors import AnnotatorError
from annotator.gui import theme
from annotator.gui.context import GuiContext
from annotator.gui.sme.panes import VERDICT_ROWS, card_html, diff_html, pane_html
from annotator.services import kinds
from annotator.services.sme import adjudication as sme_adjudication
from annotator.sme.diff import field_diff, is_json

e = html.escape
COLUMNS = ["item", "benchmark", "field", "why", "decided"]


def side_by_side_html(view: sme_adjudication.ConflictView) -> str:
    """Every submitted verdict of the task as a column, conflicting fields marked."""
    letters = list(view.by_letter)
    head = "".join(f"<th align='left'>SME {e(x)}</th>" for x in letters)
    rows = ""
    for key, title in VERDICT_ROWS:
        values = [view.by_letter[x].get(key) for x in letters]
        if all(v is None for v in values):
            continue
        why = view.conflicts.get(key)
        mark = f" <span style='color:{theme.colour('danger')}'>⚠ {e(why)}</span>" if why else ""
        decided = (
            f"<br><b>decided: {e(str(view.decided[key]))}</b>" if key in view.decided else ""
        )
        cells = "".join(f"<td>{e(str(v)) if v is not None else '—'}</td>" for v in values)
        rows += f"<tr><td><b>{e(title)}</b>{mark}{decided}</td>{cells}</tr>"
    return (
        f"<h3>{e(view.item_id)} · {e(view.benchmark.code)}</h3>"
        "<table border='1' cellspacing='0' cellpadding='3' width='100%'>"
        f"<tr><th></th>{head}</tr>{rows}</table>"
    )


def item_html(view: sme_adjudication.ConflictView) -> str:
    truth, output = view.ground_truth, view.output
    both = truth is not None and is_json(truth.value) and is_json(output.value)
    diff = field_diff(truth.value, output.value) if both and truth is not None else None
    return (
        pane_html("Input", view.test_case)
        + pane_html("Ground truth", view.ground_truth)
        + pane_html("Output under review", view.output)
        + diff_html(diff)
    )


class ConflictsTab(QWidget):
    decided = Signal()
    """A decision was recorded (results computed before it are out of date)."""

    def __init__(self, context: GuiContext, can_decide: bool, parent: QWidget | None = None):
        super().__init__(parent)
        self.context = context
        self.rows: list[sme_adjudication.SmeConflict] = []
        column = QVBoxLayout(self)
        split = QSplitter(Qt.Orientation.Vertical, self)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.currentCellChanged.connect(lambda r, *_: self.show_row(r))
        views = QSplitter(Qt.Orientation.Horizontal)
        self.verdicts, self.item, self.card = QTextBrowser(), QTextBrowser(), QTextBrowser()
        for w in (self.verdicts, self.item, self.card):
            views.addWidget(w)
        views.setSizes([420, 460, 360])
        split.addWidget(self.table)
        split.addWidget(views)
        split.setSizes([200, 480])
        column.addWidget(split, 1)
        decide = QHBoxLayout()
        self.value = QComboBox()
        self.value.setEditable(True)
        self.value.setMinimumWidth(140)
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("reason (required)")
        self.decide_button = QPushButton("Decide")
        self.decide_button.clicked.connect(self.decide)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.reload)
        decide.addWidget(QLabel("Decision"))
        for w in (self.value, self.reason, self.decide_button, refresh):
            decide.addWidget(w)
        decide.setStretch(2, 1)
        column.addLayout(decide)
        self.status = QLabel("Adjudicators decide; a curator reads." if not can_decide else "")
        column.addWidget(self.status)
        for w in (self.value, self.reason, self.decide_button):
            w.setEnabled(can_decide)

    def reload(self) -> None:
        if self.context.project is None or self.context.user is None:
            return
        keep = self.table.currentRow()
        try:
            self.rows = sme_adjudication.list_conflicts(self.context.project, self.context.user)
        except AnnotatorError as exc:
            self.status.setText(str(exc))
            return
        self.table.setRowCount(len(self.rows))
        for r, c in enumerate(self.rows):
            decided = "" if c.decided is None else f"{c.decided} ({c.decided_reason})"
            for col, text in enumerate((c.item_id, c.benchmark, c.key, c.reason, decided)):
                self.table.setItem(r, col, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        open_ = sum(1 for c in self.rows if c.decided is None)
        if not self.rows:
            self.status.setText("No conflicts between submitted SME verdicts.")
        elif self.rows:
            self.status.setText(f"{len(self.rows)} conflicting field(s), {open_} open.")
            self.table.setCurrentCell(max(0, min(keep, len(self.rows) - 1)), 0)

    def show_row(self, row: int) -> None:
        if not 0 <= row < len(self.rows) or self.context.project is None:
            return
        assert self.context.user is not None
        conflict = self.rows[row]
        view = sme_adjudication.conflict_view(
            self.context.project, self.context.user, conflict.task_id
        )
        self.verdicts.setHtml(side_by_side_html(view))
        self.item.setHtml(item_html(view))
        self.card.setHtml(card_html(view.benchmark))
        self.value.clear()
        choices: list[Any] = {
            "applicability": ["applicable", "excluded"],
            "outcome": ["pass", "flag"],
        }.get(conflict.key, [f"{lv.value:g}" for lv in view.benchmark.levels])
        self.value.addItems([str(c) for c in choices])
        if conflict.decided is not None:
            self.value.setCurrentText(str(conflict.decided))

    def decide(self) -> None:
        row = self.table.currentRow()
        if not 0 <= row < len(self.rows) or self.context.project is None:
            self.status.setText("Choose a conflict first.")
            return
        assert self.context.user is not None
        conflict = self.rows[row]
        value = self.value.currentText().strip()
        try:
            kinds.SME.adjudicate(
                self.context.project, self.context.user, conflict.task_id, conflict.key,
                value, self.reason.text(),
            )
        except AnnotatorError as exc:
            self.status.setText(str(exc))
            return
        self.reason.clear()
        self.decided.emit()
        self.reload()
        self.status.setText(f"Decided {conflict.item_id} {conflict.key} = {value}. "
                            + self.status.text())
