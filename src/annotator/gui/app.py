"""Starting the desktop app (and the offscreen screenshot mode used by docs and tests).

Identity: ``--as`` or ``$ANNOTATOR_USER`` first, else (in an annotator's offline project)
its annotator, else the person remembered on this machine for this project, else the window
asks. Screenshots never ask: without an identity they show, for ``--page``, somebody who lands
on that page (the curator for the desk), else the first annotator with open work, so the
picture has content.

``--open-bundle FILE --into DIR`` first creates the annotator's own project from a work
bundle and opens it as that annotator on the annotate page.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

from annotator.errors import AnnotatorError

SCREENSHOT_WAIT_SECONDS = 20.0


def _identity(project: object, requested: str | None, screenshot: bool,
              page: str | None = None) -> str | None:
    from annotator.domain.permissions import landing_page, pages_for
    from annotator.services.users import list_users
    from annotator.services.workspace import default_annotator
    from annotator.services.workspace_state import remembered_identity
    from annotator.store.project import Project
    from annotator.sync.offline import offline_info

    assert isinstance(project, Project)
    if requested:
        return requested
    info = offline_info(project)
    if info is not None:
        # The offline copy shares the curator's project id, hence its remembered identity.
        return info.annotator
    remembered = remembered_identity(project)
    if remembered or not screenshot:
        return remembered
    if page and page != "annotate":  # somebody who lands on that page, else who may see it
        people = list_users(project)
        for fits in (lambda roles: landing_page(roles) == page,
                     lambda roles: page in pages_for(roles)):
            found = next((u.name for u in people if fits(u.roles)), None)
            if found:
                return found
    return default_annotator(project)


def _store_password(args: argparse.Namespace) -> str | None:
    """A team store login's password for the server (a walled store's URL names the role)."""
    from annotator.store.project import is_url

    if not is_url(args.project or ""):
        return None
    if getattr(args, "password_file", None):
        return Path(args.password_file).read_text(encoding="utf-8").rstrip("\r\n")
    return os.environ.get("ANNOTATOR_PASSWORD")


def _open_store(location: str, password: str | None, screenshot: bool) -> Any:
    """Open the project; a team store whose server wants this person's login asks for it
    (the login dialog, retried until the server lets them in or they cancel)."""
    from annotator.errors import LoginRefused
    from annotator.store.project import login_name, open_as_login, open_project

    try:
        return open_project(location, password=password)
    except LoginRefused as refused:
        if screenshot:
            raise
        from PySide6.QtWidgets import QDialog

        from annotator.gui.curator.command_line import shown_location
        from annotator.gui.login import LoginDialog

        dialog = LoginDialog(
            shown_location(location), lambda name, secret: open_as_login(location, name, secret),
            login=login_name(location), message=str(refused) if password is not None else "",
        )
        if dialog.exec() != QDialog.DialogCode.Accepted:
            raise LoginRefused("login cancelled: nothing was opened") from None
        return dialog.result_value


def _log_in(project: Any, user: str, args: argparse.Namespace) -> None:
    """On a team store with logins, the user proves who they are before any page opens."""
    from annotator.services.users import authenticate, logins_required

    if not logins_required(project):
        return
    password: str | None = None
    if getattr(args, "password_file", None):
        password = Path(args.password_file).read_text(encoding="utf-8").rstrip("\r\n")
    elif "ANNOTATOR_PASSWORD" in os.environ:
        password = os.environ["ANNOTATOR_PASSWORD"]
    elif not args.screenshot:
        from PySide6.QtWidgets import QInputDialog, QLineEdit

        text, ok = QInputDialog.getText(None, "Log in", f"Password for {user}:",
                                        QLineEdit.EchoMode.Password)
        password = text if ok else None
    authenticate(project, user, password)  # PermissionDenied: one line, no window


def _wait_until_ready(window: Any, seconds: float) -> None:
    """Run the event loop until the window's pages report ready (or time runs out)."""
    from PySide6.QtCore import QEventLoop, QTimer

    deadline = time.monotonic() + seconds
    loop = QEventLoop()
    timer = QTimer()
    timer.setInterval(25)

    def check() -> None:
        if window.ready() or time.monotonic() > deadline:
            loop.quit()

    timer.timeout.connect(check)
    timer.start()
    loop.exec()
    timer.stop()


def parse_size(text: str | None) -> tuple[int, int]:
    """``"1366x768"`` -> (1366, 768); the default is 1600 x 1000."""
    width, _, height = (text or "1600x1000").lower().partition("x")
    try:
        size = int(width), int(height)
    except ValueError:
        from annotator.errors import ValidationError

        raise ValidationError(f"--size expects WIDTHxHEIGHT, e.g. 1366x768, got {text!r}") from None
    if min(size) < 200:
        from annotator.errors import ValidationError

        raise ValidationError(f"--size {text} is too small to show the app")
    return size


def _open_bundle(bundle: str, into: str | None) -> tuple[Any, str]:
    """Unbundle before the window exists; the project and its annotator."""
    from annotator.errors import ProjectError, ValidationError
    from annotator.services.sync.unbundle import unbundle
    from annotator.store.project import DB_NAME, open_project

    if not into:
        raise ValidationError("--open-bundle needs --into DIR: a new folder for your project")
    try:
        result = unbundle(Path(bundle), into)
    except ProjectError as exc:
        if (Path(into) / DB_NAME).exists():
            raise ProjectError(f"{exc}. It already holds a project: open it with "
                               f"annotator --project {into} gui") from None
        raise
    print(f"{result.annotator}'s project with {len(result.case_ids)} case(s) is ready in "
          f"{result.folder}")
    return open_project(result.folder, create=False, backup=False), result.annotator


def open_window(args: argparse.Namespace) -> Any:
    """The main window on the project, sized and on its page, not yet shown.

    Its size is ``--size``, else (for a screenshot) 1600 x 1000, else the one remembered from
    the last session, else most of the screen (the window decides the last two).
    """
    size = parse_size(args.size) if args.size or args.screenshot else None
    from PySide6.QtGui import QIcon
    from PySide6.QtWidgets import QApplication

    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow
    from annotator.resources import icon_path
    from annotator.services.users import connection_user

    app = QApplication.instance() or QApplication(sys.argv[:1])
    assert isinstance(app, QApplication)
    app.setApplicationName("annotator")
    app.setOrganizationName("annotator")
    app.setStyle("Fusion")
    app.setWindowIcon(QIcon(str(icon_path())))
    from annotator.gui import theme

    # Screenshots look the same on every machine: light at scale 1 unless asked otherwise.
    choice = getattr(args, "theme", None) or ("light" if args.screenshot else theme.saved_choice())
    scale = getattr(args, "scale", None) or (1.0 if args.screenshot else theme.saved_scale())
    theme.apply(app, theme.resolve(choice), scale)
    requested = getattr(args, "as_user", None)
    if requested is None:
        requested = os.environ.get("ANNOTATOR_USER")
    if requested is not None and not requested.strip():
        raise AnnotatorError("an empty user name was given (--as or ANNOTATOR_USER)")
    bundle = getattr(args, "open_bundle", None)
    if bundle:
        project, requested = _open_bundle(bundle, getattr(args, "into", None) or args.project)
        args.page = args.page or "annotate"
    else:
        project = _open_store(args.project, _store_password(args), bool(args.screenshot)) \
            if args.project else None
    person = connection_user(project, requested) if project is not None else None
    user = person or (_identity(project, requested, bool(args.screenshot), args.page) if project
                      else requested)
    if project is not None and user:
        _log_in(project, user, args)
    window = MainWindow(GuiContext(project, user, case_id=args.case),
                        remember=not args.screenshot)
    if size is not None:
        window.resize(*size)
    if args.page and window.page_ids:
        window.show_page(args.page)  # PermissionDenied for a page the user's roles do not see
    elif args.page:  # the identity chooser is up: open the page once somebody is chosen
        window.wanted_page = args.page
    return window


def run_gui(args: argparse.Namespace) -> int:
    """Open the main window on the project; with --screenshot, render to PNG and exit."""
    if args.screenshot:
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    parse_size(args.size)  # a bad --size is refused before Qt starts
    scale = getattr(args, "scale", None)
    if scale is not None and not 0.5 <= scale <= 3:
        raise AnnotatorError(f"--scale {scale} is out of range: give a factor from 0.5 to 3")
    from annotator.gui.collect import pause_for_start

    pause_for_start()  # until the window's first turn (gui/collect.py)
    from annotator.gui.workers import prefer_the_gui_thread

    prefer_the_gui_thread()
    window = open_window(args)
    from PySide6.QtWidgets import QApplication

    app = QApplication.instance()
    assert isinstance(app, QApplication)
    if args.screenshot:
        window.show()
        _wait_until_ready(window, SCREENSHOT_WAIT_SECONDS)
        app.processEvents()
        ok = window.grab().save(args.screenshot, "PNG")
        window.close()
        if not ok:
            print(f"annotator: error: could not write {args.screenshot}", file=sys.stderr)
            return 2
        return 0
    window.show()
    return int(app.exec())
