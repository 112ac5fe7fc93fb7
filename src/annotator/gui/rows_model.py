"""The table model every list of records in the app starts from: a list of rows under fixed
column headers. A page's model says only what a cell shows (``data``) and its own lookups."""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

Index = QModelIndex | QPersistentModelIndex
DISPLAY = Qt.ItemDataRole.DisplayRole


class RowsModel(QAbstractTableModel):
    """Rows (any records) in ``rows``, one column per name in ``HEADERS``."""

    HEADERS: tuple[str, ...] = ()

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.rows: list[Any] = []

    def set_rows(self, rows: list[Any]) -> None:
        """Replace every row (views reset)."""
        self.beginResetModel()
        self.rows = list(rows)
        self.endResetModel()

    def row_at(self, index: Index) -> Any | None:
        """The record shown at ``index``; None for an invalid or stale index."""
        if not index.isValid() or not 0 <= index.row() < len(self.rows):
            return None
        return self.rows[index.row()]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt's name
        return 0 if parent.isValid() else len(self.rows)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802 - Qt's name
        return 0 if parent.isValid() else len(self.HEADERS)

    def headerData(self, section: int, orientation: Qt.Orientation,  # noqa: N802 - Qt's name
                   role: int = DISPLAY) -> Any:
        if (role == DISPLAY and orientation == Qt.Orientation.Horizontal
                and 0 <= section < len(self.HEADERS)):
            return self.HEADERS[section]
        return None
