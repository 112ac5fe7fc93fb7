"""The desk (curators; adjudicators read it): where the project stands, and the curator's
actions.

Every figure comes from one :class:`~annotator.services.desk.DeskSnapshot`, the object
``annotator desk --json`` prints, computed off the GUI thread (``gui.workers``) when the
page is first shown, each time it is shown again (after edits elsewhere in the app), after
an action run from the desk, and on Refresh (F5). The conflicts of each kind have a button
that opens the page where they are decided. The Actions area lists every ``project.*``
action of the registry (``gui/desk/actions.py``). Other views (the quality view) add their
own section with :meth:`DeskPage.add_section`.
"""

from __future__ import annotations

from typing import Any, Protocol

from PySide6.QtCore import Signal
from PySide6.QtGui import QShowEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFrame,
    QGridLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QSpinBox,
    QTableView,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from annotator.domain.permissions import Action, refusal
from annotator.errors import AnnotatorError, PermissionDenied
from annotator.gui import theme
from annotator.gui.actions import ActionSpec
from annotator.gui.context import GuiContext
from annotator.gui.desk.actions import ActionsPanel
from annotator.gui.desk.cards import FigureCard, ProgressRow, align
from annotator.gui.desk.chart import SubmissionsChart
from annotator.gui.desk.models import AnnotatorTableModel
from annotator.gui.permits import guard, why_not
from annotator.gui.quality.view import QualityView
from annotator.gui.workers import run_in_background
from annotator.services.agreement import agreement_report
from annotator.services.desk import (
    ANNOTATORS_SHOWN,
    MAX_STUCK_DAYS,
    DeskSnapshot,
    annotator_rows,
    desk_snapshot,
    set_stuck_after_days,
)
from annotator.services.quality import snapshot as quality_snapshot

PAGE_ID = "desk"
REFRESH = ActionSpec("desk.refresh", "Refresh the desk", "F5", "Desk", context="page")
PAGE_TITLES = {"review": "Meta-review", "sme": "SME review", "judge": "Judge scoring"}
SHORT = {"cases": "cases", "sme_verdicts": "SME", "judge_scoring": "judged"}
ITEM_WORDS = {"cases": "case(s)", "sme_verdicts": "item(s)", "judge_scoring": "output(s)"}
WORK_TITLES = {"case": "Case annotations", "sme": "SME verdicts", "judge": "Judge scoring"}
# Round-trip window actions the desk's interim project.* actions trigger.


class PageWindow(Protocol):
    """What the desk asks of the main window (named by a Protocol: no import cycle)."""

    page_ids: list[str]

    def show_page(self, page_id: str) -> None: ...

    def page(self, page_id: str) -> QWidget: ...


def _section(title: str) -> tuple[QGroupBox, QVBoxLayout]:
    box = QGroupBox(title)
    layout = QVBoxLayout(box)
    layout.setContentsMargins(8, 6, 8, 8)
    return box, layout


class DeskPage(QWidget):
    """The desk page (see the module docstring)."""

    refreshed = Signal()
    """A new snapshot is on screen."""
    failed = Signal(str)
    """A snapshot could not be read (the one-line reason is on the page)."""

    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        assert context.project is not None
        self.context = context
        self.snapshot: DeskSnapshot | None = None
        self._generation = 0
        self._running = 0
        self._asked_again = False  # a refresh asked for while one was reading
        # The full agreement report (the intervals) computing in the background, and
        # whether the snapshot being shown was read right after one finished.
        self._report_running = False
        self._after_report = False
        self._done = False
        self.read_only = why_not(context, Action.MANAGE_USERS) is not None
        self.registry = context.registry_for(self)
        outer = QHBoxLayout(self)
        outer.setContentsMargins(8, 6, 8, 6)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setFrameShape(QFrame.Shape.NoFrame)
        body = QWidget()
        self.body = QVBoxLayout(body)
        self.body.setContentsMargins(0, 0, 6, 0)
        scroll.setWidget(body)
        outer.addWidget(scroll, 1)
        self._header()
        self._cards()
        self.grid = QGridLayout()
        self.grid.setColumnStretch(0, 3)
        self.grid.setColumnStretch(1, 2)
        self.body.addLayout(self.grid)
        self._annotators()
        self._conflicts()
        self._agreement()
        self._progress()
        self._chart_and_stuck()
        self.body.addStretch(1)
        # Physicians' quality (calibration, repeats, gold, time, latent classes), for the
        # roles that may read it; read off the GUI thread after the desk's own figures.
        self.quality_view: QualityView | None = None
        if why_not(context, Action.READ_QUALITY) is None:
            self.quality_view = QualityView()
            self.quality_view.setMinimumHeight(360)
            self.add_section("Quality", self.quality_view)
        outer.addWidget(self._actions_column())
        self.registry.register(REFRESH, self.refresh, self, page=PAGE_ID)

    # -- building ------------------------------------------------------------------------

    def _header(self) -> None:
        row = QHBoxLayout()
        row.addWidget(QLabel("<h2>Desk</h2>"))
        self.who = QLabel("Read only: the desk's actions need the curator role"
                          if self.read_only else "")
        self.who.setStyleSheet(theme.css("color: $text_dim;"))
        row.addWidget(self.who)
        row.addStretch(1)
        self.status = QLabel("Reading the project…")
        self.status.setStyleSheet(theme.css("color: $text_dim;"))
        row.addWidget(self.status)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("Read the figures again (F5)")
        self.refresh_button.clicked.connect(self.refresh)
        row.addWidget(self.refresh_button)
        self.body.addLayout(row)
        self.error = QLabel("")
        self.error.setWordWrap(True)
        self.error.setStyleSheet(theme.css("color: $danger;"))
        self.error.hide()
        self.body.addWidget(self.error)

    def _cards(self) -> None:
        row = QHBoxLayout()
        self.cards = {key: FigureCard(title) for key, title in (
            ("cases", "Cases"), ("needs_fix", "Need a fix"), ("conflicts", "Open conflicts"),
            ("stuck", "Stuck work"), ("submitted", "Submitted"))}
        for card in self.cards.values():
            row.addWidget(card)
        self.body.addLayout(row)

    def _annotators(self) -> None:
        box, layout = _section("Annotators")
        self.annotator_box = box
        self.annotator_model = AnnotatorTableModel(self)
        self.annotator_model.fetcher = self._read_annotators_after
        self.annotator_model.rowsInserted.connect(self._fit_table)  # a page read as it scrolls
        self.annotator_table = QTableView()
        self.annotator_table.setModel(self.annotator_model)
        self.annotator_table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.annotator_table.verticalHeader().hide()
        header = self.annotator_table.horizontalHeader()
        # Names keep their width (a stretched first column was squeezed to "Dr ..." at
        # 1280 px); the last column takes what is left, and a narrow pane scrolls sideways.
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        header.setStretchLastSection(True)
        self.annotator_table.setWordWrap(False)
        layout.addWidget(self.annotator_table)
        self.grid.addWidget(box, 0, 0)

    def _conflicts(self) -> None:
        box, layout = _section("Conflicts waiting")
        self.conflict_rows = QGridLayout()
        layout.addLayout(self.conflict_rows)
        layout.addStretch(1)
        self.conflict_labels: dict[str, QLabel] = {}
        self.jump_buttons: dict[str, QPushButton] = {}
        self.grid.addWidget(box, 0, 1)

    def _agreement(self) -> None:
        box, layout = _section("Agreement (exact agreement per label family)")
        self.agreement_rows = QGridLayout()
        layout.addLayout(self.agreement_rows)
        self.agreement_note = QLabel("")
        self.agreement_note.setWordWrap(True)
        self.agreement_note.setStyleSheet(theme.css("color: $text_dim;"))
        layout.addWidget(self.agreement_note)
        self.grid.addWidget(box, 1, 0)

    def _progress(self) -> None:
        box, layout = _section("Progress")
        self.work_rows = {kind: ProgressRow(title) for kind, title in WORK_TITLES.items()}
        for row in self.work_rows.values():
            layout.addWidget(row)
        self.sme_title = QLabel("SME benchmarks (items with a reference verdict)")
        self.sme_title.setStyleSheet(theme.css("color: $text_dim;"))
        layout.addWidget(self.sme_title)
        self.sme_rows = QVBoxLayout()
        layout.addLayout(self.sme_rows)
        layout.addStretch(1)
        self.grid.addWidget(box, 1, 1)

    def _chart_and_stuck(self) -> None:
        box, layout = _section("Case submissions per day")
        self.chart = SubmissionsChart()
        self.chart.setMaximumHeight(self.fontMetrics().height() * 9)
        layout.addWidget(self.chart)
        self.grid.addWidget(box, 2, 0)
        box, layout = _section("Stuck work")
        limit = QHBoxLayout()
        limit.addWidget(QLabel("No edit for"))
        self.stuck_days = QSpinBox()
        self.stuck_days.setRange(0, MAX_STUCK_DAYS)
        self.stuck_days.setSuffix(" days")
        self.stuck_days.setKeyboardTracking(False)  # one save per value, not per keystroke
        limit.addWidget(self.stuck_days)
        limit.addStretch(1)
        layout.addLayout(limit)
        guard(self.context, Action.SET_STUCK_LIMIT, self.stuck_days)  # else: a tooltip says who
        self.stuck_days.valueChanged.connect(self.set_stuck_days)
        self.stuck_title = QLabel("")
        self.stuck_title.setWordWrap(True)
        self.stuck_list = QListWidget()
        self.stuck_list.setMinimumHeight(self.fontMetrics().height() * 4)
        self.stuck_list.setMaximumHeight(self.fontMetrics().height() * 9)
        layout.addWidget(self.stuck_title)
        layout.addWidget(self.stuck_list)
        layout.addStretch(1)
        self.grid.addWidget(box, 2, 1)

    def _actions_column(self) -> QWidget:
        box, layout = _section("Actions")
        self.actions_panel = ActionsPanel(self.context, self.registry)
        layout.addWidget(self.actions_panel)
        layout.addStretch(1)
        box.setSizePolicy(QSizePolicy.Policy.Maximum, QSizePolicy.Policy.Preferred)
        box.setMinimumWidth(self.fontMetrics().horizontalAdvance("M") * 11)
        return box

    def add_section(self, title: str, widget: QWidget) -> QGroupBox:
        """Add a section under the desk's own (the quality view's place); returns its box."""
        box, layout = _section(title)
        layout.addWidget(widget)
        self.body.insertWidget(self.body.count() - 1, box)  # above the closing stretch
        return box

    # -- refreshing ----------------------------------------------------------------------

    def ready(self) -> bool:
        """True once the first snapshot (or the reason there is none) is on screen."""
        return self._done

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 - Qt's name
        super().showEvent(event)
        self.actions_panel.fill()  # actions registered since (another page, a helper)
        self.refresh()

    def refresh(self) -> None:
        """Read a new snapshot off the GUI thread (one at a time; the latest one wins: a
        refresh asked for while one reads starts when that one ends, which is not shown)."""
        if self._running:
            self._asked_again = True
            return
        project, user = self.context.project, self.context.user or ""
        assert project is not None
        self._generation += 1
        self._running = self._generation
        self.status.setText("Reading the project…")
        # As many annotator rows as are shown now (the table scrolled further keeps them).
        rows = max(ANNOTATORS_SHOWN, len(self.annotator_model.rows))
        run_in_background(lambda: desk_snapshot(project, user, annotators=rows), self._show,
                          self._failed)

    def _read_annotators_after(self, name: str) -> None:
        """The annotator table scrolled to its end: read the next page off the GUI thread."""
        project, user = self.context.project, self.context.user or ""
        assert project is not None
        model = self.annotator_model

        def failed(exc: BaseException) -> None:
            model.page_failed(name)
            self.error.setText(f"More annotator rows could not be read: {exc}")
            self.error.show()

        limit = ANNOTATORS_SHOWN
        run_in_background(lambda: annotator_rows(project, user, after=name, limit=limit),
                          lambda rows: model.add_page(name, rows), failed)

    def _end_read(self) -> bool:
        """End the read that just finished; True when a refresh was asked for meanwhile (an
        edit such as the stuck limit) and started instead: that read's snapshot is stale."""
        self._running = 0
        if not self._asked_again:
            return False
        self._asked_again = False
        self.refresh()
        return True

    def _show(self, snapshot: DeskSnapshot) -> None:
        if self._end_read():
            return
        self.snapshot = snapshot
        self.error.hide()
        self._fill(snapshot)
        self.status.setText(f"Figures of {snapshot.at:%H:%M:%S} UTC")
        self._done = True
        self.refreshed.emit()
        self._intervals_if_stale(snapshot)
        if self.quality_view is not None:
            project, user = self.context.project, self.context.user or ""
            self.quality_view.show_measuring()  # not "nothing measured" while it is read
            run_in_background(lambda: quality_snapshot(project, user),
                              self.quality_view.set_snapshot, self._quality_failed)

    def _intervals_if_stale(self, snapshot: DeskSnapshot) -> None:
        """The values are current; when their intervals are not, compute the full report
        off the GUI thread, then read the desk again (once per report: a snapshot read
        right after one does not start another)."""
        after, self._after_report = self._after_report, False
        if snapshot.agreement is None or snapshot.agreement_intervals or after:
            return
        if self._report_running:
            return
        project, user = self.context.project, self.context.user or ""
        self._report_running = True
        run_in_background(lambda: agreement_report(project, user), self._report_ready,
                          self._report_failed)

    def _report_ready(self, _report: object) -> None:
        self._report_running = False
        self._after_report = True
        self.refresh()

    def _report_failed(self, exc: BaseException) -> None:
        self._report_running = False
        self.agreement_note.setText(f"The agreement intervals could not be computed: {exc}")

    def _quality_failed(self, exc: BaseException) -> None:
        if self.quality_view is not None:
            self.quality_view.summary.setText(f"The quality figures could not be read: {exc}")

    def _failed(self, exc: BaseException) -> None:
        if self._end_read():
            return
        self.error.setText(f"The desk could not be read: {exc}")
        self.error.show()
        self.status.setText("")
        self._done = True
        self.failed.emit(str(exc))

    # -- showing a snapshot --------------------------------------------------------------

    def _fill(self, s: DeskSnapshot) -> None:
        states = ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in s.cases_by_state.items())
        work = s.work["case"]
        self.cards["cases"].set(str(s.status["cases"]), states)
        self.cards["needs_fix"].set(str(s.needs_fix), "open cases with draft problems")
        self.cards["conflicts"].set(
            str(sum(q.open_conflicts for q in s.conflicts)),
            ", ".join(f"{q.open_conflicts} {SHORT[q.key]}" for q in s.conflicts))
        self.cards["stuck"].set(str(s.stuck_total), f"no edit for {s.stuck_after_days} days")
        self.cards["submitted"].set(str(work.submitted), f"of {work.assigned} case assignments")
        self.annotator_model.set_page(s.annotators, s.annotators_total)
        self.annotator_box.setTitle(f"Annotators ({s.annotators_total})")
        self._fit_table()
        self._fill_conflicts(s)
        self._fill_agreement(s)
        for kind, row in self.work_rows.items():
            progress = s.work[kind]
            row.set(progress.submitted, progress.assigned, "submitted")
        _clear(self.sme_rows)
        benches = []
        for bench in s.sme_benchmarks:
            row = ProgressRow(bench.code)
            row.set(bench.resolved, bench.total)
            row.setToolTip(f"{bench.label}: {bench.undecided} undecided, "
                           f"{bench.unsubmitted} unsubmitted")
            self.sme_rows.addWidget(row)
            benches.append(row)
        align([*self.work_rows.values(), *benches])
        self.sme_title.setVisible(bool(s.sme_benchmarks))
        self.chart.set_days(s.submissions_per_day)
        blocked = self.stuck_days.blockSignals(True)
        self.stuck_days.setValue(s.stuck_after_days)
        self.stuck_days.blockSignals(blocked)
        self.stuck_title.setText(
            f"{s.stuck_total} open assignment(s) nobody edited for {s.stuck_after_days} days"
            + (f" (the oldest {len(s.stuck)} listed)" if s.stuck_total > len(s.stuck) else ""))
        self.stuck_list.clear()
        self.stuck_list.setVisible(bool(s.stuck))
        for w in s.stuck:
            self.stuck_list.addItem(f"{w.case_id} · {w.annotator} · "
                                    f"{w.state.replace('_', ' ')} · idle {w.idle_days:g} days")

    def _fill_conflicts(self, s: DeskSnapshot) -> None:
        window = self._window()
        for row, queue in enumerate(s.conflicts):
            label = self.conflict_labels.get(queue.key)
            if label is None:
                label = self.conflict_labels[queue.key] = QLabel()
                button = self.jump_buttons[queue.key] = QPushButton(
                    f"Open {PAGE_TITLES.get(queue.page, queue.page)}")
                button.clicked.connect(lambda _c=False, page=queue.page: self.jump(page))
                self.conflict_rows.addWidget(label, row, 0)
                self.conflict_rows.addWidget(button, row, 1)
            label.setText(f"{queue.title}: <b>{queue.open_conflicts}</b> open in "
                          f"{queue.items} {ITEM_WORDS.get(queue.key, 'item(s)')}")
            button = self.jump_buttons[queue.key]
            shown = window is not None and queue.page in window.page_ids
            button.setEnabled(shown)
            title = PAGE_TITLES.get(queue.page, queue.page)
            button.setToolTip(f"Open {title}, where they are decided" if shown
                              else f"The {title} page is not shown to you")

    def _fill_agreement(self, s: DeskSnapshot) -> None:
        _clear(self.agreement_rows)
        rows = []
        if s.agreement is None:
            self.agreement_note.setText(s.agreement_note[:1].upper() + s.agreement_note[1:]
                                        + ".")
            return
        for i, family in enumerate(s.agreement):
            bar = ProgressRow(family.title)
            bar.bar.setRange(0, 1000)
            value = family.agreement
            bar.bar.setValue(0 if value is None else round(1000 * value))
            bar.bar.setFormat("n/a" if value is None else f"{100 * value:.1f}%")
            bar.count.setText(f"{family.n_units} units")
            ci = family.ci95
            bar.setToolTip(f"{family.title}: "
                           + ("n/a" if value is None else f"{100 * value:.1f}%")
                           + (f", 95% CI {100 * ci[0]:.1f}–{100 * ci[1]:.1f}%" if ci else "")
                           + ("" if family.alpha is None else f"; alpha {family.alpha:.3f}"))
            self.agreement_rows.addWidget(bar, i, 0)
            rows.append(bar)
        align(rows)
        self.agreement_note.setText("" if s.agreement_intervals else
                                    s.agreement_note[:1].upper() + s.agreement_note[1:] + "…")

    def _fit_table(self) -> None:
        """The annotator table as tall as its rows (up to ten; it scrolls beyond)."""
        table = self.annotator_table
        shown = min(max(len(self.annotator_model.rows), 3), 10)
        rows = sum(table.rowHeight(i) for i in range(shown)) if self.annotator_model.rows else 0
        line = max(table.verticalHeader().defaultSectionSize(), 1)
        header = table.horizontalHeader().height()
        sideways = table.horizontalScrollBar().sizeHint().height()  # room if it scrolls
        table.setFixedHeight(header + max(rows, shown * line) + 2 * table.frameWidth() + 2
                             + sideways)

    def set_stuck_days(self, days: int) -> None:
        """Keep ``days`` as the project's stuck limit (a curator's edit), then read again."""
        if self.snapshot is None or days == self.snapshot.stuck_after_days:
            return  # the value shown by a refresh, not an edit
        assert self.context.project is not None
        try:
            set_stuck_after_days(self.context.project, self.context.user or "", days)
        except AnnotatorError as exc:
            self.error.setText(str(exc))
            self.error.show()
            return
        self.refresh()

    # -- going elsewhere -----------------------------------------------------------------

    def _window(self) -> PageWindow | None:
        window: Any = self.window()
        return window if hasattr(window, "show_page") and hasattr(window, "page_ids") else None

    def jump(self, page_id: str) -> None:
        """Open ``page_id`` (on its Conflicts tab when it has one)."""
        window = self._window()
        if window is None or page_id not in window.page_ids:
            return
        window.show_page(page_id)
        tabs = window.page(page_id).findChild(QTabWidget)
        if tabs is not None:
            for i in range(tabs.count()):
                if tabs.tabText(i) == "Conflicts":
                    tabs.setCurrentIndex(i)


def _clear(layout: QGridLayout | QVBoxLayout) -> None:
    while layout.count():
        item = layout.takeAt(0)
        widget = item.widget() if item is not None else None
        if widget is not None:
            widget.deleteLater()


def Page(context: GuiContext) -> QWidget:  # noqa: N802 - the page protocol's name
    """The desk for a senior; PermissionDenied (the window says why) for anyone else."""
    reason = why_not(context, Action.VIEW_DESK)
    if reason is not None:
        raise PermissionDenied(refusal(Action.VIEW_DESK, context.user or "nobody"))
    return DeskPage(context)
