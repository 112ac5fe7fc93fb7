"""The command line: users, assignment with quotas, backup, one-line errors."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from annotator.cli import main
from factories import make_case, write_case_file


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_users_assign_quota_and_backup(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    p = ["--project", str(tmp_path / "p")]
    assert _run(capsys, *p, "users", "add", "Kim", "--role", "curator", "adjudicator")[0] == 0
    for name in ("Ada", "Ben", "Cy"):
        assert _run(capsys, *p, "users", "add", name, "--role", "annotator")[0] == 0
    code, out, _ = _run(capsys, *p, "users", "list", "--json")
    assert json.loads(out) == [
        {"name": "Ada", "roles": ["annotator"], "db_role": None},
        {"name": "Ben", "roles": ["annotator"], "db_role": None},
        {"name": "Cy", "roles": ["annotator"], "db_role": None},
        {"name": "Kim", "roles": ["adjudicator", "curator"], "db_role": None},
    ]
    cases = [make_case(f"C{i}") for i in range(6)]
    assert _run(capsys, *p, "import", str(write_case_file(tmp_path / "d", cases)))[0] == 0
    code, out, _ = _run(capsys, *p, "assign", "--quota", "Cy=1", "--quota", "Ben=3")
    # 6 cases x 2 = 12 places; Ada takes 6, Ben 3, Cy 1: two cases stay one annotator short
    assert code == 0 and "10 assignment(s) made" in out
    assert out.count("1 annotator(s) short") == 2
    code, out, _ = _run(capsys, *p, "status", "--json")
    assert json.loads(out)["annotators"] == 3

    # an annotator cannot assign: one line on stderr, exit 2
    code, _, err = _run(capsys, *p, "--as", "Ada", "assign")
    assert code == 2 and err.count("\n") == 1 and "curator" in err

    code, out, _ = _run(capsys, *p, "backup", str(tmp_path / "b.sqlite"))
    assert code == 0
    with sqlite3.connect(tmp_path / "b.sqlite") as conn:
        assert conn.execute("SELECT count(*) FROM cases").fetchone() == (6,)


def test_bad_project_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "file.txt"
    blocker.write_text("x")
    result = subprocess.run(
        [sys.executable, "-m", "annotator", "--project", str(blocker), "status"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        f"annotator: error: {blocker} is a file, not a project folder"
    ]


def test_an_empty_user_name_is_an_error_not_the_default_user(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import annotator.cli

    folder = str(tmp_path / "p")
    code = annotator.cli.main(["--project", folder, "users", "add", "Kim", "--role", "curator"])
    assert code == 0
    capsys.readouterr()
    code = annotator.cli.main(["--project", folder, "--as", "", "users", "add", "Eve",
                               "--role", "curator"])
    err = capsys.readouterr().err
    assert code != 0 and "empty user name" in err
    monkeypatch.setenv("ANNOTATOR_USER", " ")
    code = annotator.cli.main(["--project", folder, "users", "add", "Eve", "--role", "curator"])
    assert code != 0 and "empty user name" in capsys.readouterr().err
    monkeypatch.delenv("ANNOTATOR_USER")
    annotator.cli.main(["--project", folder, "users", "list", "--json"])
    assert "Eve" not in capsys.readouterr().out


def test_each_internal_error_gets_its_own_private_log_file(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import annotator.cli
    import annotator.cli.project as commands

    def broken(project):  # type: ignore[no-untyped-def]
        raise RuntimeError("a bug")

    monkeypatch.setattr(commands, "project_status", broken)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    folder = str(tmp_path / "p")
    logs = []
    for _ in range(2):
        assert annotator.cli.main(["--project", folder, "status"]) == 2
        err = capsys.readouterr().err.strip()
        assert err.startswith("annotator: internal error: RuntimeError: a bug (details in ")
        logs.append(Path(err.rsplit("details in ", 1)[1].rstrip(")")))
    assert logs[0] != logs[1] and all(p.parent == tmp_path / "data/annotator/logs" for p in logs)
    assert all("RuntimeError: a bug" in p.read_text() for p in logs)
    assert all(p.stat().st_mode & 0o777 == 0o600 for p in logs)


def test_a_reader_that_leaves_early_is_not_an_internal_error(tmp_path: Path) -> None:
    """``annotator ... | head -n 1``: the closed pipe ends the command quietly, no error log."""
    specs = tmp_path / "specs"
    specs.mkdir()
    for i in range(400):  # enough lint lines to overflow the pipe buffer while printing
        (specs / f"b{i:03}.yaml").write_text(f"code: X{i}\nlabel: broken\n", encoding="utf-8")
    env = {"XDG_DATA_HOME": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        f"'{sys.executable}' -m annotator sme-lint '{specs}' | head -n 1",
        shell=True, capture_output=True, text=True, env=env, timeout=120, check=False,
    )
    assert done.stdout.count("\n") == 1 and "b000.yaml" in done.stdout
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "data").exists() or not list((tmp_path / "data").rglob("*.log"))
