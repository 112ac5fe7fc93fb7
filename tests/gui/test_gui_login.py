"""The team store's login dialog: the person types a login name and a password, the server
decides (issue 23). The dialog is tested against a fake core function first, then once
against the tests' own scram-sha-256 cluster (``pg_cluster``) through the app's two ways in:
``annotator --project URL gui`` and Project, New or open project."""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import QApplication, QDialog

from annotator.errors import LoginRefused
from pg_cluster import NEEDS_CLUSTER, cluster, login_url, team_store

__all__ = ["cluster", "team_store"]  # fixtures, used by name


class FakeServer:
    """The core's ``open_as_login`` stand-in: one login, one password; records attempts."""

    def __init__(self) -> None:
        self.attempts: list[tuple[str, str]] = []

    def __call__(self, name: str, password: str) -> str:
        self.attempts.append((name, password))
        if (name, password) != ("team_u_anna_1", "right-one"):
            raise LoginRefused(f"the server refused the login {name!r}: wrong login name or"
                               " password; nothing was opened")
        return "the project"


def _dialog(qtbot: Any, server: Any, login: str = "team_u_anna_1") -> Any:
    from annotator.gui.login import LoginDialog

    dialog = LoginDialog("postgresql://team_u_anna_1@db.example/team", server, login=login)
    qtbot.addWidget(dialog)
    dialog.show()
    return dialog


def _enter(qtbot: Any, dialog: Any, password: str) -> None:
    dialog.password.setFocus()
    qtbot.keyClicks(dialog.password, password)
    qtbot.keyClick(dialog.password, Qt.Key.Key_Return)


def test_a_wrong_password_is_said_and_may_be_tried_again(qtbot: Any) -> None:
    server = FakeServer()
    dialog = _dialog(qtbot, server)
    assert dialog.login.text() == "team_u_anna_1"
    assert dialog.password.echoMode() == dialog.password.EchoMode.Password
    _enter(qtbot, dialog, "wrong-one")
    qtbot.waitUntil(lambda: not dialog.busy and "wrong login name or password"
                    in dialog.status.text())
    assert dialog.isVisible() and dialog.result_value is None
    assert dialog.password.text() == ""  # emptied for the retry
    assert "Traceback" not in dialog.status.text() and "wrong-one" not in dialog.status.text()
    _enter(qtbot, dialog, "right-one")
    qtbot.waitUntil(lambda: dialog.result() == QDialog.DialogCode.Accepted)
    assert dialog.result_value == "the project"
    assert server.attempts == [("team_u_anna_1", "wrong-one"), ("team_u_anna_1", "right-one")]
    assert dialog.password.text() == ""


def test_empty_fields_ask_before_the_server_is_asked(qtbot: Any) -> None:
    server = FakeServer()
    dialog = _dialog(qtbot, server, login="")
    qtbot.keyClick(dialog.login, Qt.Key.Key_Return)
    assert "login name and your password" in dialog.status.text()
    assert server.attempts == [] and dialog.isVisible()


def test_escape_cancels(qtbot: Any) -> None:
    dialog = _dialog(qtbot, FakeServer())
    qtbot.keyClick(dialog.password, Qt.Key.Key_Escape)
    assert dialog.result() == QDialog.DialogCode.Rejected and not dialog.isVisible()


def test_an_unexpected_failure_is_one_line(qtbot: Any) -> None:
    def broken(_name: str, _password: str) -> None:
        raise OSError("the network went away")

    dialog = _dialog(qtbot, broken)
    _enter(qtbot, dialog, "whatever")
    qtbot.waitUntil(lambda: not dialog.busy)
    assert dialog.status.text() == "Not logged in: OSError"


def test_the_dialog_as_shown(qtbot: Any, tmp_path: Path) -> None:
    """Rendered for docs/screenshots/login.png (after a refused password)."""
    dialog = _dialog(qtbot, FakeServer())
    dialog.resize(560, 240)
    _enter(qtbot, dialog, "wrong-one")
    qtbot.waitUntil(lambda: not dialog.busy)
    shot = tmp_path / "login.png"
    assert dialog.grab().save(str(shot), "PNG")
    assert shot.stat().st_size > 1000


@pytest.mark.parametrize("way", ["startup", "open_project"])
def test_the_server_checks_the_dialogs_password(
    qtbot: Any, team_store: dict[str, Any], way: str, caplog: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """On the real cluster: no password in the URL, the dialog asks, a wrong password is the
    server's refusal, the right one opens the store as that person. The password is in no
    log record."""
    from annotator.services.users import resolve_actor

    caplog.set_level(logging.DEBUG)
    url = login_url(team_store, "cu")
    opened: list[Any] = []
    if way == "startup":
        from annotator.gui.app import _open_store

        # At start-up, before any window exists, the login is the app's one modal dialog.
        monkeypatch.undo()  # (the harness refuses modal dialogs everywhere else)
        steps = iter(["curator-wrong-9", "curator-pass-1"])

        finished: list[bool] = []

        def type_into_the_dialog() -> None:
            if finished:  # the store is open: stop, or the next test's dialog gets typed into
                return
            dialog = QApplication.activeModalWidget()
            if dialog is None or getattr(dialog, "busy", True):
                QTimer.singleShot(20, type_into_the_dialog)
                return
            opened.append(dialog.status.text())  # what the person read before typing
            dialog.password.setText(next(steps, ""))
            dialog.submit.click()
            QTimer.singleShot(20, type_into_the_dialog)

        QTimer.singleShot(0, type_into_the_dialog)
        try:
            project = _open_store(url, None, screenshot=False)
        finally:
            finished.append(True)
        assert any("password authentication failed" in text for text in opened)
    else:
        from annotator.gui.curator.open_project import OpenProjectDialog

        opener = OpenProjectDialog(opened.append)
        qtbot.addWidget(opener)
        opener.show()
        opener.location.setText(url)
        opener.open_button.click()
        qtbot.waitUntil(lambda: opener.login is not None and opener.login.isVisible(),
                        timeout=30_000)
        login = opener.login
        assert login.login.text() == team_store["roles"]["cu"]
        _enter(qtbot, login, "curator-wrong-9")
        qtbot.waitUntil(lambda: "password authentication failed" in login.status.text(),
                        timeout=30_000)
        assert "curator-wrong-9" not in login.status.text()
        _enter(qtbot, login, "curator-pass-1")
        qtbot.waitUntil(lambda: bool(opened), timeout=30_000)
        project = opened[0]
    try:
        assert resolve_actor(project, None) == "cu"
    finally:
        project.close()
    assert not any("curator-pass-1" in r.getMessage() or "curator-wrong-9" in r.getMessage()
                   for r in caplog.records)


for _mark in NEEDS_CLUSTER:
    test_the_server_checks_the_dialogs_password = _mark(test_the_server_checks_the_dialogs_password)
