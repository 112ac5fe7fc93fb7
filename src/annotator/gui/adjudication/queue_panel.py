"""The queue on the left: cases in order of their most important open conflict."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from annotator.gui import theme
from annotator.gui.adjudication.format import CASE_MARK
from annotator.services.kinds import WaitingQueue
from annotator.services.review.queue import CaseEntry


def entry_text(entry: CaseEntry, viewer: str | None) -> str:
    """Two lines: the case and its state, then what is left to do."""
    mark = CASE_MARK.get(entry.state, "")
    head = f"{mark} {entry.case_id}  {entry.title}".strip()
    if entry.state == "excluded":
        rest = "excluded"
    elif entry.state == "green_lit":
        rest = "green-lit"
    elif entry.open:
        kind = (entry.top_disagreement or "").replace("_", " ")
        rest = f"{entry.open} open · {kind}"
    elif entry.ready:
        rest = "ready for the green light"
    else:
        rest = f"not green: {entry.blockers[0]}" if entry.blockers else "in review"
    if entry.adjudicator and entry.adjudicator != viewer:
        rest += f" · for {entry.adjudicator}"
    return f"{head}\n    {rest}"


class QueuePanel(QWidget):
    """A list of CaseEntry rows with a heading that counts what is left."""

    case_chosen = Signal(str)
    """The current case changed (its case id)."""

    def __init__(self, viewer: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.viewer = viewer
        self.entries: list[CaseEntry] = []
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 6)
        self.heading = QLabel("<b>Queue</b>")
        self.heading.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("review-queue")
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.currentRowChanged.connect(self._changed)
        # Conflicts that are decided on other pages (SME verdicts, judge scoring).
        self.elsewhere = QLabel("")
        self.elsewhere.setObjectName("review-elsewhere")
        self.elsewhere.setWordWrap(True)
        self.elsewhere.setStyleSheet(theme.css("color: $elsewhere"))
        self.elsewhere.hide()
        layout.addWidget(self.heading)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.elsewhere)

    def set_entries(self, entries: list[CaseEntry], keep: str | None) -> None:
        """Show ``entries``; keep ``keep`` current when it is still there."""
        self.entries = entries
        self.list.blockSignals(True)
        self.list.clear()
        for entry in entries:
            item = QListWidgetItem()
            self._style(item, entry)
            self.list.addItem(item)
        ids = [e.case_id for e in entries]
        self.list.setCurrentRow(ids.index(keep) if keep in ids else (0 if ids else -1))
        self.list.blockSignals(False)
        self._count()

    def update_entry(self, entry: CaseEntry) -> None:
        """Refresh one row in place (the queue keeps its order until the next reload)."""
        for row, old in enumerate(self.entries):
            if old.case_id == entry.case_id:
                self.entries[row] = entry
                self._style(self.list.item(row), entry)
        self._count()

    def _style(self, item: QListWidgetItem, entry: CaseEntry) -> None:
        item.setText(entry_text(entry, self.viewer))
        item.setData(Qt.ItemDataRole.UserRole, entry.case_id)
        item.setToolTip("\n".join(entry.blockers) or entry.state.replace("_", " "))
        elsewhere = entry.adjudicator not in (None, self.viewer)
        grey = entry.state in ("green_lit", "excluded") or elsewhere
        item.setForeground(theme.qcolour("text_dim" if grey else "text"))

    def _count(self) -> None:
        entries = self.entries
        open_total = sum(e.open for e in entries)
        ready = sum(1 for e in entries if e.ready)
        green = sum(1 for e in entries if e.state == "green_lit")
        self.heading.setText(
            f"<b>Queue</b> · {len(entries)} cases<br>{open_total} open conflicts · "
            f"{ready} ready · {green} green-lit"
        )

    def set_elsewhere(self, others: list[WaitingQueue]) -> None:
        """Say which other pages hold open conflicts (hidden when none do)."""
        lines = [o.describe() for o in others if o.open_conflicts]
        self.elsewhere.setText("<b>Also waiting for a senior</b><br>" + "<br>".join(lines))
        self.elsewhere.setVisible(bool(lines))

    def current(self) -> str | None:
        item = self.list.currentItem()
        return None if item is None else str(item.data(Qt.ItemDataRole.UserRole))

    def step(self, delta: int) -> None:
        row = self.list.currentRow() + delta
        if 0 <= row < self.list.count():
            self.list.setCurrentRow(row)

    def _changed(self, _row: int) -> None:
        case_id = self.current()
        if case_id is not None:
            self.case_chosen.emit(case_id)
