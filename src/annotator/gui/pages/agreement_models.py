"""Qt item models over the agreement report dict (they adapt it; they never own data).

``FamilyTableModel`` is the paper's Table 8 with every coefficient and its 95% CI (value on
the first line, interval on the second); ``PairMatrixModel`` is one family's annotator x
annotator matrix. ``Qt.UserRole`` returns the raw numbers of a cell, the display role the
same strings the CSV and HTML use (:mod:`annotator.agreement.tables`).
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QAbstractTableModel, QModelIndex, QPersistentModelIndex, Qt

from annotator.agreement.tables import (
    fmt_ci,
    fmt_num,
    fmt_pct,
    headline,
    metric_text,
    notes_text,
    pair_cell_text,
    resolved_text,
)

Index = QModelIndex | QPersistentModelIndex
COLUMNS: tuple[tuple[str, str], ...] = (
    ("family", "Label family"),
    ("percent_agreement", "Exact agreement\n[95% CI]"),
    ("unanimity", "Unanimity\n[95% CI]"),
    ("krippendorff_alpha", "Krippendorff α\n[95% CI]"),
    ("fleiss_kappa", "Fleiss κ\n[95% CI]"),
    ("mean_pairwise_cohen_kappa", "Mean Cohen κ\n[95% CI]"),
    ("gwet_ac1", "Gwet AC1\n[95% CI]"),
    ("pabak", "PABAK\n[95% CI]"),
    ("disagreement", "Common\ndisagreement"),
    ("resolved", "Resolved by\nmeta-review?"),
    ("notes", "Notes"),
)
PERCENT = ("percent_agreement", "unanimity")


class FamilyTableModel(QAbstractTableModel):
    """One row per label family of a report (empty until :meth:`set_report`)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._families: list[dict[str, Any]] = []

    def set_report(self, report: dict[str, Any] | None) -> None:
        self.beginResetModel()
        self._families = list(report["families"]) if report else []
        self.endResetModel()

    def family_at(self, row: int) -> dict[str, Any]:
        return self._families[row]

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._families)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(COLUMNS)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role != Qt.ItemDataRole.DisplayRole:
            return None
        if orientation == Qt.Orientation.Horizontal and 0 <= section < len(COLUMNS):
            return COLUMNS[section][1]
        if orientation == Qt.Orientation.Vertical and 0 <= section < len(self._families):
            return str(section + 1)
        return None

    def _text(self, fam: dict[str, Any], key: str) -> str:
        if key == "family":
            weights = fam["kappa_weights"]
            level = fam["level"] + (f", κ {weights}-weighted" if weights else "")
            text = f"{fam['title']}\n{fam['n_units']} {fam['unit']}s · {level}"
            if fam["id"] == "order":  # the order family's headline (issue 16)
                value, _ = headline(fam)
                tau = ((fam.get("details") or {}).get("kendall_tau_b") or {}).get("mean")
                text += f"\nstrict pairs {fmt_pct(value)} · tau-b {fmt_num(tau)}"
            return text
        if key == "disagreement":
            return fam["most_common_disagreement"] or "none"
        if key == "resolved":
            return resolved_text(fam)
        if key == "notes":
            return notes_text(fam)
        coef = fam["coefficients"][key]
        if key in PERCENT:
            return f"{fmt_pct(coef['value'])}\n{fmt_ci(coef['ci95'], pct=True)}"
        return f"{fmt_num(coef['value'])}\n{fmt_ci(coef['ci95'])}"

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._families):
            return None
        fam, key = self._families[index.row()], COLUMNS[index.column()][0]
        if role == Qt.ItemDataRole.DisplayRole:
            return self._text(fam, key)
        if role == Qt.ItemDataRole.UserRole:
            return fam["coefficients"].get(key, fam["id"] if key == "family" else None)
        if role == Qt.ItemDataRole.ToolTipRole:
            return metric_text(fam) if key != "notes" else notes_text(fam)
        if role == Qt.ItemDataRole.TextAlignmentRole:
            align = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter
            return int(align.value)
        return None


class PairMatrixModel(QAbstractTableModel):
    """Annotator x annotator cells of one family: agreement · Cohen's κ (n shared units)."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._names: list[str] = []
        self._pairs: dict[frozenset[str], dict[str, Any]] = {}

    def set_family(self, family: dict[str, Any] | None) -> None:
        self.beginResetModel()
        if family is None:
            self._names, self._pairs = [], {}
        else:
            self._names = sorted(family["annotator_label_counts"],
                                 key=lambda n: int(n.rsplit(" ", 1)[-1]))
            self._pairs = {frozenset((p["first"], p["second"])): p for p in family["pairs"]}
        self.endResetModel()

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._names)

    def columnCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008
        return 0 if parent.isValid() else len(self._names)

    def headerData(self, section: int, orientation: Qt.Orientation,
                   role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if role == Qt.ItemDataRole.DisplayRole and 0 <= section < len(self._names):
            return self._names[section]
        return None

    def pair(self, row: int, column: int) -> dict[str, Any] | None:
        if row == column:
            return None
        return self._pairs.get(frozenset((self._names[row], self._names[column])))

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self._names):
            return None
        pair = self.pair(index.row(), index.column())
        if role == Qt.ItemDataRole.DisplayRole:
            return "—" if index.row() == index.column() else pair_cell_text(pair)
        if role == Qt.ItemDataRole.UserRole:
            return pair
        if role == Qt.ItemDataRole.ToolTipRole and pair is not None:
            return pair["kappa_note"] or "Cohen's kappa over the units both annotators rated"
        return None
