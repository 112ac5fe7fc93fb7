"""Locating runtime assets (demo cases, icons) in a checkout, an installed package or a bundle.

One function so that the PyInstaller build and ``pip install`` find the same files.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path


def _roots() -> list[Path]:
    roots: list[Path] = []
    env = os.environ.get("ANNOTATOR_ASSETS")
    if env:
        roots.append(Path(env))
    frozen = getattr(sys, "_MEIPASS", None)
    if frozen:
        roots.append(Path(frozen))
    # src/annotator/resources.py -> repository root (editable install or checkout)
    roots.append(Path(__file__).resolve().parents[2])
    roots.append(Path(sys.prefix) / "share" / "annotator")
    return roots


def asset_path(relative: str) -> Path:
    """Return the path of a bundled asset such as ``cases/demo`` or ``resources/icons``.

    Raises FileNotFoundError naming every place looked at.
    """
    tried = []
    for root in _roots():
        candidate = root / relative
        if candidate.exists():
            return candidate
        tried.append(str(candidate))
    raise FileNotFoundError(f"asset {relative!r} not found (looked in: {', '.join(tried)})")


def demo_cases_dir() -> Path:
    """The folder of bundled demo draft cases."""
    return asset_path("cases/demo")


def judged_runs_dir() -> Path:
    """The folder of the scoring core's judged runs the demo scores (``judge-import``)."""
    return asset_path("cases/judged-runs")
