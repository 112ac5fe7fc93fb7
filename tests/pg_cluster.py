"""The tests' own PostgreSQL cluster for logins checked by the server: scram-sha-256 over TLS
(``hostssl``, a certificate for 127.0.0.1, clients with ``sslmode=verify-full``), and a team
store on it with a curator ``cu`` and an annotator ``a1`` who have passwords.

The shared server trusts local connections, so this starts its own: ``initdb`` and
``pg_ctl`` refuse root, so they run as ``postgres`` (``runuser``) in a folder it owns, on a
free port; it is stopped at the end. A test module imports the fixtures it uses
(``from pg_cluster import cluster, team_store``) and marks itself with ``NEEDS_CLUSTER``.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

ADMIN_PASSWORD = "admin-secret-1"
NEEDS_CLUSTER = [
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


def login_url(store: dict[str, Any], name: str) -> str:
    """``name``'s login URL on the cluster's team store (no password in it)."""
    return f"postgresql://{store['roles'][name]}@127.0.0.1:{store['port']}/team?{store['tls']}"
