"""The team store login: a person's login name and password, checked by the server.

The dialog only collects text. ``attempt(name, password)`` (the core's
:func:`annotator.store.project.open_as_login` in the app) connects as that person on a worker
thread; PostgreSQL accepts or refuses the password (the client never checks a hash). A refusal
is shown in the dialog, the password field is emptied and the person may try again; Esc
cancels. The password lives only in the field and in the connection (never in a file, a
setting or a log line).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from annotator.errors import AnnotatorError
from annotator.gui import theme
from annotator.gui.workers import run_in_background

ERROR_STYLE = "color: $refused;"
Attempt = Callable[[str, str], Any]


class LoginDialog(QDialog):
    """Enter (or Log in) submits; a refusal says why and allows a retry; Esc cancels.

    ``result`` holds what ``attempt`` returned (the open project) once accepted.
    """

    def __init__(self, where: str, attempt: Attempt, login: str = "", message: str = "",
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.attempt = attempt
        self.result_value: Any = None
        self.busy = False
        self.cancelled = False
        self.setObjectName("login")
        self.setWindowTitle("Log in to the team store")
        self.setMinimumWidth(480)
        layout = QVBoxLayout(self)
        intro = QLabel(f"<h3>Log in</h3>The team store <tt>{_escape(where)}</tt> checks who "
                       "you are. Your login name is the <tt>db_role</tt> your curator gave "
                       "you.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        form = QFormLayout()
        self.login = QLineEdit(login)
        self.login.setObjectName("login.name")
        self.login.setPlaceholderText("e.g. team_3f2a1c_u_anna_9b1e22")
        self.password = QLineEdit()
        self.password.setObjectName("login.password")
        self.password.setEchoMode(QLineEdit.EchoMode.Password)
        form.addRow("Login name", self.login)
        form.addRow("Password", self.password)
        layout.addLayout(form)
        self.status = QLabel("")
        self.status.setObjectName("login.status")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.submit = self.buttons.addButton("Log in", QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.accepted.connect(self.log_in)
        self.buttons.rejected.connect(self.reject)
        # Enter in either field submits (never a focused Cancel: no button is the default).
        for button in self.buttons.buttons():
            if isinstance(button, QPushButton):
                button.setAutoDefault(False)
                button.setDefault(False)
        for field in (self.login, self.password):
            field.returnPressed.connect(self.log_in)
        layout.addWidget(self.buttons)
        (self.password if login else self.login).setFocus()
        if message:
            self._say(message, error=True)

    def log_in(self) -> None:
        """Ask the server (off the GUI thread); accepted once it lets the person in."""
        if self.busy:
            return
        name, password = self.login.text().strip(), self.password.text()
        if not name or not password:
            self._say("Type your login name and your password.", error=True)
            (self.login if not name else self.password).setFocus()
            return
        self.busy = True
        self.submit.setEnabled(False)
        self._say("Logging in...")
        run_in_background(lambda: self.attempt(name, password), self._in, self._refused)

    def accept(self) -> None:  # Enter in a field submits; only the server's yes closes it
        if self.result_value is None:
            self.log_in()
        else:
            super().accept()

    def reject(self) -> None:
        self.cancelled = True
        super().reject()

    def _in(self, result: Any) -> None:
        self.busy = False
        self.password.clear()
        if self.cancelled:  # Esc while the server was asked: let nothing stay open
            close = getattr(result, "close", None)
            if close is not None:
                close()
            return
        self.result_value = result
        super().accept()

    def _refused(self, exc: BaseException) -> None:
        self.busy = False
        self.submit.setEnabled(True)
        self.password.clear()
        self.password.setFocus()
        if isinstance(exc, AnnotatorError):
            self._say(str(exc), error=True)
        else:  # one line, never a traceback (the password is in no message)
            self._say(f"Not logged in: {type(exc).__name__}", error=True)

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setStyleSheet(theme.css(ERROR_STYLE) if error else "")
        self.status.setText(text)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
