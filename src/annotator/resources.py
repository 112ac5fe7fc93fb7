"""Locating runtime assets (demo cases, icons) shipped inside the ``annotator`` package.

They are package data read through ``importlib.resources``, so a checkout, an editable
install, an installed wheel and the PyInstaller build (which copies them beside the frozen
modules) all find the same files in the same way.
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path

DEMO_DATA = "demo_data"
JUDGED_RUNS = "judged_runs"  # kept out of demo_data: the demo imports every JSON there as a case
ICON = "assets/icons/annotator.svg"


def asset_path(relative: str) -> Path:
    """Return the filesystem path of a packaged asset such as ``demo_data`` or ``ICON``.

    Raises FileNotFoundError naming the place looked at (a broken install or build).
    """
    resource = files("annotator").joinpath(relative)
    # The package is always installed unpacked (wheel or PyInstaller folder), so every
    # resource is a real file; importers and Qt need paths, not open streams.
    if isinstance(resource, Path) and resource.exists():
        return resource
    raise FileNotFoundError(f"asset {relative!r} is missing from the annotator package: {resource}")


def demo_cases_dir() -> Path:
    """The folder of bundled demo draft cases."""
    return asset_path(DEMO_DATA)


def judged_runs_dir() -> Path:
    """The folder of the scoring core's judged runs the demo scores (``judge-import``)."""
    return asset_path(JUDGED_RUNS)


def icon_path() -> Path:
    """The app's icon (SVG)."""
    return asset_path(ICON)
