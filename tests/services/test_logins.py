"""Team store logins: salted scrypt hashes, every action authenticated once logins are on."""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import select

import annotator.cli
from annotator.domain.passwords import hash_password, verify_password
from annotator.errors import PermissionDenied, ValidationError
from annotator.services.users import add_user, logins_required, resolve_actor, set_password
from annotator.store.project import open_project
from annotator.store.schema import User

# The administrative URL's own logins: the owner's connection, even under the fixture switch.
pytestmark = pytest.mark.admin_url


def test_hashes_are_salted_scrypt_and_verify() -> None:
    one, two = hash_password("correct horse"), hash_password("correct horse")
    assert one != two and one.startswith("scrypt$16384$8$1$")
    assert verify_password("correct horse", one) and not verify_password("wrong horse", one)
    assert not verify_password("correct horse", "plain text")
    with pytest.raises(ValueError, match="at least 8"):
        hash_password("short")


@pytest.mark.postgres
def test_a_team_store_with_logins_authenticates_every_actor(
    pg_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    project = open_project(pg_url)
    add_user(project, "(setup)", "Kim", ["curator"])
    add_user(project, "Kim", "Ada", ["annotator"])
    assert not logins_required(project)  # setup: no password yet
    with pytest.raises(ValidationError, match="at least 8"):
        set_password(project, "Kim", "Kim", "short")
    with pytest.raises(PermissionDenied):
        set_password(project, "Ada", "Kim", "ada sets kim")  # only curators set others'
    set_password(project, "Kim", "Kim", "kim's long secret")
    assert logins_required(project)
    with project.tx() as session:
        stored = session.scalars(select(User.password_hash).where(User.name == "Kim")).one()
    assert stored and "kim's long secret" not in stored
    with pytest.raises(PermissionDenied, match="needs a login"):
        resolve_actor(project, "Kim")
    with pytest.raises(PermissionDenied, match="login failed"):
        resolve_actor(project, "Kim", "guess")
    with pytest.raises(PermissionDenied, match="login failed"):
        resolve_actor(project, "Ada", "anything at all")  # no password set: cannot act
    assert resolve_actor(project, "Kim", "kim's long secret") == "Kim"
    project.close()

    def cli(*argv: str) -> tuple[int, str]:
        code = annotator.cli.main(["--project", pg_url, *argv])
        return code, capsys.readouterr().err

    monkeypatch.delenv("ANNOTATOR_PASSWORD", raising=False)
    code, err = cli("--as", "Kim", "users", "add", "Eve", "--role", "curator")
    assert code == 2 and "needs a login" in err
    secret = tmp_path / "kim.txt"
    secret.write_text("kim's long secret\n")
    assert cli("--as", "Kim", "--password-file", str(secret), "users", "add", "Eve",
               "--role", "annotator")[0] == 0
    monkeypatch.setenv("ANNOTATOR_PASSWORD", "wrong one")
    code, err = cli("--as", "Kim", "users", "add", "Mallory", "--role", "curator")
    assert code == 2 and "login failed for 'Kim'" in err


def test_a_single_user_sqlite_project_stays_a_name_choice(tmp_path: Path) -> None:
    project = open_project(tmp_path / "p")
    add_user(project, "(setup)", "Kim", ["curator"])
    set_password(project, "Kim", "Kim", "kim's long secret")
    assert not logins_required(project)
    assert resolve_actor(project, "Kim") == "Kim"
    project.close()
