"""Release file names, case folders, and DICOM renditions (multi-frame policy)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from annotator.export import privacy
from annotator.export.images import ship_case_images
from annotator.export.layout import release_file_names, safe_case_dir
from annotator.export.release_input import ReleasedCase, SourceImage
from annotator.export.render_cache import RenderCache
from annotator.export.text_gate import TextVerdicts
from annotator.imaging import png_proof


def test_case_folders_are_safe_and_never_collide() -> None:
    assert safe_case_dir("17761") == "17761"
    assert safe_case_dir("a/b").startswith("a_b-") and safe_case_dir("a/b") != "a_b"
    assert safe_case_dir("..") not in ("..", ".", "")


def test_file_names_are_derived_from_figures_never_from_the_upload() -> None:
    names = release_file_names([
        ("uploads/Jane_Doe_MRN123.png", ("Figure 1",)),
        ("series/IM1.dcm", ("Figure 2",)),
        ("other/IM1.dcm", ("Figure 2", "Figure 3")),
        ("x/F1.PNG", ()),
        ("y/figure.png", ("figure 1",)),  # cleans to the same stem as "Figure 1"
    ])
    assert names == {
        "uploads/Jane_Doe_MRN123.png": "figure_1-1.png",
        "series/IM1.dcm": "figure_2-1.png",
        "other/IM1.dcm": "figure_2-2.png",
        "x/F1.PNG": "image-1.png",
        "y/figure.png": "figure_1-2.png",
    }


def test_a_multi_frame_dicom_ships_its_middle_frame(tmp_path: Path) -> None:
    from pydicom.data import get_testdata_file

    data = Path(get_testdata_file("rtdose.dcm", download=False)).read_bytes()
    image = SourceImage("dose/rtdose.dcm", "sha", "application/dicom", ("Figure 1",), None,
                        None, {"license": "CC0-1.0"})
    case = ReleasedCase("C1", {"imaging_examinations": [
        {"figure": "Figure 1", "image_caption": "Dose map"}]}, [image], {})
    written: dict[str, bytes] = {}
    findings: list[str] = []

    def write(rel: str, payload: bytes, sha: str | None = None) -> None:
        written[rel] = payload

    shipped = ship_case_images(case, lambda shas: dict.fromkeys(shas, data), write,
                               include_dicom=True,
                               findings=findings)
    assert [s.path for s in shipped] == ["images/C1/figure_1-1.png"]
    assert shipped[0].render is not None
    assert shipped[0].render["frame"] == 7 and shipped[0].render["frames"] == 15
    assert shipped[0].render["policy"] == "middle frame 7 of 15 (0-based frames // 2)"
    assert shipped[0].caption == "Dose map"
    assert written["images/C1/figure_1-1.png"].startswith(b"\x89PNG")
    assert written["dicom/C1/figure_1-1.dcm"] == data
    assert shipped[0].dicom_path == "dicom/C1/figure_1-1.dcm"
    # pydicom's test file was never de-identified: the gate names the DICOM copy only, the
    # rendition is pixels.
    assert findings and all(f.startswith("C1: dicom/C1/figure_1-1.dcm:") for f in findings)


def test_a_dicom_rendition_is_proven_once_then_not_decoded_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The rendition is a PNG the app wrote: its pixels-only proof is kept by its hash like an
    # imported PNG's, so a later export's gate walks its chunks without decoding it.
    from pydicom.data import get_testdata_file

    monkeypatch.setenv("ANNOTATOR_CACHE", str(tmp_path / "user-cache"))
    monkeypatch.setattr(png_proof, "_PROVEN", set())
    data = Path(get_testdata_file("CT_small.dcm", download=False)).read_bytes()
    image = SourceImage("ct/ct.dcm", "sha", "application/dicom", ("Figure 1",), None, None,
                        {"license": "CC0-1.0"})
    case = ReleasedCase("C1", {"imaging_examinations": [{"figure": "Figure 1"}]}, [image], {})
    renders = RenderCache(tmp_path / "renders")

    def ship() -> dict[str, bytes]:
        written: dict[str, bytes] = {}
        findings: list[str] = []
        ship_case_images(case, lambda shas: dict.fromkeys(shas, data),
                         lambda rel, payload, sha=None:
                         written.__setitem__(rel, payload), include_dicom=False,
                         findings=findings, renders=renders, verdicts=TextVerdicts(None))
        assert findings == []
        return written

    first = ship()
    rendition = first["images/C1/figure_1-1.png"]
    assert png_proof.pixels_only_proven(rendition, hashlib.sha256(rendition).hexdigest())

    def no_decoding(_data: bytes) -> bool:
        raise AssertionError("the gate decoded a proven rendition again")

    monkeypatch.setattr(privacy, "_decodes", no_decoding)
    monkeypatch.setattr(png_proof, "_PROVEN", set())  # a later process: the kept proof
    assert ship() == first


def test_a_case_s_images_are_read_at_once_and_a_kept_render_s_dicom_not_at_all() -> None:
    from pydicom.data import get_testdata_file

    dicom = Path(get_testdata_file("CT_small.dcm", download=False)).read_bytes()
    images = [SourceImage("ct/ct.dcm", "dicom-sha", "application/dicom", ("Figure 1",), None,
                          None, {"license": "CC0-1.0"})]
    case = ReleasedCase("C1", {"imaging_examinations": [{"figure": "Figure 1"}]}, images, {})
    stored = {"dicom-sha": dicom}
    reads: list[list[str]] = []

    def load(shas: list[str]) -> dict[str, bytes]:
        reads.append(list(shas))
        return {sha: stored[sha] for sha in shas}

    def ship(include_dicom: bool) -> dict[str, bytes]:
        written: dict[str, bytes] = {}
        ship_case_images(case, load, lambda rel, payload, sha=None:
                         written.__setitem__(rel, payload), include_dicom=include_dicom,
                         findings=[], renders=RenderCache(None), verdicts=TextVerdicts(None))
        return written

    first = ship(False)
    assert ship(False) == first  # the render kept in memory: the DICOM is not read again
    shipped_dicom = ship(True)
    assert shipped_dicom["dicom/C1/figure_1-1.dcm"] == dicom
    assert reads == [["dicom-sha"], [], ["dicom-sha"]]
