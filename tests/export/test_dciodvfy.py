"""DICOM the app writes passes ``dciodvfy`` (Debian's dicom3tools) with no error that is
not already in the input file: the release's DICOM (``export --include-dicom``), the
de-identified file import stores (what bundles carry) and a redacted file."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from pydicom.data import get_testdata_file

from annotator.bench.text_images import text_image
from annotator.ingest.deidentify import deidentify_dicom
from annotator.services.export import export_release
from annotator.services.pixel_review import burn_boxes
from export.conftest import CURATOR, build

pytestmark = pytest.mark.skipif(shutil.which("dciodvfy") is None,
                                reason="dciodvfy is not installed (Debian: apt-get install"
                                       " dicom3tools)")


def errors(data: bytes, tmp_path: Path, name: str) -> set[str]:
    """dciodvfy's error lines for ``data`` (warnings are not errors)."""
    path = tmp_path / f"{name}.dcm"
    path.write_bytes(data)
    run = subprocess.run(["dciodvfy", str(path)], capture_output=True, text=True, timeout=60)
    return {line.strip() for line in (run.stdout + run.stderr).splitlines()
            if line.startswith("Error")}


def _testdata(name: str) -> bytes:
    found = get_testdata_file(name, download=False)
    assert found is not None
    return Path(str(found)).read_bytes()


def test_the_release_dicom_adds_no_error(tmp_path: Path) -> None:
    project = build(str(tmp_path / "p"), tmp_path / "drafts")
    try:
        export_release(project, CURATOR, tmp_path / "release", version="1.0.0",
                       include_dicom=True)
    finally:
        project.close()
    written = sorted((tmp_path / "release").rglob("*.dcm"))
    assert written
    source = errors(_testdata("CT_small.dcm"), tmp_path, "source")  # the drafts' DICOM
    for path in written:
        assert errors(path.read_bytes(), tmp_path, path.stem) <= source, path.name


@pytest.mark.parametrize("name", ["CT_small.dcm", "MR_small.dcm", "rtdose.dcm"])
def test_the_stored_de_identified_file_adds_no_error(tmp_path: Path, name: str) -> None:
    data = _testdata(name)
    out, _ = deidentify_dicom(data, seed="dciodvfy", name=name)
    assert errors(out, tmp_path, "out") <= errors(data, tmp_path, "in")


@pytest.mark.parametrize("index", [2, 6])  # 16-bit CT, 16-bit MR of three frames
def test_a_redacted_file_adds_no_error(tmp_path: Path, index: int) -> None:
    image = text_image(index)
    out, _ = burn_boxes(image.data, [(0, 0, 40, 20)], name=image.name)
    assert errors(out, tmp_path, "out") <= errors(image.data, tmp_path, "in")
