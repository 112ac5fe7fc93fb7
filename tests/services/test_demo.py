"""The demo project builds through the services and reaches every state."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.cli import main
from annotator.services.demo import PHYSICIANS, PLANTED_DEPARTURE


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

    # The physicians' planted reliability (services.demo.PLANTED_DEPARTURE) is recovered:
    # `quality` ranks them in that order, from calibration, gold, repeats and latent class.
    assert main(["--project", location, "quality", "--json"]) == 0
    snap = json.loads(capsys.readouterr().out)
    assert snap["ranking"] == sorted(PLANTED_DEPARTURE, key=PLANTED_DEPARTURE.__getitem__)
    assert snap["items"]["calibration"] >= 2 and snap["items"]["gold"] >= 3
    assert snap["items"]["repeats_done"] >= 3
    by_name = {r["rater"]: r for r in snap["raters"]}
    assert all(r["intra"] and r["gold"] and r["time"] for r in by_name.values())
    assert any(t["fast"] for t in by_name[PHYSICIANS[-1]]["time"])  # the rushed item

    # a second build into the same folder is refused with one line, nothing changed
    assert main(["--project", location, "demo"]) == 2
    assert "already holds a project" in capsys.readouterr().err
    assert main(["--project", location, "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == counts
