"""The main window: a tab bar of pages, who is working, and the shortcut sheet.

Pages live in ``annotator.gui.pages.<id>`` and expose ``Page(context: GuiContext)``; a page
whose module is not there yet shows a placeholder that says so. When nobody has chosen
themselves yet, the window first shows the identity chooser and builds the pages after.
"""

from __future__ import annotations

import importlib
import traceback
from typing import Any

from PySide6.QtCore import QRect, QSettings, Qt, QTimer
from PySide6.QtGui import QCloseEvent
from PySide6.QtWidgets import (
    QHBoxLayout,
    QMainWindow,
    QStackedWidget,
    QTabBar,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from annotator import __version__
from annotator.errors import PermissionDenied
from annotator.gui import theme
from annotator.gui.actions import ActionRegistry, ActionSpec
from annotator.gui.appearance import AppearanceMenu
from annotator.gui.collect import collect_soon, settle
from annotator.gui.context import GuiContext
from annotator.gui.curator.menu import CuratorActions
from annotator.gui.pages import MessagePage
from annotator.gui.roundtrip.controller import RoundTripActions
from annotator.store.project import Project

# The pages the app has, by the core's page ids (the core's table orders the page bar and
# says who sees which).
PAGES = (
    ("desk", "Desk"),
    ("annotate", "Annotate"),
    ("sme", "SME review"),
    ("review", "Meta-review"),
    ("agreement", "Agreement"),
    ("judge", "Judge scoring"),
    ("redaction", "Redaction"),
    ("export", "Export"),
)
TITLES = dict(PAGES)
WINDOW_ACTIONS = (
    ActionSpec("help.shortcuts", "Keyboard shortcuts", "F1", "Help"),
    ActionSpec("help.shortcuts_question", "Keyboard shortcuts", "?", "Help"),
    ActionSpec("user.switch", "Switch user", "Ctrl+Shift+U", "Help"),
    ActionSpec("page.next", "Next page", "Ctrl+PgDown", "Navigation"),
    ActionSpec("page.previous", "Previous page", "Ctrl+PgUp", "Navigation"),
    ActionSpec("app.quit", "Quit", "Ctrl+Q", "Window"),
    ActionSpec("app.scale_up", "Larger interface", "Ctrl+=", "Window"),
    ActionSpec("app.scale_down", "Smaller interface", "Ctrl+-", "Window"),
    ActionSpec("app.scale_reset", "Interface at normal size", "Ctrl+0", "Window"),
    ActionSpec("app.theme_toggle", "Light or dark theme", "Ctrl+Shift+L", "Window"),
)
FIRST_START_SIZE = (1600, 1000)  # shrunk to the screen's free area when that is smaller


def first_start_geometry(free: QRect) -> QRect:
    """1600 x 1000, or less on a smaller screen, centred in its free area (``free``)."""
    frame = 40  # room for the window manager's title bar and borders
    width = min(FIRST_START_SIZE[0], free.width() - frame)
    height = min(FIRST_START_SIZE[1], free.height() - frame)
    placed = QRect(0, 0, width, height)
    placed.moveCenter(free.center())
    return placed


def make_page(page_id: str, title: str, context: GuiContext) -> QWidget:
    """Build a page; a page that fails to build says so instead of closing the app."""
    try:
        module = importlib.import_module(f"annotator.gui.pages.{page_id}")
    except ModuleNotFoundError as exc:
        if exc.name != f"annotator.gui.pages.{page_id}":
            raise
        return MessagePage(title, "This page is not built yet; it arrives with its own issue "
                           "(SME verdicts on benchmark items).")
    try:
        page: QWidget = module.Page(context)
    except PermissionDenied as exc:  # blinding: e.g. an annotator on the meta-review page
        return MessagePage(title, f"Not for this user: {exc}.")
    except Exception as exc:  # one broken page must not take the annotator's work down
        traceback.print_exc()
        return MessagePage(title, f"This page could not be opened: {exc}")
    return page


class MainWindow(QMainWindow):
    def __init__(self, context: GuiContext, remember: bool = True) -> None:
        """``remember``: restore and save the window's size and page (not for screenshots,
        which must look the same on every machine and leave the user's settings alone)."""
        super().__init__()
        self.remember = remember
        if context.actions is None:
            context.actions = ActionRegistry(self)
        self.context = context
        self.registry: ActionRegistry = context.actions
        self.roundtrip = RoundTripActions(self)  # open bundle, send my work, curator's view
        self.curator = CuratorActions(self)  # every curator command, in the Project menu
        self.setWindowTitle(self._title())
        central = QWidget()
        layout = QVBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.setSpacing(0)
        top = self.top_bar = QWidget()
        top.setObjectName("topBar")
        bar = QHBoxLayout(top)
        bar.setContentsMargins(6, 0, 6, 0)
        bar.addWidget(self.roundtrip.menu_button)
        self.tabs = QTabBar()
        self.tabs.setDrawBase(False)
        self.tabs.setExpanding(False)
        # Every page title in full, always: the window's minimum width makes room for the
        # whole bar instead of hiding titles behind scroll buttons.
        self.tabs.setUsesScrollButtons(False)
        self.tabs.setElideMode(Qt.TextElideMode.ElideNone)
        bar.addWidget(self.tabs)
        bar.addStretch(1)
        bar.addWidget(self.roundtrip.send.button)
        self.who = QToolButton()
        self.who.setAutoRaise(True)
        self.who.setToolTip("Switch user (Ctrl+Shift+U)")
        self.who.clicked.connect(self.switch_user)
        help_button = QToolButton()
        help_button.setText("Shortcuts (F1)")
        help_button.setAutoRaise(True)
        help_button.clicked.connect(self.show_shortcuts)
        self.appearance = AppearanceMenu(self)
        bar.addWidget(self.who)
        bar.addWidget(self.appearance.button)
        bar.addWidget(help_button)
        self._style_bar()
        layout.addWidget(top)
        self.stack = QStackedWidget()
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        self.page_ids: list[str] = []
        self.wanted_page: str | None = None  # the page to open once the pages are built
        self.built: dict[str, QWidget] = {}
        self.chooser: QWidget | None = None
        self.sheet: QWidget | None = None
        handlers = {
            "help.shortcuts": self.show_shortcuts,
            "help.shortcuts_question": self.show_shortcuts,
            "user.switch": self.switch_user,
            "page.next": lambda: self._step_page(1),
            "page.previous": lambda: self._step_page(-1),
            "app.quit": self.close,
            "app.scale_up": lambda: self.set_scale(theme.scale() + theme.SCALE_STEP),
            "app.scale_down": lambda: self.set_scale(theme.scale() - theme.SCALE_STEP),
            "app.scale_reset": lambda: self.set_scale(1.0),
            "app.theme_toggle": lambda: self.set_theme("dark" if theme.name() == "light"
                                                       else "light"),
        }
        for spec in WINDOW_ACTIONS:
            self.registry.register(spec, handlers[spec.id], self)
        self.tabs.currentChanged.connect(self._page_changed)
        if remember:  # "follow the system": a desktop switching to dark switches the app too
            from PySide6.QtGui import QGuiApplication

            QGuiApplication.styleHints().colorSchemeChanged.connect(self.system_scheme_changed)
        if remember:
            self._restore_geometry()
            remembered = QSettings().value("window/page")
            self.wanted_page = str(remembered) if remembered else None
        self.roundtrip.project_changed()
        if context.project is not None and not context.user and self._has_users():
            self.ask_identity()
        else:
            self.build_pages()
        QTimer.singleShot(0, settle)  # start-up is done: see gui/collect.py

    # -- identity -------------------------------------------------------------------------

    def _has_users(self) -> bool:
        from annotator.services.users import list_users

        assert self.context.project is not None
        return bool(list_users(self.context.project))

    def ask_identity(self) -> None:
        """Show the identity chooser in place of the pages."""
        from annotator.gui.identity import IdentityChooser

        assert self.context.project is not None
        self._drop_pages()
        self.chooser = IdentityChooser(self.context.project, self.context.user)
        self.chooser.chosen.connect(self.set_identity)
        self.stack.addWidget(self.chooser)
        self.stack.setCurrentWidget(self.chooser)
        self._fill_tabs([])
        self.tabs.setEnabled(False)
        self.context.roles = []
        self.curator.refresh()
        self.who.setText("nobody chosen")

    def set_identity(self, name: str) -> None:
        """Work as ``name`` from now on (remembered on this machine for this project)."""
        from annotator.services.users import authenticate, logins_required
        from annotator.services.workspace_state import remember_identity

        assert self.context.project is not None
        if logins_required(self.context.project):  # a team store: prove who you are
            from PySide6.QtWidgets import QInputDialog, QLineEdit, QMessageBox

            password, ok = QInputDialog.getText(self, "Log in", f"Password for {name}:",
                                                QLineEdit.EchoMode.Password)
            if not ok:
                return
            try:
                authenticate(self.context.project, name, password)
            except PermissionDenied as exc:
                QMessageBox.warning(self, "Log in", str(exc))
                return
        remember_identity(self.context.project, name)
        self.context.user = name
        if self.chooser is not None:
            self.stack.removeWidget(self.chooser)
            self.chooser.deleteLater()
            self.chooser = None
        self.build_pages()

    def switch_user(self) -> None:
        if self.context.project is not None and self._has_users():
            self.ask_identity()

    # -- pages ----------------------------------------------------------------------------

    def build_pages(self) -> None:
        """Make room for the pages the user's roles can use; each is built when first shown
        (fast start-up). The wanted page (restored, or asked for) opens if the roles allow it,
        else the roles' landing page."""
        from annotator.domain.permissions import landing_page, pages_for

        self._drop_pages()
        roles = self.context.roles = self._roles()
        shown = [p for p in pages_for(roles) if p in TITLES]
        landing = landing_page(roles)
        start = next(p for p in (self.wanted_page, landing, shown[0]) if p in shown)
        if start == "annotate" and self.context.project is not None and self.context.user:
            from annotator.services.workspace import warm_case_list

            # The case list read while the page is made (its first refresh waits for it).
            warm_case_list(self.context.project, self.context.user)
        self.built = {}
        self._fill_tabs(shown)
        self.tabs.setEnabled(True)
        self.who.setText(self.context.user or "nobody")
        self.roundtrip.project_changed()
        self.curator.refresh()
        blocked = self.tabs.blockSignals(True)
        self.tabs.setCurrentIndex(shown.index(start))
        self.tabs.blockSignals(blocked)
        self._page_changed(self.tabs.currentIndex())

    def _roles(self) -> list[str]:
        from annotator.domain.states import ROLES
        from annotator.services.users import roles_of

        if self.context.project is None:  # nothing to protect: every page says "open a project"
            return list(ROLES)
        return roles_of(self.context.project, self.context.user)

    def _fill_tabs(self, page_ids: list[str]) -> None:
        blocked = self.tabs.blockSignals(True)
        while self.tabs.count():
            self.tabs.removeTab(0)
        for page_id in page_ids:
            self.tabs.addTab(TITLES[page_id])
        self.page_ids = list(page_ids)
        self.tabs.blockSignals(blocked)

    def switch_project(self, project: Project, user: str | None, page_id: str = "annotate") -> None:
        """Work on ``project`` as ``user`` from now on (e.g. one just made from a bundle)."""
        self._drop_pages()
        if self.chooser is not None:
            self.stack.removeWidget(self.chooser)
            self.chooser.deleteLater()
            self.chooser = None
        self.context.project, self.context.user, self.context.case_id = project, user, None
        self.setWindowTitle(self._title())
        self.wanted_page = page_id
        self.build_pages()

    def _title(self) -> str:
        from annotator.sync.offline import offline_info

        project = self.context.project
        if project is None:
            return f"annotator {__version__} - no project"
        info = offline_info(project)
        mine = f" ({info.annotator}'s offline project)" if info is not None else ""
        return f"annotator {__version__} - {project.location}{mine}"

    @property
    def pages(self) -> list[QWidget]:
        """The pages built so far."""
        return list(self.built.values())

    def _drop_pages(self) -> None:
        for page_id, page in self.built.items():
            shutdown = getattr(page, "shutdown", None)
            if callable(shutdown):
                shutdown()
            self.registry.unregister_page(page_id)
            self.registry.unregister_owned_by(page)
            self.stack.removeWidget(page)
            # Once Qt has deleted the page, collect the Python side of its cycles on this
            # thread (gui/collect.py says why).
            page.destroyed.connect(collect_soon)
            page.deleteLater()
        if self.built:
            collect_soon()
        self.built = {}

    def _page_changed(self, index: int) -> None:
        # The selected title is bold, hence wider: give the bar its new width now, so that the
        # window's minimum width grows with it before anything is drawn clipped.
        self.tabs.updateGeometry()
        for layout in (self.top_bar.layout(), self.centralWidget().layout(), self.layout()):
            layout.activate()
        if 0 <= index < len(self.page_ids):
            self.stack.setCurrentWidget(self.page(self.page_ids[index]))
            if self.remember:
                QSettings().setValue("window/page", self.page_ids[index])

    def _step_page(self, step: int) -> None:
        self.tabs.setCurrentIndex((self.tabs.currentIndex() + step) % self.tabs.count())

    def show_page(self, page_id: str) -> None:
        """Open ``page_id``; PermissionDenied if the user's roles do not show it."""
        if page_id not in self.page_ids:
            raise PermissionDenied(f"the {TITLES.get(page_id, page_id)} page is not shown to "
                                   f"{self.context.user or 'nobody'} (roles: "
                                   f"{', '.join(self.context.roles or []) or 'none'})")
        index = self.page_ids.index(page_id)
        if index == self.tabs.currentIndex():
            self._page_changed(index)
        self.tabs.setCurrentIndex(index)

    def page(self, page_id: str) -> QWidget:
        """The page ``page_id``, built now if it was not shown before."""
        if page_id not in self.built:
            title = TITLES[page_id]
            page = make_page(page_id, title, self.context)
            self.built[page_id] = page
            self.stack.addWidget(page)
            self.roundtrip.page_built(page)
        return self.built[page_id]

    def ready(self) -> bool:
        """True when every page that can say so has its content on screen."""
        checks = [getattr(p, "ready", None) for p in self.pages]
        return not self.roundtrip.busy and all(check() for check in checks if callable(check))

    # -- appearance -----------------------------------------------------------------------

    def _style_bar(self) -> None:
        self.top_bar.setStyleSheet(theme.css(
            "QWidget#topBar { background: $topbar; } "
            "QWidget#topBar QLabel, QWidget#topBar QToolButton { color: $topbar_text; }"))
        self.tabs.setStyleSheet(theme.css(
            "QTabBar::tab { color: $tab_text; padding: 6px 14px; background: transparent; } "
            "QTabBar::tab:selected { color: $topbar_text; border-bottom: 3px solid $tab_accent; "
            "font-weight: bold; }"))
        self.roundtrip.restyle()

    def set_scale(self, scale: float) -> None:
        """Make the interface's text ``scale`` times the desktop's (kept for next time)."""
        from PySide6.QtWidgets import QApplication

        scale = theme.clamp_scale(scale)
        if self.remember:
            QSettings().setValue("appearance/scale", scale)
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        theme.apply(app, theme.name(), scale)
        self.tabs.updateGeometry()

    def system_scheme_changed(self, *_: object) -> None:
        """The desktop changed its colour scheme: follow it if the user chose "system"."""
        if theme.saved_choice() == "system":
            self.set_theme("system")

    def as_widget(self) -> QWidget:
        """The window as a widget (menus that name it by a Protocol parent to it)."""
        return self

    def set_theme(self, choice: str) -> None:
        """Use "system", "light" or "dark" from now on (kept); the pages are rebuilt in it."""
        from PySide6.QtWidgets import QApplication

        if self.remember:
            QSettings().setValue("appearance/theme", choice)
        self.appearance.chosen(choice)
        resolved = theme.resolve(choice)
        if resolved == theme.name():
            return
        app = QApplication.instance()
        assert isinstance(app, QApplication)
        theme.apply(app, resolved, theme.scale())
        self._style_bar()
        if self.page_ids:  # pages read their colours when built: build them again
            self.wanted_page = self.page_ids[self.tabs.currentIndex()]
            self.build_pages()

    # -- shortcut sheet, geometry, closing ------------------------------------------------

    def show_shortcuts(self) -> None:
        """Open the shortcut sheet beside the window (not modal)."""
        from annotator.gui.shortcuts import ShortcutSheet

        if self.sheet is None:
            self.sheet = ShortcutSheet(self.registry, self)
        else:
            self.sheet.fill()  # type: ignore[attr-defined]
        self.sheet.show()
        self.sheet.raise_()

    def _restore_geometry(self) -> None:
        """The size and place of the last session; on a first start, most of the screen."""
        geometry: Any = QSettings().value("window/geometry")
        if geometry is not None and self.restoreGeometry(geometry):
            return
        self.setGeometry(first_start_geometry(self.screen().availableGeometry()))

    def closeEvent(self, event: QCloseEvent) -> None:  # noqa: N802 - Qt's name
        for page in self.pages:
            shutdown = getattr(page, "shutdown", None)
            if callable(shutdown):
                shutdown()
        self.roundtrip.close()
        if self.remember:
            QSettings().setValue("window/geometry", self.saveGeometry())
        super().closeEvent(event)
