"""The round trip's window actions: open a work bundle, send my work, the curator's view.

One :class:`RoundTripActions` lives in the main window. It registers the actions in the
window's ActionRegistry, puts them in the top bar's "Project" menu and enables each where it
makes sense. Opening a bundle unbundles off the GUI thread and then shows the new project in
the window, as the bundle's annotator, on the annotate page. "Send my work" is
:class:`SendMyWork`; the curator's window is :class:`RoundTripView`. The choosers are in
``choosers``; the methods taking paths (``open_bundle``) are what the menu and tests call.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QLabel, QMenu, QToolButton, QWidget

from annotator.gui import theme
from annotator.gui.roundtrip import choosers
from annotator.gui.roundtrip.host import RoundTripWindow
from annotator.gui.roundtrip.keymap import (
    IMPORT_PACKAGES,
    MAKE_BUNDLE,
    OPEN_BUNDLE,
    ROUNDTRIP_ACTIONS,
    SEND_WORK,
    SHOW_VIEW,
)
from annotator.gui.roundtrip.send_work import SEND_STYLE, SendMyWork
from annotator.gui.tasks import run_task_in_background
from annotator.store.project import Project
from annotator.tasks import TaskState

if TYPE_CHECKING:
    from annotator.gui.roundtrip.view import RoundTripView

MENU_STYLE = ("QToolButton { color: $topbar_text; background: transparent; border: none; "
              "padding: 3px 10px; } QToolButton:hover { background: $topbar_hover; } "
              "QToolButton::menu-indicator { image: none; }")
ERROR_STYLE = "color: $refused;"
CURATOR_ACTIONS = (SHOW_VIEW, MAKE_BUNDLE, IMPORT_PACKAGES)


class RoundTripActions(QObject):
    """The round-trip actions of one main window (see the module docstring)."""

    opened = Signal(str)
    """A work bundle was unbundled and its project is open in the window (the folder)."""
    failed = Signal(str)
    """A bundle could not be opened (the reason shown)."""

    def __init__(self, window: RoundTripWindow) -> None:
        super().__init__(window)  # type: ignore[arg-type]  # the window is a QWidget
        self.window = window
        self.opening = False
        self.curator = False
        self.owned: list[Project] = []  # projects opened here (closed when left)
        self.view: RoundTripView | None = None
        handlers = {
            OPEN_BUNDLE: self.choose_and_open_bundle,
            SEND_WORK: lambda: self.send.choose_and_send(),
            SHOW_VIEW: self.show_view,
            MAKE_BUNDLE: lambda: self.show_view().choose_and_make_bundle(),
            IMPORT_PACKAGES: lambda: self.show_view().choose_and_import(),
        }
        self.actions = {s.id: window.registry.register(s, handlers[s.id], window)
                        for s in ROUNDTRIP_ACTIONS}
        self.send = SendMyWork(self)
        self.menu = QMenu(window)
        for action_id in (OPEN_BUNDLE, SEND_WORK, "", *CURATOR_ACTIONS):
            if action_id:
                self.menu.addAction(self.actions[action_id])
            else:
                self.menu.addSeparator()
        self.menu_button = QToolButton()
        self.menu_button.setText("Project \u25be")
        self.menu_button.setToolTip("The project: open or make one, users, import, assign, "
                                    "bundles and packages, export; open a work bundle")
        self.menu_button.setMenu(self.menu)
        self.menu_button.setPopupMode(QToolButton.ToolButtonPopupMode.InstantPopup)
        self.message = QLabel("")
        self.message.setObjectName("roundtripStatus")
        self.message.setWordWrap(True)

    @property
    def busy(self) -> bool:
        """Unbundling or packaging is under way (screenshots wait for it)."""
        return self.opening or self.send.busy

    def project_changed(self) -> None:
        """Enable the actions that make sense for the window's project and user now."""
        from annotator.domain.permissions import Action, may
        from annotator.services.users import roles_of
        from annotator.sync.offline import is_offline_project

        project, user = self.window.context.project, self.window.context.user
        if self.view is not None and self.view.project is not project:
            self.view.close()
            self.view.deleteLater()
            self.view = None
        offline = project is not None and is_offline_project(project)
        roles = roles_of(project, user) if project is not None else []
        self.curator = not offline and may(roles, Action.BUNDLE)
        for action_id in CURATOR_ACTIONS:
            self.actions[action_id].setEnabled(self.curator)
            self.actions[action_id].setVisible(self.curator)
        self.send.set_offline(offline)

    def restyle(self) -> None:
        """Take the colours of the theme in use."""
        self.menu_button.setStyleSheet(theme.css(MENU_STYLE))
        self.send.button.setStyleSheet(theme.css(SEND_STYLE))

    def page_built(self, page: QWidget) -> None:
        """A page was built: "Send my work" follows its saves."""
        self.send.page_built(page)

    def say(self, text: str, error: bool = False) -> None:
        """Show a result or a reason in the window's status bar (never a modal box)."""
        bar = self.window.statusBar()
        if self.message.parent() is not bar:
            bar.addWidget(self.message, 1)
        self.message.setStyleSheet(theme.css(ERROR_STYLE) if error else "")
        self.message.setText(text)
        self.message.show()

    # -- open a work bundle ---------------------------------------------------------------

    def choose_and_open_bundle(self) -> None:
        """Ask for a bundle and a folder, then open it."""
        bundle = choosers.bundle_file(self.window)
        if bundle is None:
            return
        folder = choosers.project_folder(self.window, bundle)
        if folder is not None:
            self.open_bundle(bundle, folder)

    def open_bundle(self, bundle: Path, folder: Path) -> None:
        """Unbundle off the GUI thread, then open the new project on the annotate page."""
        from annotator.services.sync.unbundle import unbundle
        from annotator.store.project import open_project

        if self.opening:
            return
        self._set_opening(True)
        self.say(f"Opening the work bundle {Path(bundle).name}...")

        def work(task: TaskState) -> tuple[Any, Project]:
            result = unbundle(Path(bundle), folder, task)
            return result, open_project(result.folder, create=False, backup=False)

        def done(value: tuple[Any, Project]) -> None:
            result, project = value
            self._set_opening(False)
            if not self.window.isVisible():  # closed meanwhile: the project is in the folder
                project.close()
                return
            self.switch_to(project, result.annotator)
            self.say(f"{result.annotator}'s project with {len(result.case_ids)} case(s) is "
                     f"ready in {result.folder}. Your work is saved there as you go.")
            self.opened.emit(str(result.folder))

        def fail(exc: BaseException) -> None:
            self._set_opening(False)
            text = f"The bundle was not opened: {exc}"
            self.say(text, error=True)
            self.failed.emit(text)

        run_task_in_background(self.window, "Opening the work bundle", work, done, fail)

    def _set_opening(self, opening: bool) -> None:
        self.opening = opening
        self.actions[OPEN_BUNDLE].setEnabled(not opening)

    def switch_to(self, project: Project, user: str) -> None:
        """Show ``project`` in the window as ``user``; close a project opened here before."""
        left = self.window.context.project
        self.owned.append(project)
        self.window.switch_project(project, user, "annotate")
        if left is not None and left in self.owned:
            self.owned.remove(left)
            left.close()

    # -- the curator's view ---------------------------------------------------------------

    def show_view(self) -> RoundTripView:
        """Open (or raise) the curator's round-trip window."""
        from annotator.gui.roundtrip.view import RoundTripView

        if self.view is None:
            self.view = RoundTripView(self.window.context, self.actions, self.window)
        self.view.show()
        self.view.raise_()
        return self.view

    def close(self) -> None:
        """The window closes: close the projects opened here."""
        self.send.timer.stop()
        for project in self.owned:
            project.close()
        self.owned = []
