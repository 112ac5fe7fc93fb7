"""Fixtures: a curator's project with three annotators and three assigned cases."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sync_support import ALPHA, CURATOR, setup_curator

from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.unbundle import unbundle
from annotator.store.project import Project, open_project


@pytest.fixture
def curator(project: Project, tmp_path: Path) -> Project:
    """The curator's project (SQLite and PostgreSQL) with T1..T3 assigned to two each."""
    return setup_curator(project, tmp_path / "drafts")


@pytest.fixture
def laptop(curator: Project, tmp_path: Path) -> Iterator[Project]:
    """Alpha's offline project (always SQLite), unbundled from a fresh bundle."""
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "alpha.annotator-bundle")
    unbundle(bundle.path, tmp_path / "alpha-laptop")
    project = open_project(tmp_path / "alpha-laptop", create=False)
    yield project
    project.close()
