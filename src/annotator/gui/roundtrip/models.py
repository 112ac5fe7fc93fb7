"""Table models of the curator's round-trip view: per annotator, and per imported case."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt

from annotator.gui import theme
from annotator.gui.rows_model import DISPLAY, Index, RowsModel
from annotator.services.sync.status import RoundTripRow
from annotator.sync.formats import SyncFileError
from annotator.sync.import_report import PackageImportReport

STATUS_COLOURS = {  # the theme's colour role of each import status
    "added": "added",
    "unchanged": "unchanged",
    "stale": "stale",
    "refused": "refused",
    "refused whole": "refused",
}


def _when(value: datetime | None) -> str:
    return f"{value:%Y-%m-%d %H:%M}" if value else "-"


class RoundTripModel(RowsModel):
    """One row per annotator: cases assigned, bundled, returned, and the latest dates."""

    HEADERS = ("Annotator", "Assigned", "Bundled", "Returned", "Packages", "Last bundle",
               "Last package", "Last import")

    def row_of(self, annotator: str) -> int:
        return next((i for i, r in enumerate(self.rows) if r.annotator == annotator), -1)

    def cell(self, row: RoundTripRow, column: int) -> str | int:
        values: tuple[str | int, ...] = (
            row.annotator, row.assigned, row.bundled, row.returned, row.packages,
            _when(row.last_bundle_at), _when(row.last_package_at), _when(row.last_import_at))
        return values[column]

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
        if role == DISPLAY:
            return self.cell(row, index.column())
        if role == Qt.ItemDataRole.TextAlignmentRole and 1 <= index.column() <= 4:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 3:
            # Work that went out in a bundle and has not come back yet: worth a glance.
            waiting = row.bundled and row.returned < row.bundled
            return theme.qcolour("stale") if waiting else None
        if role == Qt.ItemDataRole.ToolTipRole:
            return (f"{row.annotator}: {row.assigned} case(s) assigned now, {row.bundled} sent "
                    f"in a bundle, {row.returned} came back in a package")
        return None


@dataclass(frozen=True)
class ReportRow:
    package: str  # "Dr A, package 2" or the file name of a refused file
    case_id: str
    status: str  # added / unchanged / stale / refused / refused whole
    reason: str


def report_rows(results: list[PackageImportReport | SyncFileError]) -> list[ReportRow]:
    """The per-case lines of an import, a refused package as one line with its reason."""
    rows: list[ReportRow] = []
    for result in results:
        if isinstance(result, SyncFileError):
            rows.append(ReportRow(Path(result.path).name, "-", "refused whole",
                                  f"{result.reason} (nothing applied)"))
            continue
        name = f"{result.annotator}, package {result.sequence}"
        for case in result.cases:
            reason = case.reason or (result.note if case.status == "unchanged" else "")
            rows.append(ReportRow(name, case.case_id, case.status, reason))
        if not result.cases:
            rows.append(ReportRow(name, "-", "unchanged", result.note or "no cases"))
    return rows


class ImportReportModel(RowsModel):
    """What the last import did: one row per case of each package."""

    HEADERS = ("Package", "Case", "Result", "Why")

    def set_results(self, results: list[PackageImportReport | SyncFileError]) -> None:
        self.set_rows(report_rows(results))

    def data(self, index: Index, role: int = DISPLAY) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
        if role in (DISPLAY, Qt.ItemDataRole.ToolTipRole):
            return (row.package, row.case_id, row.status, row.reason)[index.column()]
        if role == Qt.ItemDataRole.ForegroundRole and index.column() == 2:
            return theme.qcolour(STATUS_COLOURS.get(row.status, "text"))
        return None
