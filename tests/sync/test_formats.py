"""The file formats: version-1 files kept as fixtures stay readable; the layout does not drift.

When a field changes, raise the format version, keep these fixtures (the reader must still
read them) and add fixtures of the new version (docs/bundle-and-package.md, "Versioning").
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from sync_support import ALPHA, CURATOR, sqlite_only

from annotator.services import annotating
from annotator.services.sync.bundle import make_bundle, read_bundle
from annotator.services.sync.package import make_package, read_package
from annotator.services.sync.unbundle import unbundle
from annotator.store.project import Project
from annotator.sync.formats import SyncFileError

FIXTURES = Path(__file__).with_name("fixtures")
BUNDLE_V1 = FIXTURES / "bundle-v1.annotator-bundle"
PACKAGE_V1 = FIXTURES / "package-v1.annotator-package"
FIXTURE_PROJECT = "00000000-0000-4000-8000-000000000001"


def _layout(path: Path) -> dict[str, Any]:
    """Member kinds and the key sets of manifest, content, case and annotation."""
    with zipfile.ZipFile(path) as archive:
        names = sorted(n.split("/")[0] for n in archive.namelist())
        manifest = json.loads(archive.read("manifest.json"))
        content = json.loads(archive.read("content.json"))
    case = content["cases"][0]
    entries = [h for c in content["cases"] for h in c["annotation"]["history"]]
    return {
        "members": sorted(set(names)),
        "manifest": sorted(manifest),
        "content": sorted(content),
        "case": sorted(case),
        "annotation": sorted(case["annotation"]),
        "history": sorted(entries[0]),
    }


def test_version_1_fixtures_are_read() -> None:
    manifest, content, images = read_bundle(BUNDLE_V1)
    assert (manifest.format_version, manifest.project_id) == (1, FIXTURE_PROJECT)
    assert [c.case_id for c in content.cases] == ["T1", "T2"] and len(images) == 3
    assert content.cases[1].annotation.labels == {"comment": "started at the office"}
    package, work, _ = read_package(PACKAGE_V1)
    assert (package.format_version, package.sequence, package.annotator) == (1, 1, ALPHA)
    assert work.cases[0].annotation.state == "submitted"


def test_a_version_1_bundle_is_refused_at_unbundle_it_could_not_sign(tmp_path: Path) -> None:
    # Version 1 bundles carry no package secret: packages from them could not be signed, so
    # the annotator is told to ask for a new bundle before any work is done offline.
    with pytest.raises(SyncFileError, match="ask the curator for a new bundle"):
        unbundle(BUNDLE_V1, tmp_path / "laptop")
    assert not (tmp_path / "laptop").exists()


@sqlite_only
def test_written_files_keep_the_version_1_layout_plus_the_version_2_keys(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    annotating.set_label(curator, ALPHA, "T2", "comment", "", "x")  # history in the bundle
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "b.annotator-bundle")
    v1 = _layout(BUNDLE_V1)
    v1["content"] = sorted([*v1["content"], "package_secret"])
    assert _layout(bundle.path) == v1
    annotating.set_label(laptop, ALPHA, "T1", "comment", "", "y")
    package = make_package(laptop, tmp_path / "p.annotator-package")
    v1 = _layout(PACKAGE_V1)
    v1["manifest"] = sorted([*v1["manifest"], "signature"])
    assert _layout(package.path) == v1
