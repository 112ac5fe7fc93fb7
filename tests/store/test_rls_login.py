"""Logins checked by PostgreSQL itself, on the test's own cluster (``pg_cluster``):
scram-sha-256 over TLS (``hostssl``, a certificate for 127.0.0.1, ``sslmode=verify-full``).
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg
import pytest

from annotator.errors import LoginRefused, ProjectError
from pg_cluster import ADMIN_PASSWORD, NEEDS_CLUSTER, cluster, login_url, team_store

__all__ = ["cluster", "team_store"]  # fixtures, used by name
pytestmark = NEEDS_CLUSTER
_url = login_url


def test_the_server_checks_the_password(team_store: dict[str, Any]) -> None:
    from annotator.services.users import resolve_actor
    from annotator.store.project import open_project

    project = open_project(_url(team_store, "a1"), password="annotator-pass-1")
    try:
        assert resolve_actor(project, None) == "a1"
    finally:
        project.close()
    with pytest.raises(ProjectError) as refused:
        open_project(_url(team_store, "a1"), password="annotator-pass-2")
    assert "password authentication failed" in str(refused.value)
    assert "annotator-pass-2" not in str(refused.value)


def test_the_store_keeps_only_scram_verifiers(team_store: dict[str, Any]) -> None:
    with psycopg.connect(host="127.0.0.1", port=team_store["port"], user="postgres",
                         password=ADMIN_PASSWORD, dbname="team", sslmode="verify-full",
                         sslrootcert=str(team_store["cert"])) as conn:
        stored = conn.execute("SELECT rolpassword FROM pg_authid WHERE rolname = %s",
                              (team_store["roles"]["a1"],)).fetchone()
    assert stored is not None and stored[0].startswith("SCRAM-SHA-256$")


def test_a_connection_without_tls_is_refused(team_store: dict[str, Any]) -> None:
    with pytest.raises(psycopg.OperationalError):
        psycopg.connect(host="127.0.0.1", port=team_store["port"], dbname="team",
                        user=team_store["roles"]["a1"], password="annotator-pass-1",
                        sslmode="disable")


def test_a_person_changes_their_own_password(team_store: dict[str, Any]) -> None:
    from annotator.services.users import set_password
    from annotator.store.project import open_project

    project = open_project(_url(team_store, "a1"), password="annotator-pass-1")
    try:
        set_password(project, "a1", "a1", "annotator-pass-3")
    finally:
        project.close()
    open_project(_url(team_store, "a1"), password="annotator-pass-3").close()
    with pytest.raises(ProjectError):
        open_project(_url(team_store, "a1"), password="annotator-pass-1")


def test_the_command_line_logs_in_through_the_server(
    team_store: dict[str, Any], tmp_path: Path
) -> None:
    wrong = tmp_path / "wrong"
    wrong.write_text("nope\n")
    done = subprocess.run(
        [sys.executable, "-m", "annotator", "--project", _url(team_store, "cu"),
         "--password-file", str(wrong), "users", "list"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2
    assert "password authentication failed" in done.stderr
    assert "Traceback" not in done.stderr
    right = tmp_path / "right"
    right.write_text("curator-pass-1\n")
    done = subprocess.run(
        [sys.executable, "-m", "annotator", "--project", _url(team_store, "cu"),
         "--password-file", str(right), "users", "add", "a2", "--role", "annotator"],
        capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 0, done.stderr


def test_a_login_by_name_and_password_is_the_servers_to_refuse(
    team_store: dict[str, Any]
) -> None:
    """The core's login for the GUI: the store's URL (any or no user in it), a login name and
    a password; a refusal is one LoginRefused line without the password."""
    from annotator.services.users import resolve_actor
    from annotator.store.project import login_name, open_as_login, open_project

    bare = f"postgresql://127.0.0.1:{team_store['port']}/team?{team_store['tls']}"
    with pytest.raises(LoginRefused) as asked:
        open_project(_url(team_store, "cu"))  # no password: the server asks for one
    assert "asks for the password" in str(asked.value)
    assert login_name(_url(team_store, "cu")) == team_store["roles"]["cu"]
    with pytest.raises(LoginRefused) as refused:
        open_as_login(bare, team_store["roles"]["cu"], "not-the-password-7")
    assert "wrong login name or password" in str(refused.value)
    assert "not-the-password-7" not in str(refused.value)
    assert refused.value.__cause__ is None and refused.value.__suppress_context__
    project = open_as_login(bare, f" {team_store['roles']['cu']} ", "curator-pass-1")
    try:
        assert resolve_actor(project, None) == "cu"
        assert "curator-pass-1" not in project.location
    finally:
        project.close()
