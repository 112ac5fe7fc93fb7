"""Uploaded image file names stay on the curator's machine: a bundle names images neutrally.

A draft's image files are often named after the patient or the record number. The release
derives its own names; the bundle does too, so the name never reaches an annotator's laptop,
and the round trip still works (packages carry labels and the revision hash, not paths).
"""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from sync_support import ALPHA, CURATOR, complete, setup_curator

from annotator.services import annotating, workspace
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import make_package
from annotator.services.sync.package_import import import_package
from annotator.services.sync.unbundle import unbundle
from annotator.store.project import Project, open_project

PHI_NAME = "Ostertag_Wolfgang_55554444"


def _rename_images(drafts: Path) -> None:
    """Give every image of the written drafts a file name that carries an identifier."""
    path = drafts / "cases.json"
    text = path.read_text("utf-8")
    for image in sorted((drafts / "img").iterdir()):
        new = image.with_name(f"{PHI_NAME}_{image.name}")
        image.rename(new)
        text = text.replace(f"img/{image.name}", f"img/{new.name}")
    path.write_text(text, "utf-8")


def test_a_bundle_never_carries_uploaded_file_names(project: Project, tmp_path: Path,
                                                     monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import sync_support

    real_write = sync_support.write_case_file

    def write_and_rename(folder: Path, *args, **kwargs):  # type: ignore[no-untyped-def]
        path = real_write(folder, *args, **kwargs)
        _rename_images(folder)
        return path

    monkeypatch.setattr(sync_support, "write_case_file", write_and_rename)
    curator = setup_curator(project, tmp_path / "drafts")
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "alpha.annotator-bundle")
    with zipfile.ZipFile(bundle.path) as archive:
        for member in archive.namelist():
            assert b"ostertag" not in archive.read(member).lower(), member
            assert "ostertag" not in member.lower()
    unbundle(bundle.path, tmp_path / "laptop")
    laptop = open_project(tmp_path / "laptop", create=False)
    try:
        for case_id in ("T1", "T2"):
            theirs = workspace.case_images(curator, ALPHA, case_id)
            mine = workspace.case_images(laptop, ALPHA, case_id)
            assert {f: [r.sha256 for r in refs] for f, refs in mine.items()} == {
                f: [r.sha256 for r in refs] for f, refs in theirs.items()}
            assert all(refs for refs in mine.values())
            assert PHI_NAME not in json.dumps(annotating.view(laptop, ALPHA, case_id).content)
        complete(laptop, ALPHA, "T1")
        package = make_package(laptop, tmp_path / "alpha.annotator-package")
    finally:
        laptop.close()
    import_package(curator, CURATOR, package.path)
    assert annotating.view(curator, ALPHA, "T1").state == "submitted"
    # On the curator's machine the drafts keep their own names (they are the draft's keys).
    assert PHI_NAME in json.dumps(annotating.view(curator, ALPHA, "T1").content)
