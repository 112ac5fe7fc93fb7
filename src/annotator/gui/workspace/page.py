"""The annotate page: case list, case text, exam strip, viewer, order board, labels, fixes.

This module only composes the widgets and connects them; the rules live in the core
(``services.workspace``, ``order_board``, ``draft_fixes``), store writes go through the
:class:`CaseSession`, slow image work through the :class:`ImageLoader`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QLabel, QSplitter, QTabWidget, QVBoxLayout, QWidget

from annotator.gui import theme
from annotator.gui.context import GuiContext
from annotator.gui.history_dialog import HistoryDialog
from annotator.gui.permits import roles
from annotator.gui.preferences import next_after_submit
from annotator.gui.workers import run_in_background
from annotator.gui.workspace import layout as ui
from annotator.gui.workspace.activity import ActivityTracker
from annotator.gui.workspace.board import OrderBoard
from annotator.gui.workspace.cards import series_of, view_card
from annotator.gui.workspace.case_list import CaseListPanel
from annotator.gui.workspace.case_text import CaseText
from annotator.gui.workspace.draft_editors import RubricEditor, StepsEditor
from annotator.gui.workspace.exam_strip import ExamCard, ExamModel, ExamStrip
from annotator.gui.workspace.images import ImageLoader
from annotator.gui.workspace.labels_panel import LabelsPanel
from annotator.gui.workspace.metadata_editor import MetadataEditor
from annotator.gui.workspace.page_actions import register_actions
from annotator.gui.workspace.session import CaseSession
from annotator.gui.workspace.viewer import ImageViewer
from annotator.services import draft_fixes, order_board, workspace, workspace_state
from annotator.services.annotating import AnnotationView
from annotator.services.order_board import Move
from annotator.store.image_record import ImageRecord

RESUME_SAVE_MS = 1500


class AnnotatePage(QWidget):
    """The physician's workspace for their own cases."""

    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        assert context.project is not None and context.user is not None
        self.context = context
        self.project = context.project
        self.user = context.user
        self.session = CaseSession(self.project, self.user, self)
        self.history: HistoryDialog | None = None
        self.loader = ImageLoader(self.project, self)
        self.images: dict[str, list[ImageRecord]] = {}
        self.exam = ""
        self.viewer_states: dict[str, dict[str, Any]] = {}
        self.resume = workspace_state.load_resume(self.project, self.user)
        self._finishing: str | None = None  # the case whose opening is not finished yet
        self._finish_parts: list[Callable[[], None]] = []  # what is left of that opening
        self._opening = False  # in open_case: the board is drawn in a later turn
        # The next case in the list, read ahead once a case is on screen (its view and its
        # images' records), so that moving on reads nothing on the GUI thread. Any opening
        # drops it and bumps the token, so a read started before an opening is never used:
        # edits are made to the open case only, and it is saved before the next read starts.
        self._ahead: tuple[str, AnnotationView, dict[str, list[ImageRecord]]] | None = None
        self._ahead_token = 0
        self._reading_ahead = False
        self._choosing: str | None = None  # a case chosen, being read before it opens
        self._build()
        self.activity = ActivityTracker(self, self.session)
        self._resume_timer = QTimer(self)
        self._resume_timer.setSingleShot(True)
        self._resume_timer.setInterval(RESUME_SAVE_MS)
        self._resume_timer.timeout.connect(self.save_resume)
        self._list_timer = QTimer(self)
        self._list_timer.setSingleShot(True)
        self._list_timer.setInterval(400)
        # Edits and submits change the cases they were made in: those rows are updated.
        self._list_changed_cases: set[str] = set()
        self._list_timer.timeout.connect(self._refresh_changed_rows)
        self._connect()
        register_actions(self)
        self.case_list.refresh()
        self._open_first()

    # -- building ---------------------------------------------------------------------------

    def _build(self) -> None:
        s = self.session
        self.case_list = CaseListPanel(
            self.project, self.user, filters=workspace.case_filters(roles(self.context)))
        self.case_text = CaseText()
        self.header = ui.CaseHeader(s)
        self.strip_model = ExamModel(self)
        self.strip = ExamStrip(self.strip_model)
        self.viewer = ImageViewer(self.loader)
        self.viewer_bar = ui.ViewerBar(self.viewer)
        self.board = OrderBoard()
        self.labels_panel = LabelsPanel(s, lambda: self.exam)
        self.metadata = MetadataEditor(s, lambda: self.exam, lambda f: self.images.get(f, []),
                                       self.loader.header)
        self.steps = StepsEditor(s)
        self.rubric = RubricEditor(s)
        self.tabs = QTabWidget()
        self.tabs.addTab(ui.scrolled(self.labels_panel), "Labels")
        self.notes: dict[str, ui.ProblemNote] = {}
        for widget, title in ((self.metadata, "Metadata"), (self.steps, "Steps"),
                              (self.rubric, "Rubric")):
            box, self.notes[title] = ui.with_note(widget)
            self.tabs.addTab(ui.scrolled(box), title)
        left = QSplitter()
        left.setOrientation(ui.VERTICAL)
        left.addWidget(self.case_list)
        left.addWidget(self.case_text)
        left.setSizes([300, 500])
        centre = QWidget()
        column = QVBoxLayout(centre)
        column.setContentsMargins(0, 0, 0, 0)
        column.setSpacing(0)
        column.addWidget(self.header)
        column.addWidget(self.strip)
        order_title = QLabel("  Preferred order: drag exams between stages, or press 1-9, "
                             "T (tie with previous), 0 (unranked)")
        order_title.setObjectName("boardTitle")
        order_title.setWordWrap(True)  # a narrow centre wraps the hint rather than cutting it
        # The viewer and the order board share the height: the user drags the handle, and the
        # board scrolls when its stages are taller than its pane, so nothing is cut on a small
        # screen.
        self.centre_split = QSplitter(ui.VERTICAL)
        self.centre_split.addWidget(ui.stacked(self.viewer_bar, self.viewer))
        self.centre_split.addWidget(ui.stacked(order_title, self.board))
        self.board.setMinimumHeight(ui.BOARD_MIN_HEIGHT)
        self.centre_split.setStretchFactor(0, 1)
        self.centre_split.setChildrenCollapsible(False)
        self.centre_split.setHandleWidth(3)
        self.centre_split.setSizes([500, ui.BOARD_HEIGHT])
        column.addWidget(self.centre_split, 1)
        self.splitter = QSplitter()
        self.splitter.addWidget(left)
        self.splitter.addWidget(centre)
        self.splitter.addWidget(self.tabs)
        self.splitter.setStretchFactor(1, 1)
        self.splitter.setChildrenCollapsible(False)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(self.splitter)
        self.setStyleSheet(theme.css(ui.STYLE))

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.splitter.setSizes(ui.split_sizes(self.width()))

    def _connect(self) -> None:
        s = self.session
        self.case_list.caseChosen.connect(self.choose_case)
        self.case_text.examLinkClicked.connect(self.select_exam)
        self.case_text.editDiagnosis.connect(self.edit_final_diagnosis)
        self.strip.clicked.connect(lambda index: self.select_exam(
            self.strip_model.cards[index.row()].figure))
        self.board.examClicked.connect(self.select_exam)
        self.board.moveRequested.connect(self.move_exam)
        self.labels_panel.acceptExam.connect(self.accept_exam)
        self.labels_panel.acceptAll.connect(self.accept_all)
        s.labelsChanged.connect(self._labels_changed)
        s.stateChanged.connect(lambda _state: self._list_changed())
        s.saved.connect(self.header.show_saved)
        s.failed.connect(self.header.show_error)
        s.stale.connect(self._reopen_stale)
        self.case_list.readFailed.connect(
            lambda why: self.header.show_error(f"the case list could not be updated: {why}"))
        self.viewer.viewChanged.connect(self._resume_timer.start)
        self.loader.thumbnailReady.connect(self._thumbnail_ready)
        self.loader.headerReady.connect(lambda _sha, _values: self.metadata.refresh())
        self.header.submitClicked.connect(self.submit)
        self.header.reopenClicked.connect(self.reopen)

    # -- cases ------------------------------------------------------------------------------

    def _open_first(self) -> None:
        wanted = self.context.case_id or self.resume.get("case_id")
        rows = self.case_list.model.rows
        ids = [r.case_id for r in rows]
        if wanted not in ids:
            todo = [r.case_id for r in rows if r.state != "submitted"]
            wanted = (todo or ids)[0] if (todo or ids) else None
        if wanted:
            self.open_case(str(wanted), resume=self.resume)

    def choose_case(self, case_id: str) -> None:
        """Open the case the annotator picked (in the list, or the previous or next one).

        A case read ahead opens at once; any other is read on a worker first, the current
        case staying on screen meanwhile: read on the GUI thread it blocked it for a frame
        and more (20-40 ms on a team store). A later choice supersedes this one."""
        if self._ahead is not None and self._ahead[0] == case_id:
            self.open_case(case_id)
            return
        self._drop_read_ahead()
        session, token = self.session, self._ahead_token
        self._choosing = case_id

        def read() -> tuple[AnnotationView, dict[str, list[ImageRecord]]]:
            return session.read(case_id)

        def done(found: tuple[AnnotationView, dict[str, list[ImageRecord]]]) -> None:
            if token == self._ahead_token:  # nothing else was chosen or opened meanwhile
                self._choosing = None
                self._ahead = (case_id, *found)
                self.open_case(case_id)

        def failed(exc: BaseException) -> None:  # withdrawn meanwhile, or the store away
            if token == self._ahead_token:
                self._choosing = None
                self.case_list.select(self.session.case_id)
                self.session.report(exc)

        run_in_background(read, done, failed)

    def _drop_read_ahead(self) -> tuple[str, AnnotationView, dict[str, list[ImageRecord]]] | None:
        """Forget the case read ahead (returned); a read still running is not used, nor
        waited for."""
        ahead, self._ahead = self._ahead, None
        self._ahead_token += 1
        self._reading_ahead = False
        return ahead

    def open_case(self, case_id: str, resume: dict[str, Any] | None = None) -> None:
        """Show a case (saving pending text and active time of the previous one); read now
        unless it was read ahead (:meth:`choose_case` reads it on a worker first)."""
        self._choosing = None
        previous = self.session.case_id
        if previous is not None:
            self.viewer_states[self.exam] = self.viewer.state()
            self.activity.flush(previous)
        ahead = self._drop_read_ahead()
        if ahead is None or ahead[0] != case_id:
            ahead = None
        if not self.session.open(case_id, (ahead[1], ahead[2]) if ahead else None):
            return
        self.images = self.session.images  # the view's draft's, read with it
        self.viewer_states = {}
        self.exam = ""
        self.case_list.select(case_id)
        self.strip_model.set_cards([self._card(f) for f in self.session.figures])
        self.strip.fit_cards()
        resume = resume or {}
        figure = resume.get("exam") if resume.get("case_id") == case_id else None
        if figure not in self.session.figures:
            figure = self.session.figures[0] if self.session.figures else ""
        if resume.get("case_id") == case_id and isinstance(resume.get("viewer"), dict):
            self.viewer_states[str(figure)] = dict(resume["viewer"])
        self._opening = True  # the board waits for the next turn (below)
        try:
            self.select_exam(str(figure))
            if not self.exam:  # a case without exams: select_exam refreshed nothing
                self._refresh_exam()
        finally:
            self._opening = False
        self.header.show_case(self.session)
        self._resume_timer.start()
        # The rest follows in later turns of the event loop, one part per turn, so that the
        # GUI thread is never blocked for long: the image (decoding meanwhile), strip and
        # labels come first. ``ready`` is False until the last part is done.
        self._finishing = case_id
        self._finish_parts = [self._painted, self._show_board_and_problems, self._show_text,
                              self._show_drafts]
        QTimer.singleShot(0, lambda: self._finish_open(case_id))

    def _reopen_stale(self, case_id: str) -> None:
        """The case opened from its read-ahead view changed in the store meanwhile: show it
        as stored now (where the annotator was in it is kept)."""
        if self.session.case_id == case_id:
            self.open_case(case_id, resume={"case_id": case_id, "exam": self.exam,
                                            "viewer": self.viewer.state()})
            self.header.show_error(f"{case_id} changed in the store since it was read ahead: "
                                   "shown again as stored")

    def _finish_open(self, case_id: str) -> None:
        """The case's parts not needed for the first frame (board, text, hidden tabs), one
        per turn of the event loop; then the next case's images are prefetched."""
        if (self._finishing != case_id or self.session.case_id != case_id
                or not self._finish_parts):
            return  # another case was opened since (or this one again): its own call does this
        part = self._finish_parts.pop(0)
        if self._finish_parts:
            QTimer.singleShot(0, lambda: self._finish_open(case_id))
        else:
            self._finishing = None  # on screen; the next case's images come after
            self._reading_ahead = True
            QTimer.singleShot(0, lambda: self._prefetch_next(case_id))
            self.session.verify()  # a case read ahead: is it still as the store has it?
        part()

    def _painted(self) -> None:
        """Nothing more in the turn that paints what the switch changed (image, strip,
        labels, header: 4-8 ms of painting), the busiest of a switch."""

    def _show_board_and_problems(self) -> None:
        self._show_board()
        self._show_problems()  # on the tab titles

    def _show_text(self) -> None:
        self.case_text.show_case(self.session.content, self._final_diagnosis(), top=True)

    def _show_drafts(self) -> None:
        """The steps and rubric tabs (one turn: each turn that changes the screen repaints
        it, 8-15 ms here, so small parts share one)."""
        self.steps.rebuild()
        self.steps.refresh()
        self.rubric.refresh()

    def step_case(self, step: int) -> None:
        target = self.case_list.neighbour(self.session.case_id, step)
        if target is not None:
            self.choose_case(target)

    def _prefetch_next(self, case_id: str) -> None:
        self._reading_ahead = False
        if self.session.case_id != case_id:
            return  # the user has moved on: that case's own opening prefetches
        following = self.case_list.neighbour(case_id, 1)
        if following is None:
            return
        session, token = self.session, self._ahead_token

        def read() -> tuple[AnnotationView, dict[str, list[ImageRecord]]]:
            return session.read(following)

        def wanted(found: tuple[AnnotationView, dict[str, list[ImageRecord]]]) -> None:
            view, images = found
            if token == self._ahead_token:  # no case was opened since the read started
                self._ahead = (following, view, images)
                self._reading_ahead = False
                self.steps.prepare(view.content)
            starts = []
            for refs in images.values():
                slices, start = series_of(refs)
                if slices:
                    starts.append((slices[start][0].sha256, slices[start][1]))
                    self.loader.thumbnail(refs[0].sha256)
            self.loader.prefetch(starts)
            self._draw_cards_ahead()

        # A failed read (the case withdrawn meanwhile, the store away) is left to the
        # opening, which reads again and says why.
        def failed(_exc: BaseException) -> None:
            if token == self._ahead_token:
                self._reading_ahead = False

        self._reading_ahead = True
        run_in_background(read, wanted, failed)

    # -- exams ------------------------------------------------------------------------------

    def select_exam(self, figure: str) -> None:
        """Make ``figure`` the current exam: viewer, labels and editors follow."""
        if figure not in self.session.figures:
            return
        if figure == self.exam:
            return
        self.session.flush()  # per-exam text fields belong to the exam being left
        if self.exam:
            self.viewer_states[self.exam] = self.viewer.state()
        self.exam = figure
        row = self.strip_model.row_of(figure)
        self.strip.setCurrentIndex(self.strip_model.index(row, 0))
        refs = self.images.get(figure, [])
        slices, start = series_of(refs)
        card = self.strip_model.cards[row] if row >= 0 else None
        title = f"{figure}   {card and ui.summary(card.meta)}"
        self.viewer.set_series(slices, start, title, self.viewer_states.get(figure, {}))
        self.viewer_bar.refresh()
        self._refresh_exam()
        self._resume_timer.start()

    def step_exam(self, step: int) -> None:
        figures = self.session.figures
        if not figures:
            return
        index = figures.index(self.exam) if self.exam in figures else 0
        self.select_exam(figures[max(0, min(len(figures) - 1, index + step))])

    def _card(self, figure: str) -> ExamCard:
        return self._card_of(self.session.view, self.session.labels, self.images, figure)

    def _card_of(self, view: AnnotationView | None, labels: dict[str, Any],
                 images: dict[str, list[ImageRecord]], figure: str) -> ExamCard:
        """The strip's card of ``figure`` in ``view`` (the open case, or the one read ahead),
        with its thumbnail when the loader has it (asked for otherwise)."""
        refs = images.get(figure, [])
        thumb = self.loader.thumbnail(refs[0].sha256) if refs else None
        return view_card(view, labels, figure, refs, thumb)

    def _thumbnail_ready(self, sha: str, image: Any) -> None:
        for figure, refs in self.images.items():
            if refs and refs[0].sha256 == sha:
                self.strip_model.set_thumbnail(figure, image)
        if self._ahead is not None and any(refs and refs[0].sha256 == sha
                                           for refs in self._ahead[2].values()):
            self._draw_cards_ahead()  # the card with its thumbnail is the one it will show

    def _draw_cards_ahead(self) -> None:
        """The strip's cards of the case read ahead, drawn in idle turns as opening it
        will show them (its first exam selected)."""
        if self._ahead is None:
            return
        _case_id, view, images = self._ahead
        labels = dict(view.labels)
        self.strip.draw_ahead([self._card_of(view, labels, images, f) for f in view.figures], 0)

    # -- labels -----------------------------------------------------------------------------

    def move_exam(self, figure: str, move: Move) -> None:
        """The one operation behind drag and drop and the stage keys."""
        s = self.session
        try:
            edits = order_board.move_edits(s.labels, s.figures, figure, move)
        except Exception as exc:  # ValidationError: say why, change nothing
            self.header.show_error(str(exc))
            return
        if not edits:
            return
        where = {"stage": f"stage {move.stage}", "new_stage": f"a new stage {move.stage}",
                 "unranked": "unranked", "tie_previous": "a tie with the previous exam"}
        s.apply(edits, f"move {figure} to {where[move.kind]}", merge_key="board")

    def accept_exam(self) -> None:
        s = self.session
        keys = workspace.exam_suggestion_keys(self.exam)
        edits = workspace.accept_edits(s.content, s.labels, keys)
        if not edits:
            self.header.show_error(f"{self.exam}: nothing to accept (already labelled, or the "
                                   "draft suggests nothing)")
            return
        s.apply(edits, f"accept the suggestions for {self.exam}")

    def accept_all(self) -> None:
        s = self.session
        edits = workspace.accept_edits(s.content, s.labels)
        if not edits:
            self.header.show_error("nothing to accept: every suggestion is already decided")
            return
        s.apply(edits, f"accept {len(edits)} suggestions of the case")

    def submit(self) -> None:
        """Submit the case; then, unless the user turned it off, open the next open case."""
        if not self.session.submit():
            return
        self._list_changed()
        submitted = self.session.view.case_id if self.session.view else None
        following = self.case_list.next_open(submitted) if submitted else None
        if following is not None and next_after_submit():
            self.open_case(following)

    def show_history(self) -> None:
        """Who changed what and when on the open case (the user's own entries only)."""
        case_id = self.session.case_id
        if case_id is None:
            return
        if self.history is None:
            self.history = HistoryDialog(self)
        self.history.show_case(self.project, self.user, case_id)

    def reopen(self) -> None:
        if self.session.reopen():
            self._list_changed()

    def edit_final_diagnosis(self) -> None:
        """Jump to the Diagnosis reference (it is the final diagnosis: one value, one editor)."""
        self.tabs.setCurrentIndex(3)
        field = self.rubric.fields[draft_fixes.DIAGNOSIS_KEY]
        field.setFocus()

    def _final_diagnosis(self) -> str:
        return draft_fixes.final_diagnosis(self.session.content, self.session.labels)

    def _labels_changed(self, keys: set[str]) -> None:
        for row, card in enumerate(self.strip_model.cards):
            self.strip_model.update_card(row, self._card(card.figure))
        if draft_fixes.DIAGNOSIS_KEY in keys:
            self.case_text.show_case(self.session.content, self._final_diagnosis())
        self._refresh_all()
        if keys != {"active_seconds"}:
            self._list_changed()

    def _list_changed(self) -> None:
        if self.session.case_id is not None:
            self._list_changed_cases.add(self.session.case_id)
        self._list_timer.start()

    def _refresh_changed_rows(self) -> None:
        changed, self._list_changed_cases = self._list_changed_cases, set()
        self.case_list.refresh_cases(changed)

    def _refresh_exam(self) -> None:
        self.labels_panel.refresh(self.activity.pending())
        self.metadata.refresh()
        if not self._opening:
            self._show_board()

    def _refresh_all(self) -> None:
        self._refresh_exam()
        self.steps.refresh()
        self.rubric.refresh()
        self.header.show_case(self.session)
        self._show_problems()

    def _show_problems(self) -> None:
        """The draft's needs_fix problems, re-checked with this annotator's fixes."""
        s = self.session
        had = s.view.problems if s.view is not None else []
        found = draft_fixes.remaining_problems(s.content, s.labels) if had else []
        for index, (title, prefixes) in enumerate(ui.PROBLEM_PARTS.items(), start=1):
            mine = [p for p in found if p["field"].startswith(prefixes)]
            before = [p for p in had if str(p.get("field", "")).startswith(prefixes)]
            self.notes[title].show_problems(mine, before)
            text = f"{title} ⚠{len(mine)}" if mine else title
            if self.tabs.tabText(index) != text:  # a new title lays out and repaints the tabs
                self.tabs.setTabText(index, text)

    def board_state(self) -> order_board.Board:
        """The core's board for the annotator's current labels."""
        s = self.session
        return order_board.board(s.labels, s.figures, s.view.suggestions if s.view else {})

    def _show_board(self) -> None:
        b = self.board_state()
        short = {c.figure: f"{c.figure} · {ui.short_meta(c.meta)}" for c in self.strip_model.cards}
        self.board.show_board(b, self.exam, short)

    # -- resume and shutdown ----------------------------------------------------------------

    def save_resume(self) -> None:
        if self.session.case_id is None:
            return
        state = {"case_id": self.session.case_id, "exam": self.exam,
                 "viewer": self.viewer.state()}
        if state != self.resume:
            workspace_state.save_resume(self.project, self.user, state)
            self.resume = state

    def ready(self) -> bool:
        """True when the case and its image are on screen (screenshots wait for this)."""
        if self._finishing is not None or self._choosing is not None:
            return False
        return self.session.view is None or (self.viewer.ready() and not self.loader.busy())

    def settled(self) -> bool:
        """True when the case is on screen, the next one has been read ahead and the step
        fields and strip cards it needs are made (what the page does between a physician's
        switches, which come seconds apart)."""
        return (self.ready() and self._finishing is None and not self._reading_ahead
                and not self.steps.preparing() and not self.strip.drawing_ahead())

    def shutdown(self) -> None:
        """Save everything pending (typed text, active time, where the annotator is)."""
        self.session.flush()
        if self.session.case_id is not None:
            self.activity.flush(self.session.case_id)
        self.session.join_time()
        self.save_resume()
