"""The meta-review page: queue, conflicting items side by side, the case at hand.

The page only composes widgets and calls the review services; every decision goes through
``actions.decide_value`` (a letter) or ``decisions.decide`` (an edited value), the same
paths the command line uses. Images are rendered on the thread pool.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QSplitter, QVBoxLayout, QWidget

from annotator.domain.labels import REASON_CODES, split_key
from annotator.domain.permissions import Action
from annotator.errors import AnnotatorError
from annotator.gui import theme
from annotator.gui.adjudication.case_panel import CasePanel
from annotator.gui.adjudication.decision_panel import DecisionPanel, ItemsTable
from annotator.gui.adjudication.edit_dialog import edit_dialog
from annotator.gui.adjudication.editors import ChoiceDialog, ReasonDialog
from annotator.gui.adjudication.format import banner_html
from annotator.gui.adjudication.page_actions import register_actions
from annotator.gui.adjudication.queue_panel import QueuePanel
from annotator.gui.context import GuiContext
from annotator.gui.history_dialog import HistoryDialog
from annotator.gui.layout import column_widget
from annotator.gui.permits import guard
from annotator.gui.workers import run_in_background
from annotator.services.kinds import waiting_elsewhere
from annotator.services.review import actions, decisions, queue, reopen
from annotator.services.review.view import CaseDetail, case_detail, case_images

PREVIEW_SIZE = 480
QUEUE_PAGE = 50  # queue rows read at a time, about two screens (more as the list scrolls)


def _first_pages(project: Any, user: str, keep: str | None) -> queue.QueuePage:
    """Worker: the queue's first page, and the pages down to ``keep`` if it is further."""
    page = queue.case_queue_page(project, user, limit=QUEUE_PAGE)
    entries = list(page.entries)
    while keep is not None and page.after is not None and all(
        e.case_id != keep for e in entries
    ):
        page = queue.case_queue_page(project, user, after=page.after, limit=QUEUE_PAGE)
        entries += page.entries
    return replace(page, entries=entries)


def _render(project: Any, case_id: str) -> tuple[str, list[tuple[str, bytes]]]:
    """Worker: the first image of every exam as a PNG thumbnail."""
    from annotator.imaging.thumbnails import render_thumbnail

    out: list[tuple[str, bytes]] = []
    seen: set[str] = set()
    for image in case_images(project, case_id):
        if image.figure in seen:
            continue
        seen.add(image.figure)
        try:
            out.append((image.figure, render_thumbnail(image.data, PREVIEW_SIZE)))
        except Exception:  # an unreadable image shows as missing; release checks report it
            continue
    return case_id, out


class ReviewPage(QWidget):
    """The adjudicator's page (``context.user`` acts)."""

    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        assert context.project is not None
        self.context = context
        self.project = context.project
        self.user = context.user
        self.detail: CaseDetail | None = None
        self.history: HistoryDialog | None = None
        self.dialog: Any = None  # the open edit dialog, if any
        self.queue = QueuePanel(self.user)
        self.header = QLabel("")
        self.header.setTextFormat(Qt.TextFormat.RichText)
        self.header.setWordWrap(True)
        self.banner = QLabel("")
        self.banner.setObjectName("green-status")
        self.banner.setWordWrap(True)
        self.banner.setTextFormat(Qt.TextFormat.RichText)
        self.table = ItemsTable()
        self.panel = DecisionPanel()
        self.message = QLabel("")
        self.message.setWordWrap(True)
        hint = QLabel(
            "A/B/C pick a reviewer · E edit · 1-9 reason · T text · Enter confirm · "
            "R reopen · J/K item · N/P case · G green light · X exclude"
        )
        hint.setWordWrap(True)
        hint.setStyleSheet(theme.css("color: $text_dim"))
        middle = column_widget(self.header, self.banner, (self.table, 1), self.panel,
                               self.message, hint, margin=6)
        self.case_panel = CasePanel()
        split = QSplitter(Qt.Orientation.Horizontal)
        split.addWidget(self.queue)
        split.addWidget(middle)
        split.addWidget(self.case_panel)
        split.setStretchFactor(0, 0)
        split.setStretchFactor(1, 3)
        split.setStretchFactor(2, 2)
        split.setSizes([250, 720, 430])
        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        outer.addWidget(split)
        self.queue.case_chosen.connect(lambda case_id: self.load_case(case_id))
        self.queue.more_wanted.connect(self._more)
        self.table.item_chosen.connect(self._item_changed)
        self.panel.confirm.clicked.connect(self.confirm)
        self.panel.text.returnPressed.connect(self.confirm)
        self._register_actions()
        # A curator reads the conflicts here; deciding them is the adjudicator's (the core's
        # table): the decision panel says so instead of refusing a typed reason.
        guard(context, Action.ADJUDICATE_CASES, self.panel)
        self.refresh(keep=context.case_id)

    # --- loading -----------------------------------------------------------------------

    def refresh(self, keep: str | None = None, keep_key: str | None = None) -> None:
        """Reload the queue (and the current case), keeping the current case and item.

        The queue is read on a worker thread (hundreds of cases take a while); the page
        stays usable and fills in when it arrives (``ready()`` is False meanwhile).
        """
        keep = keep or self.queue.current()
        self._queue_loads = getattr(self, "_queue_loads", 0) + 1
        ticket = self._queue_loads
        if self.detail is None:
            self.header.setText("<h3>Loading the review queue...</h3>")
        project, user = self.project, self.user

        def loaded(found: Any) -> None:
            if ticket == self._queue_loads:  # a newer reload supersedes this one
                self._queue_loads_done = ticket
                entries, others = found
                self.queue.set_elsewhere(others)
                self._show_queue(entries, keep, keep_key)

        def failed(exc: BaseException) -> None:
            if ticket == self._queue_loads:
                self._queue_loads_done = ticket
                self.header.setText(f"<h3>The review queue could not be read</h3><p>{exc}</p>")

        def read() -> Any:
            return _first_pages(project, user, keep), waiting_elsewhere(project, user)

        run_in_background(read, loaded, failed)

    def _more(self, after: Any) -> None:
        """The queue's next page, read on a worker (the list asked: it scrolled to the end)."""
        project, user, ticket = self.project, self.user, self._queue_loads

        def loaded(page: queue.QueuePage) -> None:
            if ticket == self._queue_loads:  # not from a queue a reload has replaced
                self.queue.add_page(page)

        def failed(exc: BaseException) -> None:
            self.say(f"The rest of the queue could not be read: {exc}", error=True)

        run_in_background(
            lambda: queue.case_queue_page(project, user, after=after, limit=QUEUE_PAGE),
            loaded, failed)

    def _show_queue(self, entries: Any, keep: str | None, keep_key: str | None) -> None:
        self.queue.set_pages(entries, keep)
        current = self.queue.current()
        if current is None:
            self.detail = None
            self.header.setText("<h3>Nothing to review</h3>")
            self.banner.setText("Cases appear here when all their annotations are submitted.")
            self.table.set_items([], [], None)
            self.panel.show_item(None, [], "")
            return
        self.load_case(current, keep_key)

    def load_case(self, case_id: str, keep_key: str | None = None) -> None:
        detail = case_detail(self.project, case_id, viewer=self.user)
        same_case = self.detail is not None and self.detail.case_id == case_id
        self.detail = detail
        self.panel.set_codes(detail.reason_codes)
        state = detail.state.replace("_", " ")
        who = f" · adjudicator: {detail.adjudicator}" if detail.adjudicator else ""
        self.header.setText(
            f"<h3 style='margin:0'>{detail.case_id} · {detail.title}</h3>"
            f"<span>{state}{who} · reviewers {', '.join(detail.letters) or '—'}</span>"
        )
        self.banner.setText(banner_html(detail))
        first_open = next((i.key for i in detail.items if i.state == "open"), None)
        self.table.set_items(detail.items, detail.letters, keep_key or first_open)
        self._item_changed()
        if not same_case:
            self.case_panel.show_case(detail)
            self._images_pending = True
            run_in_background(
                lambda: _render(self.project, case_id), self._images_ready, self._images_failed
            )

    def _images_ready(self, result: tuple[str, list[tuple[str, bytes]]]) -> None:
        case_id, images = result
        if self.detail is not None and self.detail.case_id == case_id:
            self.case_panel.set_images(images)
            self._images_pending = False

    def _images_failed(self, exc: BaseException) -> None:
        self._images_pending = False
        self.case_panel.preview.setText(f"Images could not be shown: {exc}")

    def ready(self) -> bool:
        """True once the queue is loaded and the current case's images are on screen."""
        loading = getattr(self, "_queue_loads", 0) != getattr(self, "_queue_loads_done", 0)
        return not loading and not getattr(self, "_images_pending", False)

    def _item_changed(self, _key: str = "") -> None:
        item = self.table.current()
        letters = self.detail.letters if self.detail else []
        block = self.detail.viewer_block if self.detail else None
        if self.detail is not None and self.detail.state == "excluded":
            block = block or "The case is excluded; reinstate it from the command line."
        self.panel.show_item(item, letters, block)
        if item is not None:
            family, rest = split_key(item.key)
            figure = rest.rpartition("/")[0] if family == "meta" else rest
            if self.detail is not None and figure in self.detail.figures:
                self.case_panel.focus_figure(figure)

    # --- acting ------------------------------------------------------------------------

    def _act(self, what: Callable[[], Any], done: str) -> bool:
        """Run a service call; show its refusal as a message, never a traceback."""
        try:
            what()
        except AnnotatorError as exc:
            self.say(str(exc), error=True)
            return False
        self.say(done)
        return True

    def say(self, text: str, error: bool = False) -> None:
        colour = theme.colour("open" if error else "decided")
        self.message.setText(f"<span style='color:{colour}'>{text}</span>")

    def pick(self, letter: str) -> None:
        if not self.panel.pick(letter):
            self.say(f"No Reviewer {letter} value to take here.", error=True)

    def edit(self) -> None:
        item, detail = self.table.current(), self.detail
        if item is None or detail is None or not self.panel.confirm.isEnabled():
            return
        start = self.panel.pending if self.panel.source else item.final
        dialog, read = edit_dialog(item, detail, start, self)

        def accepted() -> None:
            self.panel.set_edited(read(), detail.letters)

        self._open(dialog, accepted)

    def _open(self, dialog: Any, accepted: Callable[[], None]) -> None:
        """Show a window-modal dialog without a nested event loop; run ``accepted`` on OK."""
        self.dialog = dialog
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.accepted.connect(accepted)
        dialog.finished.connect(lambda _code: self._closed(dialog))
        dialog.open()
        dialog.activateWindow()

    def _closed(self, dialog: Any) -> None:
        if self.dialog is dialog:
            self.dialog = None
            # Back to the items, so the next key (a reason digit, Enter) acts on the page.
            self.activateWindow()
            self.table.setFocus()

    def confirm(self) -> None:
        ready, item, detail = self.panel.ready(), self.table.current(), self.detail
        if ready is None or item is None or detail is None:
            if item is not None and self.panel.confirm.isEnabled():
                self.panel.refresh_status()
            return
        value, code, text = ready
        source = self.panel.source or ""

        def run() -> None:
            if source in item.values:  # a letter: the same path as review --decide
                actions.decide_value(
                    self.project, self.user or "", detail.case_id, item.key, source, code, text
                )
            else:
                decisions.decide(
                    self.project, self.user or "", detail.case_id, item.key, value, code, text
                )

        if self._act(run, f"Decided {item.label} ({code})."):
            self._after_change(detail.case_id)

    def _after_change(self, case_id: str, keep_key: str | None = None) -> None:
        # One case changed: update its row and reload it, not the whole queue (fast with
        # hundreds of cases); F5 reloads and re-sorts everything.
        self.queue.update_entry(queue.case_entry(self.project, self.user, case_id))
        self.load_case(case_id, keep_key)

    def reopen(self) -> None:
        item, detail = self.table.current(), self.detail
        if item is None or detail is None or item.decision is None:
            self.say("Only a decided item can be reopened.", error=True)
            return
        dialog = ReasonDialog("Reopen the decision", f"Why reopen {item.label}?", self)

        def accepted() -> None:
            if self._act(
                lambda: reopen.reopen_decision(
                    self.project, self.user or "", detail.case_id, item.key, dialog.value
                ),
                f"Reopened {item.label}.",
            ):
                self._after_change(detail.case_id, item.key)

        self._open(dialog, accepted)

    def green_light(self) -> None:
        detail = self.detail
        if detail is None:
            return
        if self._act(
            lambda: decisions.green_light(self.project, self.user or "", detail.case_id),
            f"{detail.case_id} is green-lit.",
        ):
            self._after_change(detail.case_id)

    def show_history(self) -> None:
        """Who changed what and when on the case shown (every reviewer's entries)."""
        if self.detail is None:
            return
        if self.history is None:
            self.history = HistoryDialog(self)
        self.history.show_case(self.project, self.user, self.detail.case_id)

    def exclude(self) -> None:
        detail = self.detail
        if detail is None:
            return
        dialog = ReasonDialog(
            "Exclude the case", f"Why is {detail.case_id} irresolvable? (kept out of the "
            "release and listed in the card's exclusions)", self,
        )  # fmt: skip

        def accepted() -> None:
            if self._act(
                lambda: decisions.exclude(
                    self.project, self.user or "", detail.case_id, dialog.value
                ),
                f"{detail.case_id} is excluded.",
            ):
                self._after_change(detail.case_id)

        self._open(dialog, accepted)

    def bulk_green(self) -> None:
        outcome = actions.green_light_unanimous(self.project, self.user or "")
        self.say(f"{len(outcome.done)} unanimous case(s) green-lit.")
        self.refresh()

    def bulk_optional(self) -> None:
        codes = self.detail.reason_codes if self.detail else REASON_CODES
        value = ChoiceDialog(
            "Every open optional vs unnecessary conflict becomes",
            [("optional", "optional"), ("unnecessary", "unnecessary")], "optional", self,
        )  # fmt: skip

        def run(code: str) -> None:
            outcome = actions.bulk_decide(self.project, self.user or "", value.value, code)
            self.say(f"{len(outcome.done)} conflict(s) decided as {value.value}.")
            self.refresh()

        def ask_reason() -> None:
            options = [(c.replace("_", " "), c) for c in codes]
            reason = ChoiceDialog("Reason for all of them", options, None, self)
            self._open(reason, lambda: run(reason.value))

        self._open(value, ask_reason)

    def _register_actions(self) -> None:
        register_actions(self)
