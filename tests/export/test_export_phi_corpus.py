"""The planted-PHI corpus through import, bundle and the default release: zero hits.

The drafts' image files are replaced by the corpus of ``phi_corpus`` (a malformed PNG, a
malformed JPEG, a DICOM with identifiers in every hiding place) and their file names carry a
second planted identifier. Then the project folder, an annotator's bundle and the release are
searched byte by byte, zip members unpacked: the corpus's identifiers must be nowhere, the
file names' nowhere in the bundle or the release.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from annotator.export.privacy import PrivacyError
from annotator.services import pixel_review
from annotator.services.export import export_release
from annotator.services.sync.bundle import make_bundle
from annotator.store.project import Project
from conftest import CURATOR, PHYSICIANS, write_drafts
from phi_corpus import (
    PLANTED,
    hits,
    planted_compressed_dicom,
    planted_dicom,
    planted_jpeg,
    planted_png,
)

# File names are a second channel: uploaded names stay in the project (they are the draft's
# keys) but must never reach a bundle or the release.
NAME_IN_FILE = "Ostertag_Wolfgang_55554444"


def planted_drafts(folder: Path) -> Path:
    """The standard drafts with every image swapped for a planted one, renamed to carry PHI."""
    path = write_drafts(folder)
    images = folder / "img"
    corpus = {"f1.png": planted_png(40), "f2.png": planted_jpeg(),
              "f3.png": planted_compressed_dicom(), "f4.dcm": planted_dicom()}
    text = path.read_text("utf-8")
    for old, data in corpus.items():
        new = f"{NAME_IN_FILE}_{old}"
        (images / old).unlink()
        (images / new).write_bytes(data)
        text = text.replace(f"img/{old}", f"img/{new}")
    path.write_text(text, "utf-8")
    assert PLANTED in (images / f"{NAME_IN_FILE}_f4.dcm").read_bytes()
    return path


def _project_hits(location: str, tmp_path: Path) -> list[str]:
    """Hits in a project folder, or in a PostgreSQL store's full data dump (bytea as hex)."""
    if not location.startswith("postgresql://"):
        return hits(Path(location))
    import shutil
    import subprocess

    if shutil.which("pg_dump") is None:
        pytest.skip("pg_dump is not installed")
    dump = subprocess.run(["pg_dump", "--data-only", location], capture_output=True,
                          check=True).stdout
    (tmp_path / "dump").mkdir()
    (tmp_path / "dump" / "data.sql").write_bytes(dump)
    found = hits(tmp_path / "dump")
    lowered = dump.lower()
    found += [f"pg_dump (bytea): {n.decode()}"
              for n in (b"Quimby", b"quimby", b"QUIMBY", b"90817263")
              if n.hex().encode() in lowered]
    return found


def _pixels_reviewed(project: Project) -> None:
    """The corpus plants identifiers in headers and names; its OT secondary capture is
    flagged for burned-in text by its modality alone, and a curator clears it."""
    for row in pixel_review.list_images(project, CURATOR):
        if row.unresolved:
            pixel_review.no_phi(project, CURATOR, row.case_id, row.draft_path,
                                "synthetic pixels, no text")


def test_no_planted_identifier_reaches_project_bundle_or_release(
    build_project: Callable[..., Project], project_location: str, tmp_path: Path
) -> None:
    project = build_project(project_location, writer=planted_drafts)
    _pixels_reviewed(project)
    release = tmp_path / "release"
    export_release(project, CURATOR, release, version="1.0.0", include_dicom=True)
    bundle = tmp_path / "bundle"
    bundle.mkdir()
    make_bundle(project, CURATOR, PHYSICIANS[0], bundle / "ada.annotator-bundle")
    project.close()
    assert _project_hits(project_location, tmp_path) == []
    assert hits(bundle, (b"quimby", b"90817263", b"ostertag", b"55554444")) == []
    assert hits(release, (b"quimby", b"90817263", b"ostertag", b"55554444")) == []
    released = json.loads((release / "release.json").read_text("utf-8"))
    paths = [p for case in released for exam in case["imaging_examinations"]
             for p in exam["image_paths"]]
    assert paths and not [p for p in paths if "Ostertag" in p]
    assert all(p.endswith(".png") for p in paths)


def test_images_kept_with_identifiers_do_not_pass_the_gate_as_dicom(
    build_project: Callable[..., Project], tmp_path: Path
) -> None:
    project = build_project(str(tmp_path / "p"), deidentify=False, writer=planted_drafts)
    _pixels_reviewed(project)
    with pytest.raises(PrivacyError) as caught:
        export_release(project, CURATOR, tmp_path / "with-dicom", version="1.0.0",
                       include_dicom=True)
    assert any("R1: dicom/" in f and "PatientName is not empty" in f
               for f in caught.value.findings)
    assert not (tmp_path / "with-dicom").exists()
    # Without the DICOM files the release is pixels only, rebuilt from the stored images.
    export_release(project, CURATOR, tmp_path / "pixels", version="1.0.0")
    assert hits(tmp_path / "pixels") == []
