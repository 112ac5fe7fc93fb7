"""Issue 23's archive attacks: each reproduced here first, then fixed.

An unsigned package is refused on its manifest before any member is inflated; members are
streamed within the sizes the manifest lists; FIFOs are refused without blocking; deeply
nested JSON is a one-line refusal; a package carries only the history an annotator makes;
unbundle's staging folders carry the pid and a killed run's folder is cleaned.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import tracemalloc
import uuid
import zipfile
from pathlib import Path
from typing import Any

import pytest
from sync_support import ALPHA, CURATOR, complete, sqlite_only, store_counts
from test_refusals import _rewrite, laptop_key

from annotator.services import annotating
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import PackageResult, make_package
from annotator.services.sync.package_import import import_package
from annotator.services.sync.unbundle import unbundle
from annotator.store.project import Project
from annotator.sync.container import manifest_checksum
from annotator.sync.formats import SyncFileError
from annotator.sync.signing import sign


@pytest.fixture
def package(laptop: Project, tmp_path: Path) -> PackageResult:
    complete(laptop, ALPHA, "T1")
    annotating.set_label(laptop, ALPHA, "T2", "comment", "", "half done")
    return make_package(laptop, tmp_path / "alpha.annotator-package")


def _refused(curator: Project, path: Path, match: str) -> None:
    before = store_counts(curator)
    with pytest.raises(SyncFileError, match=match) as info:
        import_package(curator, CURATOR, path)
    assert "\n" not in str(info.value)
    assert store_counts(curator) == before


@sqlite_only
def test_an_unsigned_package_is_refused_before_its_members_are_inflated(
    curator: Project, package: PackageResult, tmp_path: Path
) -> None:
    """A small file whose content.json inflates to 48 MiB and whose manifest lists that size
    honestly: the signature is what is wrong, and it is checked first."""
    big = bytes(48 * 2**20)
    with zipfile.ZipFile(package.path) as archive:
        head = json.loads(archive.read("manifest.json"))
    head["files"] = [{"path": "content.json", "sha256": hashlib.sha256(big).hexdigest(),
                      "size": len(big)}]
    head["signature"] = "0" * 64
    head["checksum"] = manifest_checksum(head)
    bomb = tmp_path / "unsigned.annotator-package"
    with zipfile.ZipFile(bomb, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("manifest.json", json.dumps(head))
        archive.writestr("content.json", big)
    assert bomb.stat().st_size < 2**20
    del big
    tracemalloc.start()
    tracemalloc.reset_peak()
    try:
        before, _ = tracemalloc.get_traced_memory()
        _refused(curator, bomb, "signature does not match")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak - before < 8 * 2**20


@sqlite_only
def test_a_member_longer_than_the_manifest_says_is_refused(
    curator: Project, laptop: Project, package: PackageResult, tmp_path: Path
) -> None:
    """Signed by the laptop, but the zip header and the manifest disagree on a size."""
    with zipfile.ZipFile(package.path) as source:
        members = {n: source.read(n) for n in source.namelist() if n != "manifest.json"}
        head = json.loads(source.read("manifest.json"))
    for entry in head["files"]:
        entry["size"] = 10
    head["signature"] = sign(laptop_key(laptop), head)
    head["checksum"] = manifest_checksum(head)
    lying = tmp_path / "lying.annotator-package"
    with zipfile.ZipFile(lying, "w") as archive:
        archive.writestr("manifest.json", json.dumps(head))
        for name, data in members.items():
            archive.writestr(name, data)
    _refused(curator, lying, "the manifest says 10")


@sqlite_only
def test_a_package_carrying_a_green_light_is_refused(
    curator: Project, laptop: Project, package: PackageResult, tmp_path: Path
) -> None:
    """Signed with the laptop's own key, so only the action check can stop it."""

    def green(data: dict[str, Any]) -> None:
        history = data["cases"][0]["annotation"]["history"]
        history.append({**history[-1], "id": str(uuid.uuid4()), "action": "green_lit",
                        "key": None})

    forged = _rewrite(package.path, tmp_path / "green.annotator-package", content=green,
                      key=laptop_key(laptop))
    _refused(curator, forged, "history an annotator cannot make .green_lit.")


@sqlite_only
@pytest.mark.parametrize("where", ["content", "manifest"])
def test_deeply_nested_json_in_a_package_is_a_one_line_refusal(
    curator: Project, laptop: Project, package: PackageResult, tmp_path: Path, where: str
) -> None:
    nested: Any = []
    for _ in range(900):
        nested = [nested]

    def deep(data: dict[str, Any]) -> None:
        if where == "content":
            data["cases"][0]["annotation"]["history"][0]["after"] = nested
        else:
            data["deep"] = nested

    kwargs: dict[str, Any] = {where: deep}
    forged = _rewrite(package.path, tmp_path / "deep.annotator-package",
                      key=laptop_key(laptop), **kwargs)
    _refused(curator, forged, "nested deeper than 64 levels")


@sqlite_only
def test_a_fifo_in_place_of_a_package_or_bundle_is_refused_without_blocking(
    curator: Project, tmp_path: Path
) -> None:
    fifo = tmp_path / "fifo.annotator-package"
    os.mkfifo(fifo)
    _refused(curator, fifo, "not a regular file")
    with pytest.raises(SyncFileError, match="not a regular file"):
        unbundle(fifo, tmp_path / "laptop")


@sqlite_only
def test_unbundle_staging_folders_carry_the_pid_and_a_killed_runs_folder_is_cleaned(
    curator: Project, tmp_path: Path
) -> None:
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "a.annotator-bundle")
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    stale = tmp_path / f".laptop.unbundle-{dead.stdout.strip()}-0000"
    stale.mkdir()
    (stale / "project.sqlite").write_bytes(b"half written")
    unbundle(bundle.path, tmp_path / "laptop")
    assert not stale.exists()
    assert (tmp_path / "laptop").is_dir()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".laptop")] == []


@sqlite_only
def test_a_refused_label_value_is_named_not_echoed(
    curator: Project, laptop: Project, package: PackageResult, tmp_path: Path
) -> None:
    """A 2 MB label used to come back in full in the refusal (and on the terminal)."""

    def huge(data: dict[str, Any]) -> None:
        for case in data["cases"]:
            for entry in case["annotation"]["history"]:
                entry["id"] = str(uuid.uuid4())
        labels = data["cases"][0]["annotation"]["labels"]
        key = next(k for k in labels if k.startswith("importance:"))
        labels[key] = {"value": "x" * 2_000_000, "how": "set"}

    forged = _rewrite(package.path, tmp_path / "huge.annotator-package", content=huge,
                      key=laptop_key(laptop))
    report = import_package(curator, CURATOR, forged)
    refused = [c for c in report.cases if c.status == "refused"]
    assert len(refused) == 1 and "2,000,002 characters" in refused[0].reason
    assert len(refused[0].reason) < 300
