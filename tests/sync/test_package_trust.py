"""Packages are signed with the bundle's secret; forged, unsigned or malformed ones are refused.

Each attack starts from a real package of Alpha's laptop, edits it as an attacker could and
re-seals its checksums (which anybody can do); only a re-signature needs the laptop's secret.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sync_support import ALPHA, BETA, CURATOR, complete
from test_refusals import _rewrite, laptop_key

from annotator.services import annotating, kinds
from annotator.services.sync.package import make_package
from annotator.services.sync.package_import import import_package
from annotator.store.project import Project
from annotator.sync.formats import SyncFileError


def _as_beta(data: dict[str, Any]) -> None:
    data["annotator"] = BETA
    for case in data.get("cases", []):
        if "annotation" in case:
            for entry in case["annotation"]["history"]:
                entry["actor"] = BETA


def test_a_forged_package_cannot_overwrite_another_annotators_work(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    complete(curator, BETA, "T1")
    before = annotating.view(curator, BETA, "T1")
    annotating.set_label(laptop, ALPHA, "T1", "comment", "", "forged text")
    made = make_package(laptop, tmp_path / "alpha.annotator-package")
    only_t1 = _only_case("T1")
    forged = _rewrite(made.path, tmp_path / "forged.annotator-package",
                      manifest=lambda m: (m.update(annotator=BETA), only_t1(m)),
                      content=lambda c: (_as_beta(c), only_t1(c)))
    with pytest.raises(SyncFileError, match="signature does not match"):
        import_package(curator, CURATOR, forged)
    # Signed with Alpha's own secret it is still not Beta's: the key belongs to Alpha's bundle.
    resigned = _rewrite(made.path, tmp_path / "resigned.annotator-package",
                        manifest=lambda m: (m.update(annotator=BETA), only_t1(m)),
                        content=lambda c: (_as_beta(c), only_t1(c)), key=laptop_key(laptop))
    with pytest.raises(SyncFileError, match="signature does not match"):
        import_package(curator, CURATOR, resigned)
    after = annotating.view(curator, BETA, "T1")
    assert (after.state, after.labels) == (before.state, before.labels)


def _only_case(case_id: str) -> Any:
    def keep(data: dict[str, Any]) -> None:
        data["cases"] = [c for c in data["cases"] if c["case_id"] == case_id]
    return keep


def test_an_unsigned_or_altered_package_is_refused_whole(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    complete(laptop, ALPHA, "T1")
    made = make_package(laptop, tmp_path / "alpha.annotator-package")
    unsigned = _rewrite(made.path, tmp_path / "unsigned.annotator-package",
                        manifest=lambda m: m.update(signature=None))
    with pytest.raises(SyncFileError, match="signature does not match"):
        import_package(curator, CURATOR, unsigned)

    def soften(data: dict[str, Any]) -> None:
        data["cases"][0]["annotation"]["labels"]["comment"] = {"value": "changed", "how": "set"}

    altered = _rewrite(made.path, tmp_path / "altered.annotator-package", content=soften)
    with pytest.raises(SyncFileError, match="signature does not match"):
        import_package(curator, CURATOR, altered)
    assert annotating.view(curator, ALPHA, "T1").labels == {}
    report = import_package(curator, CURATOR, made.path)  # the genuine one goes in
    assert [c.status for c in report.cases] == ["added"]


def test_malformed_submitted_labels_are_refused_and_do_not_freeze_the_case(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    complete(laptop, ALPHA, "T1")
    made = make_package(laptop, tmp_path / "alpha.annotator-package")

    def poison(data: dict[str, Any]) -> None:
        data["cases"][0]["annotation"]["submitted_labels"] = {
            "importance:Figure 1": ["not", "a", "label"], "difficulty": 3}

    bad = _rewrite(made.path, tmp_path / "bad.annotator-package", content=poison,
                   key=laptop_key(laptop))
    report = import_package(curator, CURATOR, bad)
    assert report.cases[0].status == "refused" and "submitted label" in report.cases[0].reason
    assert annotating.view(curator, ALPHA, "T1").state == "assigned"
    # The case is not frozen: the annotator's next genuine package is applied.
    annotating.reopen(laptop, ALPHA, "T1")
    kinds.CASES.submit(laptop, ALPHA, "T1")
    good = make_package(laptop, tmp_path / "good.annotator-package")
    assert [c.status for c in import_package(curator, CURATOR, good.path).cases] == ["added"]
    assert annotating.view(curator, ALPHA, "T1").state == "submitted"


def test_a_package_from_the_future_does_not_block_later_packages(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    annotating.set_label(laptop, ALPHA, "T1", "comment", "", "clock was wrong")
    made = make_package(laptop, tmp_path / "one.annotator-package")

    def far_ahead(data: dict[str, Any]) -> None:
        for entry in data["cases"][0]["annotation"]["history"]:
            entry["at"] = "2099-01-01T00:00:00"

    future = _rewrite(made.path, tmp_path / "future.annotator-package", content=far_ahead,
                      key=laptop_key(laptop))
    assert [c.status for c in import_package(curator, CURATOR, future).cases] == ["added"]
    annotating.set_label(laptop, ALPHA, "T1", "comment", "", "clock fixed")
    later = make_package(laptop, tmp_path / "two.annotator-package")
    assert [c.status for c in import_package(curator, CURATOR, later.path).cases] == ["added"]
    assert annotating.view(curator, ALPHA, "T1").labels["comment"] == "clock fixed"


def _bomb(path: Path, member: str, inflated: int, *, manifest: bytes = b"{}") -> Path:
    """A zip whose ``member`` inflates to ``inflated`` zero bytes (written in chunks)."""
    import zipfile

    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        if member != "manifest.json":
            archive.writestr("manifest.json", manifest)
        with archive.open(member, "w", force_zip64=True) as stream:
            for _ in range(inflated // 2**20):
                stream.write(bytes(2**20))
    return path


def test_a_zip_bomb_or_padded_manifest_is_refused_with_bounded_memory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json
    import tracemalloc

    import annotator.sync.container as container

    monkeypatch.setattr(container, "MAX_MEMBER_BYTES", 4 * 2**20)
    monkeypatch.setattr(container, "MAX_MANIFEST_BYTES", 2 * 2**20)
    head: dict[str, Any] = {"kind": "annotator-annotation-package", "format_version": 2,
                            "files": [{"path": "content.json", "sha256": "0" * 64,
                                       "size": 100}]}
    head["checksum"] = container.manifest_checksum(head)
    manifest = json.dumps(head).encode()
    bomb = _bomb(tmp_path / "bomb.annotator-package", "content.json", 64 * 2**20,
                 manifest=manifest)
    padded = _bomb(tmp_path / "padded.annotator-package", "manifest.json", 64 * 2**20)
    assert bomb.stat().st_size < 2**20 and padded.stat().st_size < 2**20
    tracemalloc.start()
    try:
        for path, why in ((bomb, "damaged: checksum of content.json"),
                          (padded, "refused: manifest.json is")):
            with pytest.raises(SyncFileError, match=why):
                container.read_container(path, "annotator-annotation-package")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20  # nowhere near the 64 MiB a bomb inflates to
