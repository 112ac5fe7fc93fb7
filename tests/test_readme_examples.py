"""The README's command-line examples work as written: both marked blocks run, line by line,
with `annotator` on PATH (as after `source .venv/bin/activate`), from the checkout, on a fresh
demo project in a temporary home (as `scripts/run-demo.sh` leaves it). `gui` lines are left
out: they open a window."""

from __future__ import annotations

import os
import re
import shlex
import subprocess
from pathlib import Path

import pytest

from annotator.cli import main

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _block(marker: str) -> list[str]:
    text = README.read_text(encoding="utf-8")
    found = re.search(rf"<!-- examples: {marker} -->\n```bash\n(.*?)```", text, re.S)
    assert found, f"README has no '{marker}' example block"
    return [line for line in found.group(1).splitlines() if line.strip()]


def test_the_activation_is_said_before_the_first_example() -> None:
    text = README.read_text(encoding="utf-8")
    section = text[text.index("## The command line"):]
    assert section.index("source .venv/bin/activate") < section.index("```bash")


def test_the_readme_examples_run_as_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = [line for line in _block("demo") + _block("own project")
             if not re.search(r"\bgui\b", line.split("#")[0])]
    assert len(lines) >= 30
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.chdir(ROOT)  # the paths of the examples are the checkout's
    assert main(["--project", str(tmp_path / "annotator-demo"), "demo"]) == 0  # run-demo.sh
    for line in lines:
        if line.startswith("annotator "):  # in this process: the same code, without start-up
            argv = [os.path.expanduser(a) for a in shlex.split(line, comments=True)[1:]]
            code = main(argv)
        else:
            code = subprocess.run(["bash", "-c", line], capture_output=True).returncode
        if code != 0:
            pytest.fail(f"{line}\nexit {code}: {capsys.readouterr().err.strip()}")
