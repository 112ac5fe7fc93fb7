"""Packages refused whole with nothing applied, per-case atomicity, and what a bundle holds."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import Any

import pytest
from sync_support import (
    ALPHA,
    BETA,
    CURATOR,
    GAMMA,
    SENIOR,
    complete,
    laptop_key,
    setup_curator,
    sqlite_only,
    store_counts,
)
from sync_support import rewrite as _rewrite

from annotator.services import annotating
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import PackageResult, make_package
from annotator.services.sync.package_import import import_package
from annotator.services.sync.unbundle import unbundle
from annotator.store.project import Project, open_project
from annotator.sync.formats import SyncFileError


@pytest.fixture
def package(laptop: Project, tmp_path: Path) -> PackageResult:
    complete(laptop, ALPHA, "T1")
    annotating.set_label(laptop, ALPHA, "T2", "comment", "", "half done")
    return make_package(laptop, tmp_path / "alpha.annotator-package")


def _refused(curator: Project, path: Path, match: str) -> None:
    before = store_counts(curator)
    with pytest.raises(SyncFileError, match=match):
        import_package(curator, CURATOR, path)
    assert store_counts(curator) == before


@sqlite_only
def test_truncated_package_is_refused_whole(
    curator: Project, package: PackageResult, tmp_path: Path
) -> None:
    data = package.path.read_bytes()
    cut = tmp_path / "cut.annotator-package"
    cut.write_bytes(data[: len(data) // 2])
    _refused(curator, cut, "truncated or damaged")


def _central_entries(data: bytes) -> list[int]:
    """Offsets of the archive's central-directory records."""
    found, at = [], data.find(b"PK\x01\x02")
    while at != -1:
        found.append(at)
        at = data.find(b"PK\x01\x02", at + 4)
    return found


@sqlite_only
@pytest.mark.parametrize("damage", ["unknown zip version", "member name not UTF-8"])
def test_a_zip_record_python_cannot_read_is_a_refusal(
    curator: Project, package: PackageResult, tmp_path: Path, damage: str
) -> None:
    """zipfile answers these with NotImplementedError and UnicodeDecodeError, not BadZipFile."""
    data = bytearray(package.path.read_bytes())
    record = _central_entries(bytes(data))[0]
    if damage == "unknown zip version":
        data[record + 6] = 64  # "version needed to extract": 6.4, beyond zipfile's 6.3
    else:
        data[record + 9] |= 0x08  # general purpose flag bit 11: the name is UTF-8
        data[record + 46] = 0xFF  # the name's first byte: never valid UTF-8
    broken = tmp_path / "broken.annotator-package"
    broken.write_bytes(bytes(data))
    _refused(curator, broken, "truncated or damaged")


@sqlite_only
def test_changed_content_fails_the_checksum(
    curator: Project, package: PackageResult, tmp_path: Path
) -> None:
    def relabel(data: dict[str, Any]) -> None:
        data["cases"][0]["annotation"]["labels"]["comment"] = "slipped in later"

    bad = _rewrite(package.path, tmp_path / "bad", content=relabel, reseal=False)
    _refused(curator, bad, "checksum of content.json does not match")

    def rename(head: dict[str, Any]) -> None:
        head["annotator"] = BETA

    renamed = _rewrite(package.path, tmp_path / "renamed", manifest=rename, reseal=False)
    _refused(curator, renamed, "manifest checksum does not match")


@sqlite_only
def test_newer_format_is_refused_whole(
    curator: Project, package: PackageResult, tmp_path: Path
) -> None:
    newer = _rewrite(package.path, tmp_path / "v4", manifest=lambda m: m.update(format_version=4))
    _refused(curator, newer, "format version 4 was written by a newer annotator")


@sqlite_only
def test_bundle_is_not_a_package(curator: Project, tmp_path: Path) -> None:
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "a.annotator-bundle")
    _refused(curator, bundle.path, "this is a work bundle, not an annotation package")


def test_another_projects_package_is_refused_whole(curator: Project, tmp_path: Path) -> None:
    other = open_project(tmp_path / "other-project")  # same people and cases, another id
    try:
        setup_curator(other, tmp_path / "other-drafts")
        bundle = make_bundle(other, CURATOR, ALPHA, tmp_path / "other.annotator-bundle")
        unbundle(bundle.path, tmp_path / "other-laptop")
        laptop = open_project(tmp_path / "other-laptop", create=False)
        try:
            complete(laptop, ALPHA, "T1")
            foreign = make_package(laptop, tmp_path / "other.annotator-package")
        finally:
            laptop.close()
    finally:
        other.close()
    _refused(curator, foreign.path, "made for another project")


def test_each_case_is_applied_whole_or_not_at_all(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    complete(laptop, ALPHA, "T1")
    annotating.set_label(laptop, ALPHA, "T2", "comment", "", "fine")
    made = make_package(laptop, tmp_path / "p.annotator-package")

    def break_t2(data: dict[str, Any]) -> None:
        data["cases"][1]["annotation"]["labels"]["importance:Figure 9"] = {
            "value": "essential",
            "how": "set",
        }

    bad = _rewrite(made.path, tmp_path / "bad.annotator-package", content=break_t2,
                   key=laptop_key(laptop))
    report = import_package(curator, CURATOR, bad)
    results = {c.case_id: (c.status, c.reason) for c in report.cases}
    assert results["T1"][0] == "added"
    assert results["T2"][0] == "refused" and "no exam 'Figure 9'" in results["T2"][1]
    assert annotating.view(curator, ALPHA, "T2").labels == {}
    assert annotating.view(curator, ALPHA, "T2").state == "assigned"


@sqlite_only
def test_truncated_bundle_leaves_no_folder(curator: Project, tmp_path: Path) -> None:
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "a.annotator-bundle")
    cut = tmp_path / "cut.annotator-bundle"
    cut.write_bytes(bundle.path.read_bytes()[:-200])
    with pytest.raises(SyncFileError, match="truncated or damaged"):
        unbundle(cut, tmp_path / "laptop")
    assert not (tmp_path / "laptop").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def _all_bytes(path: Path) -> bytes:
    """The file as stored plus every member decompressed (names could hide in either)."""
    with zipfile.ZipFile(path) as archive:
        return path.read_bytes() + b"".join(archive.read(n) for n in archive.namelist())


def test_bundle_holds_nothing_of_anybody_else(curator: Project, tmp_path: Path) -> None:
    annotating.set_label(curator, ALPHA, "T1", "comment", "", "ALPHA-OWN-NOTE")
    for name, case_id in ((BETA, "T1"), (GAMMA, "T2")):
        secret = f"{name.split()[1].upper()}-SECRET-{case_id}"
        annotating.set_label(curator, name, case_id, "comment", "", secret)
        annotating.set_label(curator, name, case_id, "red_flag", "Figure 2", secret + "-FLAG")
        complete(curator, name, case_id)
    alpha = _all_bytes(make_bundle(curator, CURATOR, ALPHA, tmp_path / "a.bundle").path)
    for text in (BETA, GAMMA, SENIOR, CURATOR, "BETA-SECRET", "GAMMA-SECRET"):
        assert text.encode() not in alpha, text
    assert ALPHA.encode() in alpha and b"ALPHA-OWN-NOTE" in alpha
    # the scan can fail: Beta's own bundle does hold Beta's labels
    assert b"BETA-SECRET-T1-FLAG" in _all_bytes(
        make_bundle(curator, CURATOR, BETA, tmp_path / "b.bundle").path
    )
