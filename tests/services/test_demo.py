"""The demo project builds through the services and reaches every state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.cli import main


def test_demo_builds_and_reports_states(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    location = str(tmp_path / "demo")
    assert main(["--project", location, "demo"]) == 0
    capsys.readouterr()
    assert main(["--project", location, "status", "--json"]) == 0
    counts = json.loads(capsys.readouterr().out)
    assert counts["cases"] >= 12 and counts["dicom_images"] > 0
    assert counts["green_lit"] >= 3 and counts["excluded"] >= 1 and counts["in_review"] >= 1
    assert counts["annotating"] >= 1 and counts["needs_fix"] >= 1
    assert counts["annotators"] == 3

    # a second build into the same folder is refused with one line, nothing changed
    assert main(["--project", location, "demo"]) == 2
    assert "already holds a project" in capsys.readouterr().err
    assert main(["--project", location, "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == counts
