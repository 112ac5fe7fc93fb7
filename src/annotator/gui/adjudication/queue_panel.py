"""The queue on the left: cases in order of their most important open conflict."""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import QLabel, QListWidget, QListWidgetItem, QVBoxLayout, QWidget

from annotator.gui import theme
from annotator.gui.adjudication.format import CASE_MARK
from annotator.services.kinds import WaitingQueue
from annotator.services.review.queue import CaseEntry, QueueKey, QueuePage


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
    """A list of CaseEntry rows with a heading that counts what is left.

    The rows come a page at a time (``set_pages``, then ``add_page``): scrolling to the
    bottom, or stepping past the last row, asks for the next one (``more_wanted``).
    """

    case_chosen = Signal(str)
    """The current case changed (its case id)."""
    more_wanted = Signal(object)
    """The next page is wanted: the queue key to read it from."""

    def __init__(self, viewer: str | None, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.viewer = viewer
        self.entries: list[CaseEntry] = []
        self.after: QueueKey | None = None  # where the next page starts; None: all shown
        self.asked: QueueKey | None = None  # the page asked for and not arrived yet
        self.totals = (0, 0, 0, 0)  # cases, open conflicts, ready, green-lit
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 0, 6)
        self.heading = QLabel("<b>Queue</b>")
        self.heading.setWordWrap(True)
        self.list = QListWidget()
        self.list.setObjectName("review-queue")
        self.list.setWordWrap(True)
        self.list.setTextElideMode(Qt.TextElideMode.ElideRight)
        self.list.currentRowChanged.connect(self._changed)
        self.list.verticalScrollBar().valueChanged.connect(self._scrolled)
        # Conflicts that are decided on other pages (SME verdicts, judge scoring).
        self.elsewhere = QLabel("")
        self.elsewhere.setObjectName("review-elsewhere")
        self.elsewhere.setWordWrap(True)
        self.elsewhere.setStyleSheet(theme.css("color: $elsewhere"))
        self.elsewhere.hide()
        layout.addWidget(self.heading)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.elsewhere)

    def set_pages(self, page: QueuePage, keep: str | None) -> None:
        """Show the queue's first ``page`` (or pages); keep ``keep`` current when it is there."""
        self.entries = []
        self.after, self.asked = page.after, None
        self.totals = (page.cases, page.open_conflicts, page.ready, page.green_lit)
        self.list.blockSignals(True)
        self.list.clear()
        self._append(page.entries)
        ids = [e.case_id for e in self.entries]
        self.list.setCurrentRow(ids.index(keep) if keep in ids else (0 if ids else -1))
        self.list.blockSignals(False)
        self._count()

    def add_page(self, page: QueuePage) -> None:
        """Append the next page (asked for through ``more_wanted``)."""
        self.after, self.asked = page.after, None
        self.list.blockSignals(True)
        self._append(page.entries)
        self.list.blockSignals(False)

    def _append(self, entries: list[CaseEntry]) -> None:
        for entry in entries:
            item = QListWidgetItem()
            self._style(item, entry)
            self.list.addItem(item)
        self.entries += entries

    def _scrolled(self, value: int) -> None:
        if value >= self.list.verticalScrollBar().maximum() - 2:
            self._want_more()

    def _want_more(self) -> None:
        if self.after is not None and self.asked != self.after:
            self.asked = self.after
            self.more_wanted.emit(self.after)

    def update_entry(self, entry: CaseEntry) -> None:
        """Refresh one row in place (the queue keeps its order until the next reload)."""
        cases, open_total, ready, green = self.totals
        for row, old in enumerate(self.entries):
            if old.case_id == entry.case_id:
                self.entries[row] = entry
                self._style(self.list.item(row), entry)
                open_total += entry.open - old.open
                ready += entry.ready - old.ready
                green += (entry.state == "green_lit") - (old.state == "green_lit")
        self.totals = (cases, open_total, ready, green)
        self._count()

    def _style(self, item: QListWidgetItem, entry: CaseEntry) -> None:
        item.setText(entry_text(entry, self.viewer))
        item.setData(Qt.ItemDataRole.UserRole, entry.case_id)
        item.setToolTip("\n".join(entry.blockers) or entry.state.replace("_", " "))
        elsewhere = entry.adjudicator not in (None, self.viewer)
        grey = entry.state in ("green_lit", "excluded") or elsewhere
        item.setForeground(theme.qcolour("text_dim" if grey else "text"))

    def _count(self) -> None:
        cases, open_total, ready, green = self.totals
        self.heading.setText(
            f"<b>Queue</b> · {cases} cases<br>{open_total} open conflicts · "
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
        if row >= self.list.count() - 1:
            self._want_more()

    def _changed(self, _row: int) -> None:
        case_id = self.current()
        if case_id is not None:
            self.case_chosen.emit(case_id)
