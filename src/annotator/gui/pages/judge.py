"""The Judge scoring page: physicians score judged outputs blind; agreement with the judges.

Tab "Score": the physician's outputs ("output 3 of 12"), the case and the output, and the
scoring form (digits 0-3 and E/A/U on the highlighted row, Up/Down to move, Ctrl+Z/Ctrl+Y,
Ctrl+Return to submit, PgDown/PgUp for the next output). Every choice is saved at once.
Tab "Conflicts": acceptable vs unacceptable between physicians, for the senior to decide.
Tab "Agreement": Table 9's upper triangle and the selected pair's per-target figures.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QScrollArea,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from annotator.domain.queue_order import next_open
from annotator.domain.states import QUEUE_STATES
from annotator.errors import AnnotatorError
from annotator.gui.activity import ItemActivity
from annotator.gui.context import GuiContext
from annotator.gui.judge.agreement_tab import AgreementTab
from annotator.gui.judge.case_text import case_html, judges_html
from annotator.gui.judge.form import ScoringForm
from annotator.gui.judge.keymap import JUDGE_ACTIONS, LABELS, SCORES
from annotator.gui.layout import column_widget
from annotator.gui.preferences import next_after_submit
from annotator.gui.undo import push_field_set
from annotator.services import kinds, workspace_state
from annotator.services.judging import review as judge_review
from annotator.services.judging import scoring as judge_scoring
from annotator.services.judging.agreement import judge_agreement

PAGE_ID = "judge"


class Page(QWidget):
    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        self.context = context
        self.item: uuid.UUID | None = None
        self.view: judge_scoring.ScoringView | None = None
        self.undo = QUndoStack(self)
        layout = QVBoxLayout(self)
        self.tabs = QTabWidget(self)
        layout.addWidget(self.tabs)
        self.tabs.addTab(self._score_tab(), "Score")
        conflicts = self._conflicts_tab()
        self.agreement = AgreementTab(self._agreement, self)
        # Physicians scoring blind never see run names or judges' figures here.
        self.senior = (
            self.ready
            and context.project is not None
            and judge_scoring.may_see_runs(context.project, context.user or "")
        )
        if self.senior:
            self.tabs.addTab(conflicts, "Conflicts")
            self.tabs.addTab(self.agreement, "Agreement")
        self._register_actions()
        # Active time on each output (idle and pauses excluded), as the Annotate page does.
        self.activity = ItemActivity(self, lambda: self.item, self._store_time)
        self._load_filters()
        self.reload_items()

    # -- building ------------------------------------------------------------------------

    def _score_tab(self) -> QWidget:
        tab = QWidget()
        row = QHBoxLayout(tab)
        split = QSplitter(Qt.Orientation.Horizontal, tab)
        self.items = QListWidget()
        self.items.currentRowChanged.connect(self._item_changed)
        # The queue's filters: by benchmark and state, never by system (scoring is blind).
        self.benchmark_filter = QComboBox()
        self.benchmark_filter.setToolTip("Only the outputs scored on one benchmark")
        self.state_filter = QComboBox()
        self.state_filter.setToolTip("Only the outputs in one state")
        self.state_filter.addItem("Any state", None)
        for key, text in QUEUE_STATES.items():
            self.state_filter.addItem(text, key)
        fit = QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon
        for combo in (self.benchmark_filter, self.state_filter):
            combo.setSizeAdjustPolicy(fit)
            combo.setMinimumContentsLength(8)
        queue = column_widget(self.benchmark_filter, self.state_filter, (self.items, 1))
        self.case = QTextBrowser()
        right = QWidget()
        column = QVBoxLayout(right)
        self.form = ScoringForm()
        self.form.chosen.connect(self.choose)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.form)
        column.addWidget(scroll, 3)
        buttons = QHBoxLayout()
        self.submit_button = QPushButton("Submit (Ctrl+Return)")
        self.submit_button.clicked.connect(self.submit)
        self.reveal_button = QPushButton("Reveal judges")
        self.reveal_button.clicked.connect(self.reveal)
        buttons.addWidget(self.submit_button)
        buttons.addWidget(self.reveal_button)
        column.addLayout(buttons)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        column.addWidget(self.status)
        self.judges = QTextBrowser()
        self.judges.setVisible(False)
        column.addWidget(self.judges, 2)
        split.addWidget(queue)
        split.addWidget(self.case)
        split.addWidget(right)
        split.setSizes([160, 520, 760])
        row.addWidget(split)
        return tab

    def _conflicts_tab(self) -> QWidget:
        tab = QWidget()
        column = QVBoxLayout(tab)
        self.conflicts = QTableWidget(0, 5)
        self.conflicts.setHorizontalHeaderLabels(["run", "case", "key", "physicians", "reason"])
        column.addWidget(self.conflicts)
        decide = QHBoxLayout()
        self.decision = QLineEdit()
        self.decision.setPlaceholderText("value (0-3 or E/A/U)")
        self.decision_reason = QLineEdit()
        self.decision_reason.setPlaceholderText("reason")
        button = QPushButton("Decide")
        button.clicked.connect(self.decide)
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.reload_conflicts)
        for w in (self.decision, self.decision_reason, button, refresh):
            decide.addWidget(w)
        column.addLayout(decide)
        self.conflict_status = QLabel("")
        column.addWidget(self.conflict_status)
        self._conflict_rows: list[judge_review.JudgeConflict] = []
        return tab

    def _handlers(self) -> dict[str, Callable[[], None]]:
        def press(value: Any) -> Callable[[], None]:
            return lambda: self.form.press(value)

        return {
            **{f"judge.score.{n}": press(n) for n in SCORES},
            **{f"judge.label.{letter}": press(letter) for letter in LABELS},
            "judge.row.next": lambda: self.form.set_current(self.form.current + 1),
            "judge.row.previous": lambda: self.form.set_current(self.form.current - 1),
            "judge.undo": self.undo.undo,
            "judge.redo": self.undo.redo,
            "judge.redo.shift": self.undo.redo,
            "judge.submit": self.submit,
            "judge.item.next": lambda: self.items.setCurrentRow(self.items.currentRow() + 1),
            "judge.item.previous": lambda: self.items.setCurrentRow(
                max(self.items.currentRow() - 1, 0)
            ),
        }

    def _register_actions(self) -> None:
        """The page's keys go through the window's registry (F1 lists them, rebinding works)."""
        registry = self.context.registry_for(self)
        table = self._handlers()
        for spec in JUDGE_ACTIONS:
            registry.register(spec, table[spec.id], self, page=PAGE_ID)

    # -- scoring -------------------------------------------------------------------------

    @property
    def ready(self) -> bool:
        return self.context.project is not None and self.context.user is not None

    def _load_filters(self) -> None:
        """The benchmark choices of the physician's outputs, and the filters chosen last."""
        self.benchmark_filter.addItem("All benchmarks", None)
        if not self.ready:
            return
        assert self.context.project is not None and self.context.user is not None
        who = (self.context.project, self.context.user)
        for name in judge_scoring.my_benchmarks(*who):
            self.benchmark_filter.addItem(name, name)
        kept = workspace_state.load_filters(*who, "judge")
        for combo, key in ((self.benchmark_filter, "benchmark"), (self.state_filter, "state")):
            combo.setCurrentIndex(max(0, combo.findData(kept.get(key))) if key in kept else 0)
            combo.currentIndexChanged.connect(lambda _i: self._filters_changed())

    def _filters_changed(self) -> None:
        assert self.context.project is not None and self.context.user is not None
        chosen = {key: str(combo.currentData()) for key, combo in
                  (("benchmark", self.benchmark_filter), ("state", self.state_filter))
                  if combo.currentData() is not None}
        workspace_state.save_filters(self.context.project, self.context.user, "judge", chosen)
        self.reload_items()

    def reload_items(self) -> None:
        self.items.clear()
        if not self.ready:
            self.status.setText("Open a project and choose who you are to score outputs.")
            return
        assert self.context.project is not None and self.context.user is not None
        self.entries = judge_scoring.my_items(
            self.context.project, self.context.user,
            self.benchmark_filter.currentData(), self.state_filter.currentData())
        for item_id, title, submitted in self.entries:
            entry = QListWidgetItem(("✓ " if submitted else "") + title)
            entry.setData(Qt.ItemDataRole.UserRole, str(item_id))
            self.items.addItem(entry)
        if not self.entries:
            combos = (self.benchmark_filter, self.state_filter)
            filtered = any(combo.currentIndex() > 0 for combo in combos)
            self.status.setText("No judged outputs match these filters." if filtered
                                else "No judged outputs are assigned to you.")
        else:
            self.items.setCurrentRow(0)

    def _item_changed(self, row: int) -> None:
        if row < 0 or row >= len(self.entries):
            return
        self.undo.clear()
        self.open_item(self.entries[row][0])

    def _store_time(self, item: uuid.UUID, seconds: float) -> None:
        assert self.context.project is not None and self.context.user is not None
        try:
            kinds.JUDGE.add_active_time(self.context.project, self.context.user, item, seconds)
        except AnnotatorError as exc:  # e.g. reassigned meanwhile: the time is not work here
            self.status.setText(str(exc))

    def shutdown(self) -> None:
        """Store the active time measured on the open output (window closing or switching)."""
        self.activity.flush(self.item)

    def open_item(self, item: uuid.UUID) -> None:
        assert self.context.project is not None and self.context.user is not None
        if self.item is not None and self.item != item:
            self.activity.flush(self.item)
        self.item = item
        self.view = judge_scoring.view(self.context.project, self.context.user, item)
        self.case.setHtml(case_html(self.view))
        self.form.load(self.view)
        self.form.setEnabled(not self.view.submitted)
        self.judges.setVisible(False)
        self._state_text()

    def _state_text(self) -> None:
        if self.view is None:
            return
        done = "submitted" if self.view.submitted else "saved as you go"
        self.status.setText(f"{self.view.title}: {done}.")
        self.submit_button.setEnabled(not self.view.submitted)
        self.reveal_button.setEnabled(self.view.submitted)

    def choose(self, key: str, value: Any) -> None:
        """A choice from a button or a key: saved now, undoable."""
        if self.view is None or self.item is None or self.view.submitted:
            return
        if self.view.scores.get(key) == value:
            return
        push_field_set(self.undo, self.item, key, value, self.save, self.refused)

    def save(self, item: uuid.UUID, key: str, value: Any) -> Any:
        """Save one score now and show it; returns the value the store replaced."""
        assert self.context.project is not None and self.context.user is not None
        previous = kinds.JUDGE.set_field(
            self.context.project, self.context.user, item, key, value
        )
        if self.view is not None and item == self.item:
            if value is None:
                self.view.scores.pop(key, None)
            else:
                self.view.scores[key] = value
            self.form.show_values(self.view.scores)
        return previous

    def refused(self, exc: AnnotatorError) -> None:
        self.status.setText(str(exc))

    def submit(self) -> None:
        if self.item is None or not self.ready:
            return
        assert self.context.project is not None and self.context.user is not None
        self.activity.flush(self.item, leaving=False)  # the time is stored before it freezes
        try:
            kinds.JUDGE.submit(self.context.project, self.context.user, self.item)
        except AnnotatorError as exc:
            self.status.setText(str(exc))
            return
        row = self.items.currentRow()
        self.entries[row] = (self.entries[row][0], self.entries[row][1], True)
        self.items.item(row).setText("✓ " + self.entries[row][1])
        self.undo.clear()
        self.open_item(self.item)
        following = next_open([submitted for _, _, submitted in self.entries], row)
        if following is not None and next_after_submit():
            self.items.setCurrentRow(following)

    def reveal(self) -> None:
        if self.item is None or self.view is None:
            return
        assert self.context.project is not None and self.context.user is not None
        try:
            judges = kinds.JUDGE.reveal(self.context.project, self.context.user, self.item)
        except AnnotatorError as exc:
            self.status.setText(str(exc))
            return
        self.judges.setHtml(judges_html(judges, self.view.scores))  # type: ignore[arg-type]
        self.judges.setVisible(True)

    # -- conflicts and agreement ---------------------------------------------------------

    def reload_conflicts(self) -> None:
        if self.context.project is None:
            return
        self._conflict_rows = judge_review.list_conflicts(
            self.context.project, self.context.user or "", open_only=True
        )
        self.conflicts.setRowCount(len(self._conflict_rows))
        for r, c in enumerate(self._conflict_rows):
            cells = (c.run, c.case_id, c.key, str(c.by_scorer), c.reason)
            for col, text in enumerate(cells):
                self.conflicts.setItem(r, col, QTableWidgetItem(text))
        self.conflicts.resizeColumnsToContents()

    def decide(self) -> None:
        row = self.conflicts.currentRow()
        if not self.ready or not 0 <= row < len(self._conflict_rows):
            self.conflict_status.setText("Choose a conflict first.")
            return
        assert self.context.project is not None and self.context.user is not None
        conflict = self._conflict_rows[row]
        text = self.decision.text().strip()
        value: Any = int(text) if text.isdigit() else text
        try:
            kinds.JUDGE.adjudicate(
                self.context.project,
                self.context.user,
                conflict.item_id,
                conflict.key,
                value,
                self.decision_reason.text(),
            )
        except AnnotatorError as exc:
            self.conflict_status.setText(str(exc))
            return
        self.conflict_status.setText(f"Decided {conflict.case_id} {conflict.key} = {value}.")
        self.reload_conflicts()

    def _agreement(self) -> dict[str, Any]:
        if self.context.project is None or not self.context.user:
            return {"raters": [], "pairs": []}
        return judge_agreement(self.context.project, self.context.user)

    def showEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        # The scoring keys act within this page (page actions): start with the focus in it.
        focus = QApplication.focusWidget()
        if self.tabs.currentIndex() == 0 and not (focus is not None and self.isAncestorOf(focus)):
            self.items.setFocus()
        if self.context.project is not None and self.senior:
            self.reload_conflicts()
            self.agreement.refresh()
