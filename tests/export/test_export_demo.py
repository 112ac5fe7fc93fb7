"""The bundled demo project's release is valid and round-trips through the release model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.export.manifest import release_files
from annotator.export.model import round_trip
from annotator.export.validate import validate_release
from annotator.services.demo import CURATOR, build_demo
from annotator.services.export import export_release
from annotator.store.project import open_project
from chain_support import without_history_head


def _export_demo(location: str, out: Path) -> None:
    build_demo(location)
    project = open_project(location)
    try:
        export_release(project, CURATOR, out, version="1.0.0", date="2026-05-06")
    finally:
        project.close()


def test_the_demo_release_is_valid_and_round_trips(tmp_path: Path) -> None:
    out = tmp_path / "release"
    _export_demo(str(tmp_path / "demo"), out)
    assert validate_release(out) == []
    cases = json.loads((out / "release.json").read_text("utf-8"))
    assert cases and all(round_trip(c) == c for c in cases)
    rendered = [
        line for line in (out / "images.csv").read_text("utf-8").splitlines() if ",DICOM," in line
    ]
    assert rendered and not list(out.rglob("*.dcm"))


@pytest.mark.postgres
def test_the_demo_exports_identical_bytes_from_sqlite_and_postgresql(
    tmp_path: Path, pg_url: str
) -> None:
    outs = {}
    for name, location in (("sqlite", str(tmp_path / "demo")), ("postgres", pg_url)):
        outs[name] = tmp_path / f"release-{name}"
        _export_demo(location, outs[name])
    files = release_files(outs["sqlite"])
    assert files == release_files(outs["postgres"]) and "release.json" in files
    # All but the history chain head, a hash over each store's own ids and times.
    one, two = without_history_head(outs["sqlite"]), without_history_head(outs["postgres"])
    different = [rel for rel in files if one[rel] != two[rel]]
    assert different == []
