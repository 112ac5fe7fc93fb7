"""The PyInstaller build (packaging/): the frozen app builds the demo from its bundled data and
renders it offscreen. Slow (the build takes minutes): runs only with ANNOTATOR_SLOW=1, and
builds dist/annotator first if it is not there (ANNOTATOR_REBUILD=1 forces a fresh build)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]
ROOT = Path(__file__).resolve().parents[2]
APP = ROOT / "dist" / "annotator" / "annotator"


def _clean_env() -> dict[str, str]:
    """No trace of the checkout or its venv: the frozen app must bring everything."""
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "ANNOTATOR_USER")}
    env["QT_QPA_PLATFORM"] = "offscreen"
    return env


def test_frozen_app_opens_the_demo_and_renders_it(tmp_path: Path) -> None:
    from PIL import Image, ImageStat

    if not APP.exists() or os.environ.get("ANNOTATOR_REBUILD") == "1":
        subprocess.run(["bash", str(ROOT / "packaging" / "build.sh")], check=True, timeout=1500)
    project = tmp_path / "demo"
    demo = subprocess.run([str(APP), "--project", str(project), "demo"], cwd=tmp_path,
                          env=_clean_env(), capture_output=True, text=True, timeout=600)
    assert demo.returncode == 0, demo.stderr
    assert "cases: 14" in demo.stdout
    out = tmp_path / "frozen.png"
    shot = subprocess.run(
        [str(APP), "--project", str(project), "gui", "--page", "annotate",
         "--screenshot", str(out), "--size", "1366x768"],
        cwd=tmp_path, env=_clean_env(), capture_output=True, text=True, timeout=300,
    )
    assert shot.returncode == 0, shot.stderr
    image = Image.open(out)
    assert image.size == (1366, 768)
    # Not blank: the page and its image viewer drew something with contrast.
    assert ImageStat.Stat(image.convert("L")).stddev[0] > 10
