"""The file choosers of the round trip: the only place that opens a QFileDialog.

The actions call these through the module (``choosers.bundle_file(...)``), so a test can
replace them and drive the flows without a modal dialog; the work itself is done by
methods that take the paths (``RoundTripActions.open_bundle``, ``RoundTripView.import_files``).
"""

from __future__ import annotations

import re
from datetime import datetime
from pathlib import Path

from PySide6.QtWidgets import QFileDialog, QWidget

BUNDLE_SUFFIX = ".annotator-bundle"
PACKAGE_SUFFIX = ".annotator-package"
BUNDLE_FILTER = "Work bundles (*.annotator-bundle);;All files (*)"
PACKAGE_FILTER = "Annotation packages (*.annotator-package);;All files (*)"


def suggested_name(annotator: str, suffix: str, now: datetime | None = None) -> str:
    """``Dr-Alpha-2024-05-01-1430.annotator-package``: safe on every file system."""
    stem = re.sub(r"[^A-Za-z0-9_-]+", "-", annotator).strip("-") or "work"
    return f"{stem}-{(now or datetime.now()):%Y-%m-%d-%H%M}{suffix}"


def target_folder(chosen: Path, bundle: Path) -> Path:
    """The folder to unbundle into: ``chosen`` when new or empty, else a new folder in it.

    Choosing "Documents" should not be an error: the project goes to
    ``Documents/<bundle name> project`` instead.
    """
    if not chosen.exists() or (chosen.is_dir() and not any(chosen.iterdir())):
        return chosen
    stem = bundle.name.removesuffix(BUNDLE_SUFFIX) or bundle.stem
    return chosen / f"{stem} project"


def bundle_file(parent: QWidget | None) -> Path | None:
    """Ask for a work bundle to open; None when cancelled."""
    path, _ = QFileDialog.getOpenFileName(parent, "Open a work bundle", str(Path.home()),
                                          BUNDLE_FILTER)
    return Path(path) if path else None


def project_folder(parent: QWidget | None, bundle: Path) -> Path | None:
    """Ask where the annotator's own project goes; None when cancelled."""
    chosen = QFileDialog.getExistingDirectory(
        parent, "Choose a new, empty folder for your project", str(bundle.parent))
    return target_folder(Path(chosen), bundle) if chosen else None


def save_file(parent: QWidget | None, title: str, suggested: Path, pattern: str) -> Path | None:
    """Ask for a file to write; the suffix of ``suggested`` is added when left out."""
    path, _ = QFileDialog.getSaveFileName(parent, title, str(suggested), pattern)
    if not path:
        return None
    chosen = Path(path)
    return chosen if chosen.name.endswith(suggested.suffix) else chosen.with_name(
        chosen.name + suggested.suffix)


def package_files(parent: QWidget | None) -> list[Path]:
    """Ask for one or more annotation packages to import; empty when cancelled."""
    paths, _ = QFileDialog.getOpenFileNames(parent, "Import annotation packages",
                                            str(Path.home()), PACKAGE_FILTER)
    return [Path(p) for p in paths]
