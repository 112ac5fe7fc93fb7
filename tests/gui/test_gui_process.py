"""Whole-process tests: a killed app loses nothing it acknowledged; screenshots render."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.gui
HERE = Path(__file__).parent
ACKS = 40


def test_sigkill_loses_no_acknowledged_edit(project_dir: Path) -> None:
    from annotator.services import annotating
    from annotator.store.history import entries
    from annotator.store.project import open_project

    process = subprocess.Popen(
        [sys.executable, str(HERE / "edit_forever.py"), str(project_dir), "a1", "T1"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    acked: list[tuple[str, object]] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:  # blocks until the next ack: no sleeps, no polling
            if line.startswith("ack "):
                key, value = json.loads(line[4:])
                acked.append((key, value))
                if len(acked) >= ACKS:
                    break
    finally:
        process.kill()  # SIGKILL: no chance to clean up
        process.wait(timeout=30)
    assert len(acked) == ACKS and process.returncode == -9
    project = open_project(project_dir, create=False, backup=False)
    try:
        with project.tx() as session:
            saved = [(e.key, e.after) for e in entries(session) if e.action == "label"]
        missing = [a for a in acked if a not in saved]
        assert missing == []
        # the labels agree with the history: each key holds its last recorded value
        labels = annotating.view(project, "a1", "T1").labels
        for key in {k for k, _ in acked}:
            assert labels[key] == [after for k, after in saved if k == key][-1]
    finally:
        project.close()


def test_screenshot_command_renders_the_page(project_dir: Path, tmp_path: Path) -> None:
    from PIL import Image, ImageStat

    out = tmp_path / "annotate.png"
    result = subprocess.run(
        [sys.executable, "-m", "annotator", "--project", str(project_dir), "--as", "a1", "gui",
         "--page", "annotate", "--screenshot", str(out), "--size", "1366x768", "--case", "D1"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    image = Image.open(out)
    assert image.size == (1366, 768)
    # the CT slice is on screen: the viewer's middle is not one flat colour
    middle = image.crop((600, 300, 760, 460)).convert("L")
    assert ImageStat.Stat(middle).stddev[0] > 10


def test_screenshot_refuses_a_bad_size_in_one_line(project_dir: Path, tmp_path: Path) -> None:
    out = tmp_path / "default.png"
    bad = subprocess.run(
        [sys.executable, "-m", "annotator", "--project", str(project_dir), "gui",
         "--screenshot", str(out), "--size", "12x5"],
        capture_output=True, text=True, timeout=120,
    )
    assert bad.returncode == 2 and "too small" in bad.stderr and "Traceback" not in bad.stderr
