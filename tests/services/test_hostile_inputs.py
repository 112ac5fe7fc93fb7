"""Issue 23: names, password files, echoed values and the error log meet hostile input."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from annotator.errors import ValidationError
from annotator.services.users import add_user, list_users


@pytest.mark.parametrize("name", ["Dr\tAda", "Dr\nAda", "Dr\rAda", "Dr\u2028Ada", "Dr\x85Ada"])
def test_a_user_name_with_a_tab_or_line_break_is_refused(project: Any, name: str) -> None:
    add_user(project, "(setup)", "cu", ["curator"])
    with pytest.raises(ValidationError, match="control character"):
        add_user(project, "cu", name, ["annotator"])
    assert [u.name for u in list_users(project)] == ["cu"]


def test_a_password_file_that_is_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """Run in a child with a timeout, so the hang this was shows as a failure, not a stall."""
    fifo = tmp_path / "pw"
    os.mkfifo(fifo)
    folder = tmp_path / "p"
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "data")}
    base = [sys.executable, "-m", "annotator", "--project", str(folder)]
    subprocess.run([*base, "users", "add", "Kim", "--role", "curator"], env=env, check=True,
                   capture_output=True, timeout=60)
    done = subprocess.run([*base, "users", "passwd", "Kim", "--new-password-file", str(fifo)],
                          env=env, capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 2
    assert done.stderr.strip() == (f"annotator: error: cannot read the password file {fifo}: not a"
                                   " regular file (a folder, device, FIFO or socket)")


def test_the_error_log_keeps_a_lone_surrogate(tmp_path: Path, capsys: Any,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    import annotator.cli
    import annotator.cli.project as commands

    def broken(project: Any) -> Any:
        raise RuntimeError("a file named \udcff broke it")

    monkeypatch.setattr(commands, "project_status", broken)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert annotator.cli.main(["--project", str(tmp_path / "p"), "status"]) == 2
    err = capsys.readouterr().err.strip()
    log = Path(err.rsplit("details in ", 1)[1].rstrip(")"))
    assert "a file named \\udcff broke it" in log.read_text("utf-8")
