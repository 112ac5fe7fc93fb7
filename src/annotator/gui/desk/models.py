"""The per-annotator table of the desk, a Qt model over the snapshot's rows (never owning
data: the rows are the core's :class:`~annotator.services.desk.AnnotatorRow`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt

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
