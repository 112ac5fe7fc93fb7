"""The verdict tab: the SME's queue (left), input / ground truth / output and their
field-level diff (centre, with the verdict form), the benchmark card (right).

Every choice is saved at once through ``kinds.SME.set_field`` as one ``SetCommand`` (undo
saves the value the store says it replaced); typed text is saved after a pause, a burst of
typing in one field being one undo step. The view comes from ``sme_review.view``, which
is blind by construction.
"""

from __future__ import annotations

import uuid
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QComboBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QStackedWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from annotator.domain.queue_order import next_open
from annotator.domain.states import QUEUE_STATES
from annotator.errors import AnnotatorError
from annotator.gui import theme
from annotator.gui.activity import ItemActivity
from annotator.gui.context import GuiContext
from annotator.gui.pages import MessagePage
from annotator.gui.preferences import next_after_submit
from annotator.gui.sme.form import VerdictForm
from annotator.gui.sme.panes import card_html, diff_html, pane_html, verdicts_html
from annotator.gui.undo import push_field_set
from annotator.services import kinds, workspace_state
from annotator.services.sme import review as sme_review

STATE_MARKS = {
    "assigned": "○",
    "in_progress": "◐",
    "submitted": "✓",
    "needs_recheck": "⚠",
}
STATE_TEXT = {
    "assigned": "assigned",
    "in_progress": "in progress",
    "submitted": "submitted",
    "needs_recheck": "needs re-check (the benchmark changed)",
}
class VerdictTab(QWidget):
    def __init__(self, context: GuiContext, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.context = context
        self.entries: list[sme_review.QueueEntry] = []
        self.task: uuid.UUID | None = None
        self.view: sme_review.VerdictView | None = None
        self.undo = QUndoStack(self)
        # Active time on each task (idle and pauses excluded), as the Annotate page does.
        self.activity = ItemActivity(self, lambda: self.task, self._store_time)
        row = QHBoxLayout(self)
        row.setContentsMargins(0, 0, 0, 0)
        # An empty queue says so in a sentence instead of showing empty panes.
        self.stack = QStackedWidget(self)
        self.empty = MessagePage(
            "No review items are assigned to you",
            "A curator gives SME review items to annotators (sme-assign). Seniors and "
            "curators find the conflicts and the results in the other tabs.",
        )
        split = QSplitter(Qt.Orientation.Horizontal, self)
        split.addWidget(self._queue_column())
        split.addWidget(self._centre())
        split.addWidget(self._right())
        split.setStretchFactor(1, 1)
        split.setSizes([210, 700, 370])
        self.stack.addWidget(self.empty)
        self.stack.addWidget(split)
        self.stack.setCurrentIndex(1)
        row.addWidget(self.stack)

    # -- building ------------------------------------------------------------------------

    def _queue_column(self) -> QWidget:
        box = QWidget()
        column = QVBoxLayout(box)
        column.setContentsMargins(0, 0, 0, 0)
        self.filter = QComboBox()  # by benchmark (never by system: the SME is blind to it)
        self.filter.setToolTip("Only the items of one benchmark")
        self.filter.currentIndexChanged.connect(lambda _i: self._filters_changed())
        self.state_filter = QComboBox()
        self.state_filter.setToolTip("Only the items in one state")
        self.state_filter.addItem("Any state", None)
        for key, text in QUEUE_STATES.items():
            self.state_filter.addItem(text, key)
        self.state_filter.currentIndexChanged.connect(lambda _i: self._filters_changed())
        self.queue = QListWidget()
        self.queue.currentRowChanged.connect(self._row_changed)
        self.counts = QLabel("")
        self.counts.setWordWrap(True)
        column.addWidget(QLabel("<b>My queue</b> (J / K: next / previous)"))
        column.addWidget(self.filter)  # one above the other: each names its choice whole
        column.addWidget(self.state_filter)
        column.addWidget(self.queue, 1)
        column.addWidget(self.counts)
        return box

    def _centre(self) -> QWidget:
        split = QSplitter(Qt.Orientation.Vertical)
        panes = QWidget()
        three = QHBoxLayout(panes)
        three.setContentsMargins(0, 0, 0, 0)
        self.test_case, self.ground_truth, self.output = (QTextBrowser() for _ in range(3))
        for pane in (self.test_case, self.ground_truth, self.output):
            three.addWidget(pane)
        self.diff = QTextBrowser()
        form_box = QWidget()
        column = QVBoxLayout(form_box)
        column.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("")
        self.form = VerdictForm()
        self.form.chosen.connect(self.choose)
        self.form.typed.connect(self.typed)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        buttons = QHBoxLayout()
        self.undo_button = QPushButton("Undo")
        self.undo_button.setToolTip("Undo the last change of this item (Ctrl+Z)")
        self.undo_button.clicked.connect(self.undo_step)
        self.redo_button = QPushButton("Redo")
        self.redo_button.setToolTip("Redo (Ctrl+Shift+Z)")
        self.redo_button.clicked.connect(self.redo_step)
        self.submit_button = QPushButton("Submit (Ctrl+Enter)")
        self.submit_button.clicked.connect(self.submit)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.PlainText)  # error texts are never markup
        for w in (self.undo_button, self.redo_button, self.submit_button):
            buttons.addWidget(w)
        buttons.addWidget(self.status, 1)
        column.addWidget(self.title)
        column.addWidget(scroll, 1)
        column.addLayout(buttons)
        self.undo.canUndoChanged.connect(self.undo_button.setEnabled)
        self.undo.canRedoChanged.connect(self.redo_button.setEnabled)
        self.undo_button.setEnabled(False)
        self.redo_button.setEnabled(False)
        split.addWidget(panes)
        split.addWidget(self.diff)
        split.addWidget(form_box)
        split.setSizes([330, 90, 320])
        return split

    def _right(self) -> QWidget:
        split = QSplitter(Qt.Orientation.Vertical)
        self.card = QTextBrowser()
        self.verdicts = QTextBrowser()
        self.verdicts.setVisible(False)
        split.addWidget(self.card)
        split.addWidget(self.verdicts)
        split.setSizes([500, 200])
        return split

    # -- queue -----------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self.context.project is not None and self.context.user is not None

    def _who(self) -> tuple[Any, str]:
        assert self.context.project is not None and self.context.user is not None
        return self.context.project, self.context.user

    def load_filter(self) -> None:
        """The benchmark choices of the SME's queue, and the filters chosen last time."""
        kept = workspace_state.load_filters(*self._who(), "sme") if self.ready else {}
        for combo in (self.filter, self.state_filter):
            combo.blockSignals(True)
        self.filter.clear()
        self.filter.addItem("All benchmarks", None)
        if self.ready:
            for code, label in sme_review.my_benchmarks(*self._who()):
                self.filter.addItem(f"{code} · {label}", code)
        for combo, key in ((self.filter, "benchmark"), (self.state_filter, "state")):
            combo.setCurrentIndex(max(0, combo.findData(kept.get(key))) if key in kept else 0)
            combo.blockSignals(False)

    def _filters_changed(self) -> None:
        if self.ready:
            chosen = {key: str(combo.currentData()) for key, combo in
                      (("benchmark", self.filter), ("state", self.state_filter))
                      if combo.currentData() is not None}
            workspace_state.save_filters(*self._who(), "sme", chosen)
        self.reload_queue(keep=self.task)

    def reload_queue(self, keep: uuid.UUID | None = None) -> None:
        self.form.flush()
        self.queue.blockSignals(True)
        self.queue.clear()
        self.queue.blockSignals(False)
        if not self.ready:
            self.status.setText("Open a project and choose who you are to review items.")
            return
        self.entries = sme_review.queue(*self._who(), self.filter.currentData(),
                                        self.state_filter.currentData())
        self.queue.blockSignals(True)
        for entry in self.entries:
            line = QListWidgetItem(f"{STATE_MARKS[entry.state]} {entry.title}")
            line.setToolTip(f"{entry.benchmark_label}: {STATE_TEXT[entry.state]}")
            self.queue.addItem(line)
        self.queue.blockSignals(False)
        self._counts()
        filtered = self.filter.currentIndex() > 0 or self.state_filter.currentIndex() > 0
        self.stack.setCurrentIndex(1 if self.entries or filtered else 0)
        if not self.entries:
            self.status.setText("No review items match these filters." if filtered
                                else "No review items are assigned to you.")
            return
        ids = [e.task_id for e in self.entries]
        if keep in ids:
            self.queue.setCurrentRow(ids.index(keep))
            return
        # Start where work is left: the first task not submitted (re-checks count as open).
        todo = [i for i, e in enumerate(self.entries) if e.state != "submitted"]
        self.queue.setCurrentRow(todo[0] if todo else 0)

    def _counts(self) -> None:
        states = [e.state for e in self.entries]
        self.counts.setText(
            " · ".join(f"{STATE_MARKS[s]} {states.count(s)} {STATE_TEXT[s].split(' (')[0]}"
                       for s in STATE_MARKS if s in states)
        )

    def _row_changed(self, row: int) -> None:
        if 0 <= row < len(self.entries):
            self.form.flush()
            self.undo.clear()
            self.open_task(self.entries[row].task_id)

    def step(self, by: int) -> None:
        if self.entries:
            row = self.queue.currentRow() + by
            self.queue.setCurrentRow(max(0, min(row, len(self.entries) - 1)))

    # -- one task ----------------------------------------------------------------------------

    def _store_time(self, task: uuid.UUID, seconds: float) -> None:
        try:
            kinds.SME.add_active_time(*self._who(), task, seconds)
        except AnnotatorError as exc:  # e.g. reassigned meanwhile: the time is not work here
            self.status.setText(str(exc))

    def open_task(self, task: uuid.UUID) -> None:
        if self.task is not None and self.task != task:
            self.activity.flush(self.task)
        try:
            view = sme_review.view(*self._who(), task)
        except AnnotatorError as exc:
            self.status.setText(str(exc))
            return
        self.task, self.view = task, view
        self.title.setText(f"<b>{view.title}</b> · {STATE_TEXT[view.state]}")
        self.test_case.setHtml(pane_html("Input", view.test_case))
        self.ground_truth.setHtml(pane_html("Ground truth", view.ground_truth))
        self.output.setHtml(pane_html("Output under review", view.output))
        self.diff.setHtml(diff_html(view.diff))
        self.diff.setVisible(view.diff is not None)
        self.card.setHtml(card_html(view.benchmark))
        self.form.load(view.benchmark, view.fields, editable=not view.submitted)
        self.verdicts.setVisible(view.submitted)
        if view.submitted:
            # Blind until now: the automated verdict (hybrid only) comes with the view.
            self.verdicts.setHtml(verdicts_html(view.fields, view.automated))
        self._state_text()

    def _state_text(self) -> None:
        if self.view is None:
            return
        self.submit_button.setEnabled(not self.view.submitted)
        # A re-imported benchmark may no longer accept some answers: say which, in red.
        self.status.setStyleSheet(theme.css("color: $danger;") if self.view.stale else "")
        if self.view.stale:
            self.status.setText(
                "Re-check: " + "; ".join(self.view.stale) + ". Give these again, then submit."
            )
        elif self.view.submitted:
            self.status.setText("Submitted.")
        elif self.view.missing:
            self.status.setText("Saved as you go. Still needed: " + ", ".join(self.view.missing))
        else:
            self.status.setText("Saved as you go. Complete: Ctrl+Enter submits.")

    def choose(self, key: str, value: Any) -> None:
        """A choice from a button or a key: saved now, undoable."""
        self._push(key, value, typed=False)

    def typed(self, key: str, text: str) -> None:
        self._push(key, text if text.strip() else None, typed=True)

    def _push(self, key: str, value: Any, typed: bool) -> None:
        if self.view is None or self.task is None or self.view.submitted:
            return
        if self.view.fields.get(key) == value:
            return
        push_field_set(self.undo, self.task, key, value, self.save, self.refused, typed=typed)

    def save(self, task: uuid.UUID, key: str, value: Any) -> Any:
        """Save one field now and show it; returns the value the store replaced."""
        previous = kinds.SME.set_field(*self._who(), task, key, value)
        if task == self.task:
            try:
                view = sme_review.view(*self._who(), task)
            except AnnotatorError as exc:  # saved, but not re-read: the undo step stays
                self.status.setText(str(exc))
                return previous
            self.view = view  # the missing fields and the state, as the store has them
            self.form.show_fields(view.fields)
            self._mark_row("in_progress" if view.state == "assigned" else view.state)
            self._state_text()
        return previous

    def refused(self, exc: AnnotatorError) -> None:
        """A refused save: say why and show the fields as the store still has them."""
        self.status.setText(str(exc))
        if self.view is not None:
            self.form.show_fields(self.view.fields)

    def _mark_row(self, state: str) -> None:
        row = self.queue.currentRow()
        if 0 <= row < len(self.entries) and self.entries[row].task_id == self.task:
            entry = self.entries[row]
            if entry.state != state:
                self.entries[row] = sme_review.QueueEntry(
                    entry.task_id, entry.item_id, entry.title, entry.benchmark,
                    entry.benchmark_label, state,
                )
                self.queue.item(row).setText(f"{STATE_MARKS[state]} {entry.title}")
                self._counts()

    def undo_step(self) -> None:
        self.form.flush()
        self.undo.undo()

    def redo_step(self) -> None:
        self.form.flush()
        self.undo.redo()

    def submit(self) -> None:
        if self.task is None or not self.ready or self.view is None or self.view.submitted:
            return
        self.form.flush()
        self.activity.flush(self.task, leaving=False)  # the time is stored before it freezes
        try:
            kinds.SME.submit(*self._who(), self.task)
        except AnnotatorError as exc:
            self.status.setText(str(exc))
            return
        self.undo.clear()
        self._mark_row("submitted")
        self.open_task(self.task)
        following = next_open([e.state == "submitted" for e in self.entries],
                              self.queue.currentRow())
        if following is not None and next_after_submit():
            self.queue.setCurrentRow(following)

    def focus_rationale(self) -> None:
        if self.view is not None and not self.view.submitted:
            self.form.rationale.setFocus()
