"""New or open project: a folder (created when new) or a team store's ``postgresql://`` URL.

The window switches to the project opened here (:meth:`MainWindow.switch_project`); the
command that opens the same project is shown to copy (every command takes ``--project``).
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from pathlib import Path

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from annotator.errors import AnnotatorError, LoginRefused
from annotator.gui import theme
from annotator.gui.curator.command_line import shown_location
from annotator.gui.login import ERROR_STYLE, LoginDialog
from annotator.gui.tasks import run_task_in_background
from annotator.store.project import Project, is_url, login_name, open_as_login, open_project
from annotator.tasks import TaskState


class OpenProjectDialog(QDialog):
    """Choose a folder or a URL; ``opened`` once the project is open and handed on."""

    opened = Signal(str)
    """The project's location, after ``switch`` was called with it."""

    def __init__(self, switch: Callable[[Project], None], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.switch = switch
        self.busy = False
        self.login: LoginDialog | None = None
        self.setObjectName("project.open")
        self.setWindowTitle("New or open project")
        self.resize(760, 300)
        layout = QVBoxLayout(self)
        intro = QLabel("<h3>New or open project</h3>A project is a folder (a new, empty folder "
                       "makes a new project) or a team store's <tt>postgresql://</tt> URL. "
                       "The window switches to it; in a new project, add yourself as its "
                       "first curator (Project, Users, Add a user).")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        row = QHBoxLayout()
        self.location = QLineEdit()
        self.location.setPlaceholderText("a folder, or postgresql://user@host/database")
        self.location.textChanged.connect(self._changed)
        row.addWidget(self.location, 1)
        browse = QPushButton("Folder...")
        browse.clicked.connect(self.browse)
        row.addWidget(browse)
        form.addRow("Project", row)
        self.create = QCheckBox("Create a new project when the folder has none")
        self.create.setChecked(True)
        form.addRow("", self.create)
        self.command = QLineEdit()
        self.command.setObjectName("command")
        self.command.setReadOnly(True)
        form.addRow("Command", self.command)
        layout.addLayout(form)
        buttons = QHBoxLayout()
        self.open_button = QPushButton("Open")
        self.open_button.setDefault(True)
        self.open_button.clicked.connect(self.open)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        buttons.addWidget(self.open_button)
        buttons.addWidget(self.status, 1)
        buttons.addWidget(close)
        layout.addLayout(buttons)
        layout.addStretch(1)
        self._changed()

    def _changed(self) -> None:
        where = self.location.text().strip() or "FOLDER"
        self.command.setText(shlex.join(["annotator", "--project", shown_location(where),
                                         "status"]))
        self.command.setCursorPosition(0)

    def browse(self) -> None:
        chosen = QFileDialog.getExistingDirectory(self, "Project folder", str(Path.home()))
        if chosen:
            self.location.setText(chosen)

    def open(self) -> None:
        """Open (or create) the project off the GUI thread, then hand it to the window."""
        where = self.location.text().strip()
        if not where or self.busy:
            self._say("Type a folder or a postgresql:// URL first.", error=True)
            return
        create = self.create.isChecked() and not is_url(where)
        self.busy = True
        self.open_button.setEnabled(False)
        self._say("Opening...")

        def work(_state: TaskState) -> Project:
            return open_project(where, create=create)

        run_task_in_background(self, "Opening the project", work, self._opened, self._failed)

    def _opened(self, project: Project) -> None:
        self.busy = False
        self.open_button.setEnabled(True)
        self.switch(project)
        self._say(f"Opened {shown_location(project.location)}.")
        self.opened.emit(project.location)

    def _failed(self, exc: BaseException) -> None:
        self.busy = False
        self.open_button.setEnabled(True)
        if isinstance(exc, LoginRefused) and not isinstance(self.login, LoginDialog):
            self._ask_login(self.location.text().strip())
            return
        why = str(exc) if isinstance(exc, AnnotatorError) else f"{type(exc).__name__}: {exc}"
        self._say(f"Not opened: {why}", error=True)

    def _ask_login(self, where: str) -> None:
        """The team store wants the person's login: ask for it (the server checks it)."""
        self._say("The team store asks who you are: log in.")
        self.login = LoginDialog(shown_location(where),
                                 lambda name, secret: open_as_login(where, name, secret),
                                 login=login_name(where), parent=self)
        dialog = self.login

        def finished(code: int) -> None:
            self.login = None
            if code == QDialog.DialogCode.Accepted:
                self._opened(dialog.result_value)
            else:
                self._say("Not opened: the login was cancelled.", error=True)
            dialog.deleteLater()

        dialog.finished.connect(finished)
        dialog.open()

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(theme.css(ERROR_STYLE) if error else "")
        self.status.setText(text)
