"""Setting up a team store: the first password is a curator's, set through the admin URL.

Before, whoever set a password first switched logins on: an annotator doing so locked the
curator out (no command gave him one back), and anyone could set the curator's password and
take the account. ``authenticate`` also skipped scrypt for users without a password.
"""

from __future__ import annotations

import hashlib
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select, update

import annotator.cli
from annotator.domain import passwords
from annotator.domain.passwords import hash_password
from annotator.errors import PermissionDenied
from annotator.services.users import (
    STORE_ADMIN_ACTOR,
    add_user,
    authenticate,
    list_users,
    logins_required,
    resolve_actor,
    set_password,
)
from annotator.store.history import entries
from annotator.store.project import open_project
from annotator.store.schema import User

# The administrative URL's own logins: the owner's connection, even under the fixture switch.
pytestmark = pytest.mark.admin_url

_SERVER = "host=127.0.0.1 port=5432 user=postgres"


@pytest.fixture
def member_url(pg_url: str) -> Iterator[str]:
    """The store at ``pg_url`` through a database role that may read and write its rows but
    does not own its tables: what an annotator's machine is given (see docs/security.md)."""
    import psycopg

    role = f"annotator_member_{uuid.uuid4().hex[:10]}"
    database = pg_url.rsplit("/", 1)[1]
    open_project(pg_url).close()  # the schema exists before the grants
    with psycopg.connect(f"{_SERVER} dbname={database}", autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{role}" LOGIN')
        conn.execute(f'GRANT CONNECT ON DATABASE "{database}" TO "{role}"')
        conn.execute(f'GRANT USAGE ON SCHEMA public TO "{role}"')
        conn.execute(f'GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public'
                     f' TO "{role}"')
        conn.execute(f'GRANT USAGE ON ALL SEQUENCES IN SCHEMA public TO "{role}"')
    yield f"postgresql://{role}@127.0.0.1:5432/{database}"
    with psycopg.connect(f"{_SERVER} dbname={database}", autocommit=True) as conn:
        conn.execute(f'DROP OWNED BY "{role}"')
        conn.execute(f'REVOKE CONNECT ON DATABASE "{database}" FROM "{role}"')
    with psycopg.connect(f"{_SERVER} dbname=postgres", autocommit=True) as conn:
        conn.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE usename = %s", [role]
        )
        conn.execute(f'DROP ROLE "{role}"')


CLI = Callable[..., tuple[int, str]]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> CLI:
    monkeypatch.delenv("ANNOTATOR_PASSWORD", raising=False)

    def run(url: str, *argv: str) -> tuple[int, str]:
        code = annotator.cli.main(["--project", url, *argv])
        captured = capsys.readouterr()
        return code, captured.out + captured.err

    return run


def _secret(tmp_path: Path, name: str, value: str) -> str:
    path = tmp_path / f"{name}.pw"
    path.write_text(value + "\n")
    return str(path)


def _team(url: str) -> None:
    project = open_project(url)
    add_user(project, "(setup)", "Kim", ["curator"])
    add_user(project, "Kim", "Ada", ["annotator"])
    add_user(project, "Kim", "Sam", ["adjudicator"])
    project.close()


def _logins_on(url: str) -> bool:
    project = open_project(url)
    try:
        return logins_required(project)
    finally:
        project.close()


def _login_url(pg_url: str, name: str) -> str:
    """The store through ``name``'s own login role (the shared server trusts local logins;
    tests/store/test_rls_login.py has the server check passwords)."""
    project = open_project(pg_url)
    try:
        role = {u.name: u.db_role for u in list_users(project)}[name]
    finally:
        project.close()
    return pg_url.replace("postgresql://postgres@", f"postgresql://{role}@")


@pytest.mark.postgres
def test_a_shared_member_role_is_refused_by_the_wall(
    pg_url: str, member_url: str, tmp_path: Path, cli: CLI
) -> None:
    """The old advice (one role for every machine) meets row-level security: it reads
    nothing, so the app says to connect as one's own login role."""
    _team(pg_url)
    code, out = cli(member_url, "--as", "Ada", "users", "passwd", "Ada",
                    "--new-password-file", _secret(tmp_path, "ada", "ada's long secret"))
    assert code == 2 and "is no login of this store" in out and "Traceback" not in out


@pytest.mark.postgres
def test_an_annotator_cannot_set_the_first_password_and_lock_the_curator_out(
    pg_url: str, tmp_path: Path, cli: CLI
) -> None:
    _team(pg_url)
    ada_pw = _secret(tmp_path, "ada", "ada's long secret")
    # Through the owner's connection the app's own first-password rule holds.
    code, out = cli(pg_url, "--as", "Ada", "users", "passwd", "Ada",
                    "--new-password-file", ada_pw)
    assert code == 2 and "the first one must be a curator's own" in out
    assert "Ada is not a curator" in out and "Traceback" not in out
    assert not _logins_on(pg_url)  # logins still off: the curator can act
    # Through her own login the server checks passwords per role: hers locks nobody out.
    ada = _login_url(pg_url, "Ada")
    assert cli(ada, "users", "passwd", "Ada", "--new-password-file", ada_pw)[0] == 0
    code, out = cli(ada, "users", "passwd", "Kim", "--new-password-file", ada_pw)
    assert code == 2 and "needs the curator role" in out
    assert cli(_login_url(pg_url, "Kim"), "users", "add", "Eve", "--role", "annotator")[0] == 0

    project = open_project(pg_url)  # the service answers the same to any caller
    with pytest.raises(PermissionDenied, match="Ada is not a curator"):
        set_password(project, "Ada", "Ada", "ada's long secret")
    project.close()


@pytest.mark.postgres
def test_nobody_can_claim_the_curator_by_setting_his_first_password(
    pg_url: str, tmp_path: Path, cli: CLI
) -> None:
    _team(pg_url)
    mallory_pw = _secret(tmp_path, "mallory", "mallory's secret")
    # Her login is her: claiming Kim's name is refused, and so is setting his password.
    ada = _login_url(pg_url, "Ada")
    code, out = cli(ada, "--as", "Kim", "users", "passwd", "Kim",
                    "--new-password-file", mallory_pw)
    assert code == 2 and "this connection is Ada's login" in out, out
    code, out = cli(ada, "users", "passwd", "Kim", "--new-password-file", mallory_pw)
    assert code == 2 and "needs the curator role" in out
    assert not _logins_on(pg_url)

    # The curator sets his through the administrative URL; from then on its logins are on.
    kim_pw = _secret(tmp_path, "kim", "kim's long secret")
    code, out = cli(pg_url, "users", "passwd", "Kim", "--new-password-file", kim_pw)
    assert code == 0, out
    project = open_project(pg_url)
    assert logins_required(project)
    assert resolve_actor(project, "Kim", "kim's long secret") == "Kim"
    with pytest.raises(PermissionDenied, match="login failed"):
        resolve_actor(project, "Kim", "mallory's secret")
    project.close()


def _lock_out_as_before_the_fix(url: str) -> None:
    """What the old app allowed: an annotator's password first, the curator with none."""
    project = open_project(url)
    with project.tx() as session:
        session.execute(update(User).where(User.name == "Ada")
                        .values(password_hash=hash_password("ada's long secret")))
    project.close()


@pytest.mark.postgres
def test_a_locked_out_curator_gets_back_in_through_the_administrative_url(
    pg_url: str, tmp_path: Path, cli: CLI,
) -> None:
    _team(pg_url)
    _lock_out_as_before_the_fix(pg_url)
    kim_pw = _secret(tmp_path, "kim", "kim's long secret")
    code, out = cli(pg_url, "--as", "Kim", "--password-file", kim_pw,
                    "users", "add", "Eve", "--role", "annotator")
    assert code == 2 and "login failed for 'Kim'" in out  # locked out

    # The annotator cannot use the recovery path: her login is no curator's.
    code, out = cli(_login_url(pg_url, "Ada"), "users", "passwd", "Kim",
                    "--new-password-file", kim_pw)
    assert code == 2 and "needs the curator role" in out

    # The curator, holding the administrative URL, sets his own without SQL and a login.
    code, out = cli(pg_url, "users", "passwd", "Kim", "--new-password-file", kim_pw)
    assert code == 0, out
    assert cli(pg_url, "--as", "Kim", "--password-file", kim_pw,
               "users", "add", "Eve", "--role", "annotator")[0] == 0
    project = open_project(pg_url)
    with project.read() as session:
        resets = [e for e in entries(session, action="password_set")]
    assert [(e.actor, e.after) for e in resets] == [(STORE_ADMIN_ACTOR, {"name": "Kim"})]
    project.close()


def _count_scrypt(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    calls: list[Any] = []
    real = hashlib.scrypt

    def counting(*args: Any, **kwargs: Any) -> bytes:
        calls.append(args)
        return real(*args, **kwargs)

    monkeypatch.setattr(passwords.hashlib, "scrypt", counting)
    return calls


def test_authentication_costs_one_scrypt_whether_or_not_the_user_or_password_exists(
    project_location: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = open_project(project_location)
    add_user(project, "(setup)", "Kim", ["curator"])
    add_user(project, "Kim", "Ada", ["annotator"])  # no password
    with project.tx() as session:
        kim = session.scalars(select(User).where(User.name == "Kim")).one()
        kim.password_hash = hash_password("kim's long secret")
    calls = _count_scrypt(monkeypatch)
    work = {}
    for name, password in [("Kim", "kim's long secret"), ("Kim", "a wrong guess"),
                           ("Ada", "a wrong guess"), ("Nobody", "a wrong guess")]:
        before = len(calls)
        try:
            authenticate(project, name, password)
        except PermissionDenied as exc:
            assert "unknown user or wrong password" in str(exc)
        work[(name, password)] = len(calls) - before
    assert set(work.values()) == {1}, work
    project.close()
