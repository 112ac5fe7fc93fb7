"""Logins checked by PostgreSQL itself, on the test's own cluster: scram-sha-256 over TLS
(``hostssl``, a certificate for 127.0.0.1, clients with ``sslmode=verify-full``).

The shared server trusts local connections, so this starts its own: ``initdb`` and
``pg_ctl`` refuse root, so they run as ``postgres`` (``runuser``) in a folder it owns, on a
free port; it is stopped at the end.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from annotator.errors import ProjectError

ADMIN_PASSWORD = "admin-secret-1"
pytestmark = [
    pytest.mark.postgres,
    pytest.mark.skipif(
        shutil.which("initdb") is None or shutil.which("runuser") is None
        or shutil.which("openssl") is None or os.geteuid() != 0,
        reason="needs initdb, pg_ctl, openssl and root (to run them as postgres)",
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _as_postgres(*argv: str) -> None:
    subprocess.run(["runuser", "-u", "postgres", "--", *argv], check=True,
                   capture_output=True, timeout=120)


@pytest.fixture(scope="module")
def cluster() -> Iterator[dict[str, Any]]:
    base = Path(tempfile.mkdtemp(prefix="annotator-pg-"))
    data, pwfile = base / "data", base / "pw"
    pwfile.write_text(ADMIN_PASSWORD + "\n")
    cert, key = base / "server.crt", base / "server.key"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
                    "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=120)
    key.chmod(0o600)
    shutil.chown(base, "postgres")
    for path in (pwfile, cert, key):
        shutil.chown(path, "postgres")
    port = _free_port()
    _as_postgres("initdb", "-D", str(data), "-U", "postgres", f"--pwfile={pwfile}",
                 "--auth-host=scram-sha-256", "--auth-local=scram-sha-256")
    # TLS only from the network side, and every login checked by SCRAM-SHA-256.
    (data / "pg_hba.conf").write_text(
        "hostssl all all 127.0.0.1/32 scram-sha-256\n"
        "hostnossl all all 127.0.0.1/32 reject\n"
    )
    options = (f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c ssl=on"
               f" -c ssl_cert_file={cert} -c ssl_key_file={key}"
               " -c password_encryption=scram-sha-256")
    _as_postgres("pg_ctl", "-D", str(data), "-o", options, "-l", str(base / "log"),
                 "-w", "start")
    tls = f"sslmode=verify-full&sslrootcert={cert}"
    try:
        with psycopg.connect(host="127.0.0.1", port=port, user="postgres",
                             password=ADMIN_PASSWORD, dbname="postgres", autocommit=True,
                             sslmode="verify-full", sslrootcert=str(cert)) as conn:
            conn.execute("CREATE DATABASE team")
        yield {"port": port, "cert": cert, "tls": tls, "base": base,
               "admin": f"postgresql://postgres:{ADMIN_PASSWORD}@127.0.0.1:{port}/team?{tls}"}
    finally:
        subprocess.run(["runuser", "-u", "postgres", "--", "pg_ctl", "-D", str(data),
                        "-m", "immediate", "stop"], capture_output=True, timeout=120)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def team_store(cluster: dict[str, Any]) -> dict[str, Any]:
    from annotator.services.users import add_user, list_users, reset_password
    from annotator.store.project import open_project

    admin = open_project(cluster["admin"])
    try:
        add_user(admin, "(setup)", "cu", ["curator"])
        add_user(admin, "cu", "a1", ["annotator"])
        reset_password(admin, "cu", "curator-pass-1")
        reset_password(admin, "a1", "annotator-pass-1")
        roles = {u.name: u.db_role for u in list_users(admin)}
    finally:
        admin.close()
    return {**cluster, "roles": roles}


def _url(store: dict[str, Any], name: str) -> str:
    return f"postgresql://{store['roles'][name]}@127.0.0.1:{store['port']}/team?{store['tls']}"


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
