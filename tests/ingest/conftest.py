"""Fixtures for the case-import tests (file builders live in ``draft_files.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.fixture
def case_dir(tmp_path: Path) -> Path:
    """A folder for draft case files."""
    folder = tmp_path / "drafts"
    folder.mkdir()
    return folder
