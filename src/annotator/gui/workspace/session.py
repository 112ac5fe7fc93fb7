"""The open case of one annotator: its labels, its undo stack, and every store write.

Widgets never write to the store themselves: they call :meth:`CaseSession.apply` with label
edits built by the core (``draft_fixes``, ``order_board``), which pushes an
a ``SetCommand`` (``gui/undo.py``) onto the case's own undo stack. One stack per case lives in a
QUndoGroup, so undo history survives switching cases and coming back.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import Future, wait
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtGui import QUndoGroup, QUndoStack

from annotator.domain import labels as L
from annotator.errors import AnnotatorError, ConflictError, StoreUnavailable
from annotator.gui.undo import SetCommand
from annotator.gui.workers import run_in_background
from annotator.gui.workspace.undo import MERGE_WINDOW_SECONDS, collapse, same_values
from annotator.services import annotating, workspace_state
from annotator.services.annotating import AnnotationView
from annotator.services.rating import SetResult
from annotator.services.review.kind import CASES  # not services.kinds: judge, SME, stats
from annotator.store.image_record import ImageRecord
from annotator.store.project import Project

CaseImages = dict[str, list[ImageRecord]]  # figure -> the exam's images, in order


class CaseSession(QObject):
    """Holds the current case and funnels edits through undo commands into the store."""

    caseOpened = Signal(str)
    """The annotator opened a case (its id); the labels and content are fresh."""
    labelsChanged = Signal(object)
    """Labels of the current case changed (the set of changed keys)."""
    saved = Signal(str)
    """One edit was committed to the store (a short description of it)."""
    failed = Signal(str)
    """An operation was refused (a readable reason; nothing was changed)."""
    stateChanged = Signal(str)
    """The annotation's state changed (assigned / in_progress / submitted)."""
    stale = Signal(str)
    """The case opened from a view read ahead changed in the store meanwhile (its id): the
    page opens it again, read anew."""

    def __init__(self, project: Project, user: str, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.user = user
        self.undo_group = QUndoGroup(self)
        self._stacks: dict[str, QUndoStack] = {}
        self.view: AnnotationView | None = None
        self.images: CaseImages = {}  # the open case's exams' images (of the view's draft)
        self.labels: dict[str, Any] = {}
        self.state = ""
        # The annotation version each case's screen shows: an edit is written against it, so
        # a save from another window or machine in between is refused, never overwritten.
        self.versions: dict[str, int] = {}
        self.writes = 0  # store writes made by this session (kept modest by debouncing)
        # Edits made while the store was unreachable, in order: (case id, edits, undo text).
        self.pending: list[tuple[str, list[L.LabelEdit], str]] = []
        self.retry_timer = QTimer(self)
        self.retry_timer.setInterval(5000)
        self.retry_timer.timeout.connect(self.retry_pending)
        self._flushers: list[Callable[[], None]] = []
        # The case opened from a view read ahead whose stamp is still being checked on a
        # worker thread (None: the open case's view is known current).
        self._unverified: str | None = None
        # Time writes still running or not yet taken in, by case (add_active_time).
        self._time_writes: dict[str, list[Future[SetResult | None]]] = {}

    # -- pending text ---------------------------------------------------------------------

    def add_flusher(self, flush: Callable[[], None]) -> None:
        """Register a function that saves pending typed text (called before leaving)."""
        self._flushers.append(flush)

    def remove_flusher(self, flush: Callable[[], None]) -> None:
        if flush in self._flushers:
            self._flushers.remove(flush)

    def flush(self) -> None:
        """Save every pending text edit now (before switching case, undo, submit, close)."""
        for flush in list(self._flushers):
            flush()

    # -- the current case ------------------------------------------------------------------

    @property
    def case_id(self) -> str | None:
        return self.view.case_id if self.view is not None else None

    @property
    def content(self) -> dict[str, Any]:
        return self.view.content if self.view is not None else {}

    @property
    def figures(self) -> list[str]:
        return self.view.figures if self.view is not None else []

    @property
    def editable(self) -> bool:
        return self.view is not None and self.state != "submitted" and (
            self.view.case_state != "excluded"
        )

    def stack(self, case_id: str) -> QUndoStack:
        """The undo stack of a case (created on first use, kept while the app runs)."""
        if case_id not in self._stacks:
            stack = QUndoStack(self.undo_group)
            self._stacks[case_id] = stack
        return self._stacks[case_id]

    def read(self, case_id: str) -> tuple[AnnotationView, CaseImages]:
        """The annotator's view of a case and its exams' images, read from the store in one
        transaction; touches no widget, so a worker thread may call it (the page reads the
        next case ahead this way). The case's time writes still running are waited for."""
        self._time_settled(case_id)
        return annotating.view_with_images(self.project, self.user, case_id)

    def open(self, case_id: str, ahead: tuple[AnnotationView, CaseImages] | None = None
             ) -> bool:
        """Open a case (saving pending text of the previous one first): the view and images
        read ahead (:meth:`read`) at once, their stamp to be checked (:meth:`verify`), else
        both read now."""
        self.flush()
        self._unverified = None
        if ahead is not None and ahead[0].case_id == case_id:
            view, images = ahead
            self._unverified = case_id
        else:
            try:
                view, images = self.read(case_id)
            except AnnotatorError as exc:
                self.report(exc)
                return False
        self.view, self.images = view, images
        self.labels = dict(view.labels)
        self.state = view.state
        self.versions[case_id] = view.version
        self.undo_group.setActiveStack(self.stack(case_id))
        self.caseOpened.emit(case_id)
        return True

    def verify(self) -> None:
        """Compare the open case, read ahead, with the store's stamp (one small read) off the
        GUI thread; a changed stamp emits :attr:`stale`. Until the answer, an edit checks the
        stamp itself first (:meth:`_verified`). The page asks once the case is on screen: a
        worker's query during the switch's repaint lengthened its turns on a team store."""
        view = self.view
        if view is None or self._unverified != view.case_id:
            return  # read now, not ahead; or checked already
        project, user, case_id = self.project, self.user, view.case_id

        def answered(stamp: tuple[Any, ...]) -> None:
            if self._unverified == case_id and self.case_id == case_id:
                self._unverified = None
                if stamp != view.stamp:
                    self.stale.emit(case_id)

        def failed(exc: BaseException) -> None:  # withdrawn meanwhile, or the store away
            if self._unverified == case_id and self.case_id == case_id:
                self._unverified = None
                self.report(exc)

        run_in_background(lambda: annotating.view_stamp(project, user, case_id),
                          answered, failed)

    def _verified(self, case_id: str) -> bool:
        """False when ``case_id`` is the open case read ahead and its stamp, checked now,
        shows the store changed it (:attr:`stale` is emitted: it is opened again)."""
        if self._unverified != case_id or self.view is None:
            return True
        self._unverified = None
        if annotating.view_stamp(self.project, self.user, case_id) == self.view.stamp:
            return True
        # In a later turn: this runs inside an undo command, which the page must not rebuild.
        QTimer.singleShot(0, lambda: self.stale.emit(case_id))
        return False

    # -- edits -----------------------------------------------------------------------------

    def apply(self, edits: list[L.LabelEdit], text: str, merge_key: str | None = None) -> bool:
        """Apply edits to the current case as one undo step; False when refused."""
        if self.view is None or not edits:
            return False
        if not self.editable:
            why = "the annotation is submitted; reopen it to change it"
            if self.view.case_state == "excluded":
                why = "the case is excluded"
            self.failed.emit(f"{self.view.case_id}: {why}")
            return False
        before, kept = self.writes, len(self.pending)
        case_id = self.view.case_id

        def write(edits: list[L.LabelEdit], text: str) -> list[L.LabelEdit]:
            return self.store(case_id, edits, text).inverse

        self.stack(case_id).push(
            SetCommand(
                text, write, list(edits), self.report,
                merge_key=(case_id, merge_key) if merge_key else None,
                merge_window=MERGE_WINDOW_SECONDS, combine=collapse, same=same_values,
            )
        )
        return self.writes > before or len(self.pending) > kept

    def store(self, case_id: str, edits: list[L.LabelEdit], text: str) -> SetResult:
        """Write edits to the store (called by undo commands); updates the open case.

        When the store cannot be reached (a team store's server went away) the edits are kept
        here, shown as made, and written in order by :meth:`retry_pending` (every few seconds
        and before the next edit), so nothing the physician did is lost or hidden.
        """
        if self.pending:
            self.retry_pending()
        if self.pending:
            return self._keep_pending(case_id, edits, text, None)
        self._time_written(case_id)  # the version the edit expects includes its time
        if not self._verified(case_id):
            raise ConflictError(f"{case_id} changed in the store since it was read: it is"
                                " shown again as stored; make the change again")
        try:
            result = CASES.set_fields(self.project, self.user, case_id, edits,
                                             expected_version=self.versions.get(case_id))
        except StoreUnavailable as exc:
            return self._keep_pending(case_id, edits, text, exc)
        except ConflictError:
            self._show_latest(case_id)
            raise
        self.versions[case_id] = result.version
        self.writes += 1
        if case_id == self.case_id:
            self.labels, _ = L.apply_edits(self.labels, edits)
            if result.state != self.state:
                self.state = result.state
                self.stateChanged.emit(self.state)
            self.labelsChanged.emit({e.key for e in edits})
        self.saved.emit(text)
        return result

    def _show_latest(self, case_id: str) -> None:
        """After a refused stale edit: show what the store holds now, and its version."""
        try:
            fresh = annotating.view(self.project, self.user, case_id)
        except AnnotatorError:
            self.versions.pop(case_id, None)
            return
        self.versions[case_id] = fresh.version
        if case_id == self.case_id:
            self.view = fresh
            self.labels = dict(fresh.labels)
            if fresh.state != self.state:
                self.state = fresh.state
                self.stateChanged.emit(self.state)
            self.labelsChanged.emit(set(self.labels))

    def _keep_pending(self, case_id: str, edits: list[L.LabelEdit], text: str,
                      exc: StoreUnavailable | None) -> SetResult:
        base = self.labels if case_id == self.case_id else {}
        _, inverse = L.apply_edits(base, edits)
        self.pending.append((case_id, list(edits), text))
        if case_id == self.case_id:
            self.labels, _ = L.apply_edits(self.labels, edits)
            self.labelsChanged.emit({e.key for e in edits})
        why = str(exc) if exc is not None else "the project store is still unreachable"
        self.failed.emit(f"{why}: {len(self.pending)} change(s) kept on this screen, saved as"
                         " soon as the store answers")
        self.retry_timer.start()
        return SetResult(-1, [e.key for e in edits], inverse, self.state)

    def retry_pending(self) -> bool:
        """Write the kept edits in order; True when none are left."""
        while self.pending:
            case_id, edits, text = self.pending[0]
            try:
                result = CASES.set_fields(self.project, self.user, case_id, edits)
                self.versions[case_id] = result.version
            except StoreUnavailable:
                return False
            except AnnotatorError as exc:  # refused on its merits now: say so, drop it
                self.report(exc)
            self.pending.pop(0)
            self.writes += 1
            self.saved.emit(text)
        self.retry_timer.stop()
        return True

    def add_active_time(self, case_id: str, seconds: float) -> None:
        """Store measured active time (outside the undo stack: time cannot be undone).

        Written on a worker: on a team store the write took 6-18 ms, at every case switch
        and once a minute. Until it is answered, what would race it waits for it first: an
        edit or submission of that case (:meth:`_time_written`, so the edit carries the
        version the write made), a read of it, and closing (:meth:`join_time`)."""
        if case_id == self.case_id and not self.editable:
            return  # submitted or excluded: the store keeps no time for it, so ask nothing
        project, user = self.project, self.user
        written: Future[SetResult | None] = Future()
        earlier = list(self._time_writes.get(case_id, []))

        def write() -> None:
            wait(earlier)  # in the order made: each answer has the newer total
            try:
                written.set_result(workspace_state.add_active_time(project, user, case_id,
                                                                   seconds))
            except BaseException as exc:
                written.set_exception(exc)

        self._time_writes.setdefault(case_id, []).append(written)
        run_in_background(write, lambda _none: self._time_written(case_id, wait=False),
                          lambda _exc: self._time_written(case_id, wait=False))

    def _time_written(self, case_id: str, *, wait: bool = True) -> None:
        """Take in the answers of ``case_id``'s time writes in the order they were made:
        all of them, waiting for those still running (short: each is one small
        transaction), or without ``wait`` those answered before the first still running."""
        writes = self._time_writes.get(case_id, [])
        while writes and (wait or writes[0].done()):
            written = writes.pop(0)
            try:
                result = written.result()
            except AnnotatorError as exc:
                self.report(exc)
                continue
            if result is not None:
                self._took_time(case_id, result)
        if not writes:
            self._time_writes.pop(case_id, None)

    def _took_time(self, case_id: str, result: SetResult) -> None:
        if case_id != self.case_id:
            self.versions.pop(case_id, None)  # reread when the case is opened again
            return
        self.writes += 1
        # The store's answer says all (nothing read again: a read on a team store is a dozen
        # round trips).
        self.versions[case_id] = max(result.version, self.versions.get(case_id, 0))
        self.labels["active_seconds"] = result.after.get("active_seconds", 0)
        if result.state != self.state:
            self.state = result.state
            self.stateChanged.emit(self.state)
        self.labelsChanged.emit({"active_seconds"})

    def join_time(self) -> None:
        """Wait for every time write still running (the window closes)."""
        for case_id in list(self._time_writes):
            self._time_written(case_id)

    def _time_settled(self, case_id: str) -> None:
        """On a worker: wait until the time writes of ``case_id`` made so far are committed
        (a read of the case then sees them; a failure is said on the GUI thread)."""
        wait(list(self._time_writes.get(case_id, [])))

    def report(self, exc: BaseException) -> None:
        self.failed.emit(str(exc))

    # -- submit and reopen -----------------------------------------------------------------

    def missing(self) -> list[str]:
        """What must still be labelled before submitting (empty = ready)."""
        if not self.labels:
            return ["nothing has been labelled yet"]
        return L.missing_for_submit(self.labels, self.figures)

    def submit(self) -> bool:
        """Submit the current case; on refusal ``failed`` says what is missing."""
        if self.view is None:
            return False
        self.flush()
        self._time_written(self.view.case_id)  # time written after submitting is dropped
        try:
            CASES.submit(self.project, self.user, self.view.case_id)
        except AnnotatorError as exc:
            self.report(exc)
            return False
        # Submitted work is changed only after reopening: the old steps would be refused.
        self.stack(self.view.case_id).clear()
        return self._reload("submitted")

    def reopen(self) -> bool:
        """Reopen the submitted current case (refused after the first adjudication)."""
        if self.view is None:
            return False
        try:
            annotating.reopen(self.project, self.user, self.view.case_id)
        except AnnotatorError as exc:
            self.report(exc)
            return False
        return self._reload("reopened")

    def _reload(self, what: str) -> bool:
        assert self.view is not None
        self.view = annotating.view(self.project, self.user, self.view.case_id)
        self.versions[self.view.case_id] = self.view.version
        self.labels = dict(self.view.labels)
        self.state = self.view.state
        self.stateChanged.emit(self.state)
        self.labelsChanged.emit(set(self.labels))
        self.saved.emit(f"{self.view.case_id} {what}")
        return True
