"""A case's history beside the page: who changed what and when (``services.case_history``).

Not modal: the user keeps working while it is open; each opening reads the history again.
"""

from __future__ import annotations

from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHeaderView,
    QLabel,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.errors import AnnotatorError
from annotator.services.case_history import case_history
from annotator.store.project import Project

COLUMNS = ("When (UTC)", "Who", "What")


class HistoryDialog(QDialog):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.resize(760, 460)
        self.summary = QLabel("")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setHorizontalHeaderLabels(COLUMNS)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.setWordWrap(False)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        layout = QVBoxLayout(self)
        layout.addWidget(self.summary)
        layout.addWidget(self.table, 1)

    def show_case(self, project: Project, viewer: str, case_id: str) -> None:
        """Read and show the history of ``case_id`` as ``viewer`` may see it."""
        self.setWindowTitle(f"History of {case_id}")
        try:
            lines = case_history(project, viewer, case_id)
        except AnnotatorError as exc:
            self.summary.setText(f"The history could not be read: {exc}")
            self.table.setRowCount(0)
        else:
            self.summary.setText(f"{len(lines)} change(s) of {case_id}, oldest first"
                                 " (hover a row for the whole change).")
            self.table.setRowCount(len(lines))
            for row, line in enumerate(lines):
                cells = (f"{line.at:%Y-%m-%d %H:%M:%S}", line.actor, line.what)
                for column, text in enumerate(cells):
                    item = QTableWidgetItem(text)
                    item.setToolTip(text)
                    self.table.setItem(row, column, item)
            self.table.scrollToBottom()  # the latest change first in view
        self.show()
        self.raise_()
