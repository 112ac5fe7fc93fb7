"""The "Send my work" action: the annotator's package, from their offline project.

The action's text says how many of the annotator's changes are in no package yet ("Send my
work (12 changes)"). The count is one cheap query, refreshed after every save of the
annotate page and every few seconds (active time and other writers). The package is
written off the GUI thread to the file the annotator chose.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal
from PySide6.QtWidgets import QToolButton, QWidget

from annotator.gui.roundtrip import choosers
from annotator.gui.roundtrip.host import RoundTripOwner
from annotator.gui.roundtrip.keymap import SEND_WORK
from annotator.gui.workers import run_in_background

COUNT_REFRESH_MS = 4000
SEND_STYLE = ("QToolButton { background: $send; color: $on_send; border-radius: 3px; "
              "padding: 3px 10px; font-weight: bold; } "
              "QToolButton:disabled { background: $send_disabled; }")


def send_text(changes: int) -> str:
    """``Send my work (12 changes)``."""
    return f"Send my work ({changes} change{'' if changes == 1 else 's'})"


class SendMyWork(QObject):
    """The "Send my work" action of one window: its count, its button, the package."""

    sent = Signal(str)
    """A package was written (its path)."""
    failed = Signal(str)
    """No package was written (the reason shown)."""

    def __init__(self, owner: RoundTripOwner) -> None:
        super().__init__(owner)  # type: ignore[arg-type]  # the controller is a QObject
        self.owner = owner
        self.action = owner.actions[SEND_WORK]
        self.offline = False
        self.busy = False
        self.pending = 0  # the annotator's changes in no package yet
        self.button = QToolButton()
        self.button.setObjectName("sendMyWork")
        self.button.setDefaultAction(self.action)
        self.timer = QTimer(self)
        self.timer.setInterval(COUNT_REFRESH_MS)
        self.timer.timeout.connect(self.refresh_count)

    def set_offline(self, offline: bool) -> None:
        """Show the action only in an annotator's offline project."""
        self.offline = offline
        self.action.setVisible(offline)
        self.button.setVisible(offline)
        if offline:
            self.timer.start()
        else:
            self.timer.stop()
        self.refresh_count()

    def page_built(self, page: QWidget) -> None:
        """Follow the saves of a page that edits (the annotate page's session)."""
        saved = getattr(getattr(page, "session", None), "saved", None)
        if saved is not None:
            saved.connect(lambda _text: self.refresh_count())

    def refresh_count(self) -> None:
        """Show how many changes are in no package yet."""
        project = self.owner.window.context.project
        if not self.offline or project is None:
            self.action.setEnabled(False)
            return
        from annotator.services.sync.package import unpackaged_changes

        try:
            self.pending = unpackaged_changes(project)
        except Exception:  # noqa: BLE001 - a busy store: keep the last count, try again soon
            return
        self.action.setText(send_text(self.pending))
        self.action.setToolTip(f"Write a package of your work for the curator: {self.pending} "
                               "change(s) are in no package yet")
        self.action.setEnabled(not self.busy)

    def choose_and_send(self) -> None:
        """Ask where the package goes, then write it."""
        from annotator.sync.offline import offline_info

        project = self.owner.window.context.project
        info = offline_info(project) if project is not None else None
        if info is None:
            return
        suggested = Path.home() / choosers.suggested_name(info.annotator, choosers.PACKAGE_SUFFIX)
        path = choosers.save_file(self.owner.window, "Send my work: save the package",
                                  suggested, choosers.PACKAGE_FILTER)
        if path is not None:
            self.send_to(path)

    def send_to(self, path: Path) -> None:
        """Write the package off the GUI thread (typed text is saved first)."""
        from annotator.services.sync.package import make_package

        window = self.owner.window
        project = window.context.project
        if self.busy or project is None or not self.offline:
            return
        for page in window.pages:
            flush = getattr(getattr(page, "session", None), "flush", None)
            if callable(flush):
                flush()
        self._set_busy(True)
        self.owner.say("Writing your package...")

        def done(result: Any) -> None:
            self._set_busy(False)
            self.refresh_count()
            self.owner.say(f"Package {result.sequence} written to {result.path}: "
                           f"{len(result.case_ids)} case(s), {result.changes} new change(s). "
                           "Give this file to your curator.")
            self.sent.emit(str(result.path))

        def fail(exc: BaseException) -> None:
            self._set_busy(False)
            text = f"Your work was not packaged: {exc}"
            self.owner.say(text, error=True)
            self.failed.emit(text)

        run_in_background(lambda: make_package(project, Path(path)), done, fail)

    def _set_busy(self, busy: bool) -> None:
        self.busy = busy
        self.action.setEnabled(self.offline and not busy)
