"""The curator's actions in the window: ``project.*`` ids, the Project menu, who may use them.

One :class:`CuratorActions` lives in the main window. It registers an action for every
curator command (:data:`ACTIONS`; the desk page shows a button for each ``project.*``
action of the registry), adds them to the top bar's Project menu, and enables each one the
user's roles allow (``domain.permissions``), else disables it with a tooltip naming the
role it needs. Most open a :class:`~annotator.gui.curator.dialog.CommandDialog`; new or
open project opens :class:`OpenProjectDialog`; bundles and package import open the round
trip's own window (``gui/roundtrip``); export switches to the export page.
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtCore import QObject
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QDialog, QMenu, QWidget

from annotator.domain.permissions import Action
from annotator.gui.actions import ActionRegistry, ActionSpec
from annotator.gui.context import GuiContext
from annotator.gui.curator.catalogue import BY_ID, refusal, user_names
from annotator.gui.curator.dialog import CommandDialog
from annotator.gui.curator.open_project import OpenProjectDialog
from annotator.gui.roundtrip.controller import RoundTripActions
from annotator.store.project import Project

GROUP = "Project"
OPEN, BUNDLE, PACKAGES, EXPORT = (
    "project.open", "project.bundle", "project.import_packages", "project.export")
# (id, menu text, the permission it needs, the Project menu's submenu), in menu order.
_OTHERS: dict[str, tuple[str, Action | None, str]] = {
    OPEN: ("New or open project...", None, ""),
    BUNDLE: ("Bundles for offline annotators...", Action.BUNDLE, "Round trip"),
    PACKAGES: ("Import annotation packages...", Action.IMPORT_PACKAGE, "Round trip"),
    EXPORT: ("Export a release", Action.EXPORT, ""),
}
ORDER = (OPEN, "project.users_add", "project.users_role", "project.users_passwd",
         "project.import", "project.assign", BUNDLE, PACKAGES, "project.sme_import",
         "project.sme_items", "project.sme_assign", "project.judge_import",
         "project.judge_scores", "project.judge_assign", "project.repair", "project.backup",
         "project.agreement", EXPORT)
# Default shortcuts (data; the user rebinds them in the shortcut sheet). Ctrl+Alt with a
# letter the desktops leave alone (not T, L, D or Delete).
KEYS = {
    OPEN: "Ctrl+Shift+O", "project.users_add": "Ctrl+Alt+U", "project.users_role": "Ctrl+Alt+R",
    "project.users_passwd": "Ctrl+Alt+W", "project.import": "Ctrl+Alt+I",
    "project.assign": "Ctrl+Alt+A", BUNDLE: "Ctrl+Alt+B", PACKAGES: "Ctrl+Alt+K",
    "project.sme_import": "Ctrl+Alt+S", "project.sme_items": "Ctrl+Alt+M",
    "project.sme_assign": "Ctrl+Alt+N", "project.judge_import": "Ctrl+Alt+J",
    "project.judge_scores": "Ctrl+Alt+H", "project.judge_assign": "Ctrl+Alt+G",
    "project.repair": "Ctrl+Alt+F", "project.backup": "Ctrl+Alt+Y",
    "project.agreement": "Ctrl+Alt+E", EXPORT: "Ctrl+Alt+X",
}


def permission(action_id: str) -> Action | None:
    """The permission an action needs (None: anyone, e.g. opening a project)."""
    return BY_ID[action_id].action if action_id in BY_ID else _OTHERS[action_id][1]


ACTIONS: tuple[ActionSpec, ...] = tuple(
    ActionSpec(i, (BY_ID[i].title + "...") if i in BY_ID else _OTHERS[i][0], KEYS[i], GROUP,
               needs=needed.value if (needed := permission(i)) else "")
    for i in ORDER)


class CuratorWindow(Protocol):
    """What the actions need of the main window (a Protocol: no import cycle with it)."""

    context: GuiContext
    registry: ActionRegistry
    roundtrip: RoundTripActions

    def switch_project(self, project: Project, user: str | None, page_id: str = ...) -> None: ...
    def set_identity(self, name: str) -> None: ...
    def ask_identity(self) -> None: ...
    def build_pages(self) -> None: ...
    def show_page(self, page_id: str) -> None: ...
    def as_widget(self) -> QWidget: ...


class CuratorActions(QObject):
    """The curator's actions of one main window (see the module docstring)."""

    def __init__(self, window: CuratorWindow) -> None:
        super().__init__(window.as_widget())
        self.window = window
        self.dialogs: dict[str, QDialog] = {}
        self.actions: dict[str, QAction] = {
            spec.id: window.registry.register(
                spec, lambda i=spec.id: self.trigger(i), window.as_widget())
            for spec in ACTIONS}
        self.menu = self._menu(window.roundtrip.menu)

    def _menu(self, menu: QMenu) -> QMenu:
        """Put the actions at the top of the Project menu, grouped as the catalogue says."""
        first = menu.actions()[0] if menu.actions() else None
        submenus: dict[str, QMenu] = {}
        added: list[QAction] = []
        for action_id in ORDER:
            group = BY_ID[action_id].group if action_id in BY_ID else _OTHERS[action_id][2]
            if group in ("", "Cases"):
                added.append(self.actions[action_id])
                continue
            if group not in submenus:
                submenus[group] = QMenu(group, menu)
                submenus[group].setToolTipsVisible(True)
                added.append(submenus[group].menuAction())
            submenus[group].addAction(self.actions[action_id])
        menu.insertActions(first, added)  # type: ignore[arg-type]
        if first is not None:
            menu.insertSeparator(first)
        menu.setToolTipsVisible(True)
        self.submenus = submenus
        return menu

    # -- who may ---------------------------------------------------------------------------

    def refresh(self) -> None:
        """Enable what the window's user may do now; the rest says which role it needs."""
        context = self.window.context
        project = context.project
        for action_id, action in self.actions.items():
            reason = None if action_id == OPEN else refusal(context, permission(action_id))
            action.setEnabled(reason is None)
            action.setToolTip(reason or action.text().rstrip("."))
        for action_id in list(self.dialogs):
            dialog = self.dialogs[action_id]
            if isinstance(dialog, CommandDialog) and dialog.project is not project:
                dialog.close()
                dialog.deleteLater()
                del self.dialogs[action_id]
            elif isinstance(dialog, CommandDialog):
                dialog.refresh_permission()

    # -- the actions -----------------------------------------------------------------------

    def trigger(self, action_id: str) -> QDialog | None:
        """Do the action: open its dialog (returned), the round trip, or the export page."""
        if not self.actions[action_id].isEnabled():
            return None
        if action_id == EXPORT:
            self.window.show_page("export")
            return None
        if action_id in (BUNDLE, PACKAGES):
            view = self.window.roundtrip.show_view()
            if action_id == PACKAGES:
                view.choose_and_import()
            return None
        dialog = self.dialogs.get(action_id)
        if dialog is None:
            dialog = self.dialogs[action_id] = self._make(action_id)
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        return dialog

    def _make(self, action_id: str) -> QDialog:
        parent = self.window.as_widget()
        if action_id == OPEN:
            return OpenProjectDialog(self.open_project, parent)
        dialog = CommandDialog(self.window.context, BY_ID[action_id], parent)
        if action_id.startswith("project.users_"):
            dialog.finished_work.connect(lambda ok: self.users_changed() if ok else None)
        else:
            dialog.finished_work.connect(lambda _ok: self.window.roundtrip.project_changed())
        return dialog

    def dialog(self, action_id: str) -> QDialog:
        """The action's dialog, opened (tests and the desk fill it in)."""
        dialog = self.trigger(action_id)
        assert dialog is not None, f"{action_id} opens no dialog (or is disabled)"
        return dialog

    def open_project(self, project: Project) -> None:
        """Show ``project`` in the window as this machine's identity for it, if any."""
        from annotator.services.workspace_state import remembered_identity

        left = self.window.context.project
        user = remembered_identity(project)
        names = user_names(project)
        self.window.switch_project(project, user if user in names else None, "desk")
        if names and user not in names:
            self.window.ask_identity()  # who is working on this project?
        if left is not None and left is not project and left in self.window.roundtrip.owned:
            self.window.roundtrip.owned.remove(left)
            left.close()
        self.window.roundtrip.owned.append(project)

    def users_changed(self) -> None:
        """Users or roles changed: a new project gets its first curator as the window's user;
        the user's own roles changed: the pages follow them."""
        from annotator.services.users import SETUP_ACTOR, resolve_actor, roles_of

        context = self.window.context
        project = context.project
        assert project is not None
        if not context.user:
            actor = resolve_actor(project, None)
            if actor != SETUP_ACTOR:
                self.window.set_identity(actor)
            return
        # Not a permission check: whether the pages were built for other roles than the
        # user has now (after a role change), so they must be built again.
        built_for, now = sorted(context.roles or []), roles_of(project, context.user)
        if built_for != now:
            self.window.build_pages()
        else:
            self.refresh()
