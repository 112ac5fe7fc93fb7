"""The annotator's case list: search, filter, overall progress, and the table of cases.

``CaseListModel`` adapts ``workspace.CaseRow`` records from the core; refreshing asks the
core again (one query), so the list always shows what is stored. After an edit or a submit
only the changed cases' rows are read, on a worker thread, and replaced when they arrive
(:meth:`CaseListPanel.refresh_cases`): on a team store each read is a round trip the GUI
thread does not wait for.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QModelIndex, Qt, Signal
from PySide6.QtGui import QBrush
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

from annotator.domain.states import AnnotationState
from annotator.errors import NotFound
from annotator.gui import theme
from annotator.gui.rows_model import Index, RowsModel
from annotator.gui.workers import run_in_background
from annotator.services import annotating, workspace, workspace_state
from annotator.services.workspace import FILTERS, CaseRow
from annotator.store.project import Project

COLUMNS = ("Case", "Progress")
STATES = ("assigned", "in_progress", "submitted")  # each has its colour in the theme
SUBMITTED = AnnotationState.SUBMITTED.value


class CaseListModel(RowsModel):
    """Rows of the annotator's cases: id and title, state, progress."""

    HEADERS = COLUMNS

    def replace_row(self, row: CaseRow) -> CaseRow | None:
        """Put ``row`` in place of the row with its case id; the old row (None if absent)."""
        index = self.row_of(row.case_id)
        if index < 0:
            return None
        old, self.rows[index] = self.rows[index], row
        self.dataChanged.emit(self.index(index, 0), self.index(index, len(COLUMNS) - 1))
        return old

    def row_of(self, case_id: str) -> int:
        return next((i for i, r in enumerate(self.rows) if r.case_id == case_id), -1)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        row = self.row_at(index)
        if row is None:
            return None
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
            return QBrush(theme.qcolour(f"state_{row.state}" if row.state in STATES
                                       else "text"))
        if role == Qt.ItemDataRole.TextAlignmentRole and column == 1:
            return int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        if role == Qt.ItemDataRole.UserRole:
            return row.case_id
        return None


class CaseListPanel(QWidget):
    """Search box, filter, progress bar and the case table."""

    caseChosen = Signal(str)
    """The annotator picked a case in the list (its id)."""
    readFailed = Signal(str)
    """Changed rows could not be read (why); they are read again after the next change."""

    def __init__(self, project: Project, user: str, parent: QWidget | None = None,
                 filters: dict[str, str] | None = None) -> None:
        """``filters``: the state filters offered (``workspace.case_filters`` of the user's
        roles; the open-conflict filter only for those who may see others' work)."""
        super().__init__(parent)
        self.project = project
        self.user = user
        self.model = CaseListModel(self)
        self.search = QLineEdit()
        self.search.setPlaceholderText("Search (Ctrl+F)")
        self.search.setToolTip("Search the cases' ids, titles, sections, areas and diagnoses")
        self.search.setClearButtonEnabled(True)
        self.filter = QComboBox()
        for key, text in (FILTERS if filters is None else filters).items():
            self.filter.addItem(text, key)
        # The filters chosen last time (kept across restarts, per user, in the project).
        kept = workspace_state.load_filters(project, user, "cases")
        self.filter.setCurrentIndex(max(0, self.filter.findData(kept.get("show", "all"))))
        self._wanted_modality = kept.get("modality", workspace.ANY_MODALITY)
        self.modality = QComboBox()  # filled from the core's list of the cases' modalities
        self.modality.setToolTip("Only cases with an exam of this modality")
        self.modality.addItem("Any modality", workspace.ANY_MODALITY)
        # The list stays narrow on a laptop: the filters do not ask for their longest entry
        # (the search field gives the modality its room).
        fit = QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        for combo, letters in ((self.filter, 5), (self.modality, 12)):
            combo.setSizeAdjustPolicy(fit)
            combo.setMinimumContentsLength(letters)
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
        # Fixed to its widest word: "resize to contents" measured every row on each change.
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Fixed)
        widest = max(self.fontMetrics().horizontalAdvance(w)
                     for w in ("discarding", "submitted", "Progress", "100%"))
        header.resizeSection(1, widest + 24)
        self.table.verticalHeader().setDefaultSectionSize(24)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 0)
        layout.setSpacing(4)
        title = QLabel("<b>My cases</b>")
        top = QHBoxLayout()
        top.addWidget(title)
        top.addWidget(self.filter, 1)
        layout.addLayout(top)
        second = QHBoxLayout()
        second.addWidget(self.search, 1)
        second.addWidget(self.modality)
        layout.addLayout(second)
        layout.addWidget(self.progress)
        layout.addWidget(self.table, 1)
        self.search.textChanged.connect(lambda _t: self.refresh())
        self.filter.currentIndexChanged.connect(lambda _i: self._filters_changed())
        self.modality.currentIndexChanged.connect(lambda _i: self._filters_changed())
        self.table.clicked.connect(self._clicked)
        self.table.activated.connect(self._clicked)
        self.current: str | None = None
        self._total = self._submitted = 0
        # Background row reads: one at a time, so that they arrive in the order they were
        # asked for; cases changed meanwhile wait in ``_queued``. A read started before a
        # full refresh (``_generation`` moved on) is not shown: the refresh read later.
        self._generation = 0
        self._reading = False
        self._queued: set[str] = set()

    def refresh(self) -> None:
        """Ask the core for the list again (after a filter change, or a search)."""
        self._generation += 1
        modality = self._modality()
        self._show_listing(annotating.my_cases(
            self.project, self.user, show=str(self.filter.currentData()),
            search=self.search.text(), modality=modality), modality)

    def _modality(self) -> str:
        # The kept modality before the combo offers it (it lists what the core reports).
        return str(self.modality.currentData() or self._wanted_modality)

    def _show_listing(self, listing: workspace.CaseList, modality: str) -> None:
        if modality != workspace.ANY_MODALITY and modality not in listing.modalities:
            self._wanted_modality = workspace.ANY_MODALITY  # kept, but no case has it now
            self.refresh()
            return
        self._offer_modalities(listing.modalities)
        self.model.set_rows(listing.rows)
        self._total, self._submitted = listing.total, listing.submitted
        self._show_progress()
        self.select(self.current)

    def _filters_changed(self) -> None:
        self._wanted_modality = str(self.modality.currentData() or workspace.ANY_MODALITY)
        workspace_state.save_filters(self.project, self.user, "cases", {
            "show": str(self.filter.currentData()), "modality": self._wanted_modality})
        self.refresh()

    def refresh_cases(self, case_ids: set[str]) -> None:
        """After edits or submits of ``case_ids``: read their rows on a worker thread and
        replace them when they arrive (:meth:`busy` until then).

        The whole list is read instead (on the worker too) when a row is not shown, or when
        the filter or the search might now hide it or show it.
        """
        self._queued |= case_ids
        if self._reading or not self._queued:
            return  # the read under way asks again for these when it is done
        wanted, self._queued = self._queued, set()
        project, user, generation = self.project, self.user, self._generation
        filtered = (str(self.filter.currentData()) != "all" or self.search.text().strip()
                    or self.modality.currentIndex() > 0)
        if filtered or any(self.model.row_of(c) < 0 for c in wanted):
            show, search, modality = (str(self.filter.currentData()), self.search.text(),
                                      self._modality())

            def read() -> object:
                return annotating.my_cases(project, user, show=show, search=search,
                                           modality=modality)
        else:
            def read() -> object:
                rows = []
                for case_id in sorted(wanted):
                    try:
                        rows.append(workspace.case_row(project, user, case_id))
                    except NotFound:  # withdrawn meanwhile: the whole list, then
                        return annotating.my_cases(project, user, show="all", search="",
                                                   modality=workspace.ANY_MODALITY)
                return rows

        def arrived(found: object) -> None:
            self._reading = False
            if generation == self._generation:
                if isinstance(found, workspace.CaseList):
                    self._generation += 1
                    self._show_listing(found, self._modality())
                else:
                    self._replace_rows(found)  # type: ignore[arg-type]
            self.refresh_cases(set())

        def failed(exc: BaseException) -> None:  # the store away: the next change asks again
            self._reading = False
            self._queued |= wanted
            self.readFailed.emit(str(exc))

        self._reading = True
        run_in_background(read, arrived, failed)

    def busy(self) -> bool:
        """True while changed rows are being read (or wait to be)."""
        return self._reading or bool(self._queued)

    def _replace_rows(self, rows: list[CaseRow]) -> None:
        for row in rows:
            old = self.model.replace_row(row)
            if old is not None:
                self._submitted += (row.state == SUBMITTED) - (old.state == SUBMITTED)
        self._show_progress()

    def _offer_modalities(self, modalities: list[str]) -> None:
        """The modality choices: "any" and each modality of the annotator's cases."""
        shown = [self.modality.itemData(i) for i in range(1, self.modality.count())]
        if shown == modalities:
            return
        blocked = self.modality.blockSignals(True)
        chosen = self.modality.currentData() or self._wanted_modality
        while self.modality.count() > 1:
            self.modality.removeItem(1)
        for modality in modalities:
            self.modality.addItem(modality, modality)
        self.modality.setCurrentIndex(max(0, self.modality.findData(chosen)))
        self.modality.blockSignals(blocked)

    def next_open(self, case_id: str) -> str | None:
        """The next case after ``case_id`` in the shown list that is not submitted yet."""
        return workspace.next_open(self.model.rows, case_id)

    def _show_progress(self) -> None:
        self.progress.setMaximum(max(1, self._total))
        self.progress.setValue(self._submitted)
        self.progress.setFormat(f"{self._submitted} of {self._total} submitted")

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
