"""The first hour: `demo` without --project, help that names --project, and `gui` that checks
for a display and Qt's system libraries before Qt can abort."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from annotator import displaycheck
from annotator.cli import PROJECT_FREE, build_parser, main

ROOT = Path(__file__).resolve().parents[1]


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(action.choices)


def test_every_command_that_needs_a_project_says_so_in_its_help() -> None:
    for name, parser in _commands().items():
        text = " ".join(parser.format_help().split())
        if name in PROJECT_FREE:
            assert "needs --project" not in text, name
        else:
            assert f"usage: annotator --project PATH_OR_URL {name}" in text, name
            assert "needs --project PATH_OR_URL" in text, name
    users = _commands()["users"]  # nested commands too
    nested = next(a for a in users._actions if isinstance(a, argparse._SubParsersAction))
    assert nested.choices["add"].format_usage().startswith(
        "usage: annotator --project PATH_OR_URL users add")
    top = build_parser().format_help()
    assert "need --project" in top and "sme-lint" in top.split("need --project")[0]


@pytest.mark.parametrize("argv", [["status"], ["import", "drafts"], ["users", "list"]])
def test_a_command_without_its_project_names_the_option(argv, capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(argv) == 2
    assert "needs --project" in capsys.readouterr().err


def test_the_project_free_commands_really_run_without_one(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "r.csv").write_text("unit,a,b\n1,x,x\n2,y,x\n3,y,y\n")
    assert main(["stats", "--level", "nominal", str(tmp_path / "r.csv")]) == 0
    assert main(["sme-lint", str(tmp_path / "none.yaml")]) != 0  # a finding, not "--project"
    assert "needs --project" not in capsys.readouterr().err


def test_demo_without_a_project_builds_in_the_users_data_folder(
    tmp_path, monkeypatch, capsys
) -> None:  # type: ignore[no-untyped-def]
    import annotator.cli.project as project_cli

    built: list[str] = []

    def fake_build(location: str) -> str:  # the real build is covered by tests/demo
        built.append(location)
        Path(location).mkdir(parents=True)
        (Path(location) / "project.sqlite").write_bytes(b"")
        return f"demo project ready at {location}"

    monkeypatch.setattr(project_cli, "build_demo", fake_build)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    assert main(["demo"]) == 0
    where = tmp_path / "data" / "annotator" / "demo"
    assert built == [str(where)]
    out = capsys.readouterr().out
    assert f"annotator --project {where} gui" in out
    # a second run keeps the project and says where it is
    assert main(["demo"]) == 0
    assert built == [str(where)]
    assert f"already in {where}" in capsys.readouterr().out


def test_demo_uses_the_home_data_folder_without_xdg(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from annotator.userdirs import user_data_dir

    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.setenv("HOME", str(tmp_path))
    assert user_data_dir() == tmp_path / ".local" / "share" / "annotator"


def _no_display_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM")}
    env["PYTHONPATH"] = str(ROOT / "src")
    return env


def test_gui_without_a_display_is_one_clear_message_not_a_qt_abort(tmp_path) -> None:  # type: ignore[no-untyped-def]
    done = subprocess.run(
        [sys.executable, "-m", "annotator", "--project", str(tmp_path / "p"), "gui"],
        env=_no_display_env(), capture_output=True, text=True, timeout=120,
    )
    assert done.returncode == 2  # not 134 (Qt's abort)
    assert done.stderr == displaycheck.NO_DISPLAY + "\n"
    assert "qt.qpa" not in done.stderr


def test_gui_with_a_missing_qt_library_names_the_install_command(monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("QT_QPA_PLATFORM", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    monkeypatch.setenv("DISPLAY", ":0")
    report = "\tlibxcb-cursor.so.0 => not found\n\tlibc.so.6 => /lib/libc.so.6 (0x1)\n"
    monkeypatch.setattr(displaycheck, "run_ldd", lambda library: report)
    assert main(["gui"]) == 2
    err = capsys.readouterr().err
    assert "libxcb-cursor.so.0" in err and "libqxcb.so" in err
    assert "  Debian/Ubuntu:  sudo apt-get install libxcb-cursor0" in err.splitlines()
    assert "  Fedora/RHEL:    sudo dnf install xcb-util-cursor" in err.splitlines()


def test_the_display_check_reads_ldd_and_knows_offscreen(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "libqwayland.so").write_bytes(b"")
    seen: list[Path] = []

    def ldd(library: Path) -> str:
        seen.append(library)
        return "\tlibwayland-cursor.so.0 => not found\n\tlibfoo.so.9 => not found\n"

    problem = displaycheck.display_problem({"WAYLAND_DISPLAY": "w-0"}, tmp_path, ldd)
    assert seen == [tmp_path / "libqwayland.so"]
    assert problem is not None
    assert "sudo apt-get install libwayland-cursor0 libfoo.so.9" in problem
    assert displaycheck.display_problem({"QT_QPA_PLATFORM": "offscreen"}, tmp_path, ldd) is None
    assert displaycheck.display_problem({"DISPLAY": ":0"}, tmp_path, ldd) is None  # no xcb here
