"""The annotator's case list: search, filter, overall progress, and the table of cases.

``CaseListModel`` adapts ``workspace.CaseRow`` records from the core; refreshing asks the
core again (one query), so the list always shows what is stored.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import (
    QAbstractTableModel,
    QModelIndex,
    QPersistentModelIndex,
    Qt,
    Signal,
)
from PySide6.QtGui import QBrush, QColor
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from annotator.services import workspace
from annotator.services.workspace import FILTERS, CaseRow
from annotator.store.project import Project

Index = QModelIndex | QPersistentModelIndex
STATE_COLOUR = {"assigned": "#7f8c8d", "in_progress": "#d68910", "submitted": "#1e8449"}
COLUMNS = ("Case", "Progress")


class CaseListModel(QAbstractTableModel):
    """Rows of the annotator's cases: id and title, state, progress."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.rows: list[CaseRow] = []

    def set_rows(self, rows: list[CaseRow]) -> None:
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row_of(self, case_id: str) -> int:
        return next((i for i, r in enumerate(self.rows) if r.case_id == case_id), -1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(  # noqa: N802 - Qt's name
        self, section: int, orientation: Qt.Orientation, role: int = Qt.ItemDataRole.DisplayRole
    ) -> Any:
        if (
            role == Qt.ItemDataRole.DisplayRole
            and orientation == Qt.Orientation.Horizontal
            and 0 <= section < len(COLUMNS)
        ):
            return COLUMNS[section]
        return None

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        row = self.rows[index.row()]
        column = index.column()
        if role == Qt.ItemDataRole.DisplayRole:
            if column == 0:
                return f"{row.case_id}  {row.title}" if row.title else row.case_id
            if row.state == "submitted":
                return "submitted"
            if row.discarded:
                return "discarding"
            if row.state == "assigned" and row.done == 0:
                return "new"
            return f"{round(row.progress * 100)}%"
        if role == Qt.ItemDataRole.ToolTipRole:
            notes = [f"{row.case_id}: {row.title}", f"state: {row.state} (case {row.case_state})",
                     f"{row.done} of {row.required} required labels"]
            if row.needs_recheck:
                notes.append("the draft changed: re-check your labels")
            if row.needs_fix:
                notes.append("the draft has problems you may fix")
            return "\n".join(notes)
        if role == Qt.ItemDataRole.ForegroundRole and column == 1:
            return QBrush(QColor(STATE_COLOUR.get(row.state, "#333")))
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return row.case_id
        return None


class CaseListPanel(QWidget):
    """Search box, filter, progress bar and the case table."""

    caseChosen = Signal(str)
    """The annotator picked a case in the list (its id)."""

    def __init__(self, project: Project, user: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.user = user
        self.model = CaseListModel(self)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search cases (Ctrl+F)")
        self.search.setClearButtonEnabled(True)
        self.filter = QComboBox()
        for key, text in FILTERS.items():
            self.filter.addItem(text, key)
        self.progress = QProgressBar()
        self.progress.setTextVisible(True)
        self.progress.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.progress.setFormat("0 of 0 submitted")
        self.table = QTableView()
        self.table.setModel(self.model)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().hide()
        self.table.setShowGrid(False)
        self.table.setWordWrap(False)
        self.table.setTextElideMode(Qt.TextElideMode.ElideRight)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        self.table.verticalHeader().setDefaultSectionSize(24)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(4)
        title = QLabel("<b>My cases</b>")
        top = QHBoxLayout()
        top.addWidget(title)
        top.addWidget(self.filter, 1)
        layout.addLayout(top)
        layout.addWidget(self.search)
        layout.addWidget(self.progress)
        layout.addWidget(self.table, 1)
        self.search.textChanged.connect(lambda _t: self.refresh())
        self.filter.currentIndexChanged.connect(lambda _i: self.refresh())
        self.table.clicked.connect(self._clicked)
        self.table.activated.connect(self._clicked)
        self.current: str | None = None

    def refresh(self) -> None:
        """Ask the core for the list again (after a save, submit or filter change)."""
        listing = workspace.case_list(
            self.project, self.user, show=str(self.filter.currentData()), search=self.search.text()
        )
        self.model.set_rows(listing.rows)
        self.progress.setMaximum(max(1, listing.total))
        self.progress.setValue(listing.submitted)
        self.progress.setFormat(listing.summary)
        self.select(self.current)

    def select(self, case_id: str | None) -> None:
        """Highlight a case without emitting ``caseChosen``."""
        self.current = case_id
        row = self.model.row_of(case_id) if case_id else -1
        if row < 0:
            self.table.clearSelection()
            return
        blocked = self.table.blockSignals(True)
        self.table.selectRow(row)
        self.table.blockSignals(blocked)
        self.table.scrollTo(self.model.index(row, 0))

    def focus_search(self) -> None:
        self.search.setFocus()
        self.search.selectAll()

    def neighbour(self, case_id: str | None, step: int) -> str | None:
        """The case ``step`` rows away in the shown list (None past either end)."""
        row = self.model.row_of(case_id) if case_id else -1
        target = row + step if row >= 0 else 0
        if 0 <= target < len(self.model.rows):
            return self.model.rows[target].case_id
        return None

    def _clicked(self, index: QModelIndex) -> None:
        case_id = self.model.data(index, Qt.ItemDataRole.UserRole)
        if case_id and case_id != self.current:
            self.current = case_id
            self.caseChosen.emit(case_id)
