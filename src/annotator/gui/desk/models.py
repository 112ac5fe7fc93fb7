"""The per-annotator table of the desk, a Qt model over the snapshot's rows (never owning
data: the rows are the core's :class:`~annotator.services.desk.AnnotatorRow`).

The snapshot holds the first page of rows by name; the model says there are more
(``canFetchMore``) until it holds ``total``, and the view asks for them as it scrolls to the
end: ``fetcher`` reads the page after the last name off the GUI thread and hands it to
:meth:`AnnotatorTableModel.add_page`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QModelIndex, Qt

from annotator.gui.rows_model import DISPLAY, Index, RowsModel
from annotator.services.desk import AnnotatorRow


def _maybe(value: int | None) -> str:
    return "–" if value is None else str(value)


def minutes(seconds: float | None) -> str:
    """A duration per case as the desk shows it: ``"7.5 min"``; "–" when none is measured."""
    return "–" if seconds is None else f"{seconds / 60:.1f} min"


COLUMNS: tuple[tuple[str, str, Callable[[AnnotatorRow], str]], ...] = (
    ("Annotator", "", lambda r: r.name),
    ("Assigned", "cases assigned now", lambda r: str(r.assigned)),
    ("Not started", "assigned, not opened for editing yet", lambda r: str(r.not_started)),
    ("In progress", "edited, not submitted", lambda r: str(r.in_progress)),
    ("Submitted", "submitted annotations", lambda r: str(r.submitted)),
    ("Bundled", "assigned cases sent out in a bundle", lambda r: _maybe(r.bundled)),
    ("Returned", "assigned cases whose work came back in a package",
     lambda r: _maybe(r.returned)),
    ("Median time", "median active time per submitted case",
     lambda r: minutes(r.median_active_seconds)),
)


class AnnotatorTableModel(RowsModel):
    """One row per annotator: assigned, not started, in progress, submitted, bundled,
    returned, median active time per case."""

    HEADERS = tuple(name for name, _tip, _cell in COLUMNS)

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self.total = 0  # rows there are in all; ``rows`` holds the first ones by name
        self.fetcher: Callable[[str], None] | None = None  # reads the page after a name
        self._asked_after: str | None = None  # the page being read: the name it follows

    def set_page(self, rows: list[AnnotatorRow], total: int) -> None:
        """Show ``rows``, the first of ``total`` (a new snapshot: a page still being read
        for the old one is dropped when it comes)."""
        self._asked_after = None
        self.total = max(total, len(rows))
        self.set_rows(rows)

    def canFetchMore(self, parent: Index = QModelIndex()) -> bool:  # noqa: B008, N802
        return (not parent.isValid() and bool(self.rows) and len(self.rows) < self.total
                and self._asked_after is None and self.fetcher is not None)

    def fetchMore(self, parent: Index = QModelIndex()) -> None:  # noqa: B008, N802
        if self.canFetchMore(parent) and self.fetcher is not None:
            self._asked_after = self.rows[-1].name
            self.fetcher(self._asked_after)

    def add_page(self, after: str, rows: list[AnnotatorRow]) -> bool:
        """Append the page read after the name ``after``; False (nothing added) when the
        rows shown changed meanwhile (a refresh) and the page no longer follows them."""
        if after != self._asked_after:
            return False
        self._asked_after = None
        if not rows:  # fewer people than the snapshot counted: nobody after ``after``
            self.total = len(self.rows)
            return True
        self.beginInsertRows(QModelIndex(), len(self.rows), len(self.rows) + len(rows) - 1)
        self.rows.extend(rows)
        self.endInsertRows()
        return True

    def page_failed(self, after: str) -> None:
        """The page after ``after`` could not be read: it may be asked for again."""
        if after == self._asked_after:
            self._asked_after = None

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
        if role == DISPLAY:
            return COLUMNS[index.column()][2](row)
        if role == Qt.ItemDataRole.TextAlignmentRole and index.column() > 0:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        return None

    def headerData(  # noqa: N802 - Qt's API
        self, section: int, orientation: Qt.Orientation, role: int = DISPLAY
    ) -> Any:
        if (role == Qt.ItemDataRole.ToolTipRole and orientation == Qt.Orientation.Horizontal
                and 0 <= section < len(COLUMNS)):
            return COLUMNS[section][1] or None
        if (role == DISPLAY and orientation == Qt.Orientation.Horizontal
                and 0 < section < len(COLUMNS)):
            # Two-word headings on two lines: the numbers under them are narrow, and the
            # eight columns then fit the desk's pane at 1366 px without scrolling sideways.
            return self.HEADERS[section].replace(" ", "\n")
        return super().headerData(section, orientation, role)
