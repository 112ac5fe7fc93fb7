"""No patient data on laptops: DICOM de-identified, PNG text and JPEG EXIF stripped losslessly."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pydicom
import pytest
from draft_files import (
    bundled_dicom,
    dicom_with_patient,
    jpeg_bytes,
    make_case,
    png_bytes,
    write_case_file,
)
from PIL import Image

from annotator.ingest.deidentify import deidentify_dicom, strip_jpeg, strip_png
from annotator.ingest.reader import read_case_sources
from annotator.ingest.results import CandidateImage


def imported_image(folder: Path, data: bytes, name: str, *, seed: str = "seed-1",
                   deidentify: bool = True) -> CandidateImage:
    """Import a one-exam case whose only image holds ``data``; return that image."""
    case = make_case("1")
    case["imaging_examinations"] = case["imaging_examinations"][:1]
    case["diagnostic_steps"] = case["diagnostic_steps"][:1]
    case["imaging_examinations"][0]["image_paths"] = [f"images/{name}"]
    case["images"] = [{"name": "Figure 1a", "caption": "x", "path": f"images/{name}"}]
    file = write_case_file(folder, case, images=False)
    (folder / "images").mkdir(exist_ok=True)
    (folder / "images" / name).write_bytes(data)
    result = read_case_sources([file], seed=seed, deidentify=deidentify)
    assert result.ok, result.rejected
    return result.accepted[0].images[0]


def pixels(data: bytes) -> np.ndarray:
    with Image.open(io.BytesIO(data)) as img:
        return np.asarray(img.convert("RGB"))


# --- DICOM ---------------------------------------------------------------------------------


def test_dicom_with_a_patient_name_is_deidentified(case_dir: Path) -> None:
    original = dicom_with_patient("Doe^Jane")
    image = imported_image(case_dir, original, "ct.dcm")
    before = pydicom.dcmread(io.BytesIO(original))
    after = pydicom.dcmread(io.BytesIO(image.data))
    assert str(after.PatientName) not in ("", "Doe^Jane") and "Doe" not in str(after.PatientName)
    assert after.PatientID != "MRN-123456"
    assert after.PatientBirthDate != "19610315"
    assert after.StudyInstanceUID != before.StudyInstanceUID
    assert not any(element.tag.is_private for element in after)
    assert after.PixelData == before.PixelData
    assert np.array_equal(after.pixel_array, before.pixel_array)
    assert image.removed[:3] == ["PatientName replaced", "PatientID replaced",
                                 "PatientBirthDate shifted"]
    assert "StudyInstanceUID replaced" in image.removed
    assert any(line.endswith("private tags removed") for line in image.removed)
    assert image.media_type == "application/dicom" and (image.width, image.height) == (128, 128)
    assert image.dicom_header["Modality"] == "CT"
    assert "PatientName" not in image.dicom_header


def test_same_seed_same_output_other_seed_other_output() -> None:
    original = dicom_with_patient()
    one, _ = deidentify_dicom(original, seed="a", name="x")
    again, _ = deidentify_dicom(original, seed="a", name="x")
    other, _ = deidentify_dicom(original, seed="b", name="x")
    assert one == again
    assert other != one
    name_one = pydicom.dcmread(io.BytesIO(one)).PatientName
    name_other = pydicom.dcmread(io.BytesIO(other)).PatientName
    assert name_one != name_other


def test_deidentify_false_keeps_the_bytes(case_dir: Path) -> None:
    original = dicom_with_patient()
    image = imported_image(case_dir, original, "ct.dcm", deidentify=False)
    assert image.data == original and image.removed == []
    assert image.dicom_header["Modality"] == "CT"


@pytest.mark.parametrize("name, frames", [("rtdose.dcm", 15), ("examples_ybr_color.dcm", 30),
                                          ("MR_small_RLE.dcm", 1), ("JPEG2000.dcm", 1)])
def test_multiframe_and_compressed_dicom_survive_deidentification(case_dir: Path, name: str,
                                                                  frames: int) -> None:
    original = bundled_dicom(name)
    image = imported_image(case_dir, original, name)
    assert image.frames == frames
    before = pydicom.dcmread(io.BytesIO(original))
    after = pydicom.dcmread(io.BytesIO(image.data))
    assert after.PixelData == before.PixelData
    assert after.file_meta.TransferSyntaxUID == before.file_meta.TransferSyntaxUID
    assert image.sha256 != "" and image.removed


# --- PNG -----------------------------------------------------------------------------------


def test_png_text_and_time_chunks_are_stripped_losslessly(case_dir: Path) -> None:
    original = png_bytes(4, text={"Author": "Dr Jane Doe", "Comment": "MRN 123"},
                         with_time=True)
    assert b"tEXt" in original and b"tIME" in original
    image = imported_image(case_dir, original, "f.png")
    assert b"tEXt" not in image.data and b"tIME" not in image.data
    assert b"Jane" not in image.data
    assert np.array_equal(pixels(image.data), pixels(original))
    assert image.removed == ["PNG tEXt chunk (Author) removed",
                             "PNG tEXt chunk (Comment) removed", "PNG tIME chunk removed"]
    with Image.open(io.BytesIO(image.data)) as img:
        assert getattr(img, "text", {}) == {}


def test_clean_png_is_unchanged() -> None:
    original = png_bytes(5)
    assert strip_png(original) == (original, [])


def test_bytes_after_png_end_are_removed() -> None:
    original = png_bytes(5)
    cleaned, removed = strip_png(original + b"hidden trailer")
    assert cleaned == original and removed == ["14 bytes after the end of the PNG removed"]


# --- JPEG ----------------------------------------------------------------------------------


def test_jpeg_exif_and_comment_are_stripped_losslessly(case_dir: Path) -> None:
    icc = b"\x00" * 128  # content is opaque to the stripper: only kept or dropped
    original = jpeg_bytes(exif={0x010E: "Jane Doe, MRN 123", 0x0112: 6}, comment=b"Doe^Jane",
                          icc=icc)
    assert b"Exif" in original and b"Doe^Jane" in original
    image = imported_image(case_dir, original, "f.jpg")
    assert b"Exif" not in image.data and b"Jane" not in image.data
    assert b"JFIF" in image.data and b"ICC_PROFILE" in image.data  # APP0 and APP2 kept
    assert np.array_equal(pixels(image.data), pixels(original))
    assert image.removed[:2] == ["APP1 (EXIF/XMP) removed", "COM (comment) removed"]
    assert "EXIF orientation 6" in image.removed[2]
    assert len(original) - len(image.data) > 30


def test_progressive_jpeg_with_metadata_still_decodes_identically() -> None:
    original = jpeg_bytes(exif={0x010E: "Doe"}, progressive=True)
    cleaned, removed = strip_jpeg(original)
    assert removed == ["APP1 (EXIF/XMP) removed"]
    assert np.array_equal(pixels(cleaned), pixels(original))


def test_clean_jpeg_is_unchanged() -> None:
    original = jpeg_bytes()
    assert strip_jpeg(original) == (original, [])


def _segment(marker: int, body: bytes) -> bytes:
    return bytes([0xFF, marker]) + (len(body) + 2).to_bytes(2, "big") + body


def test_jpeg_app13_and_trailer_go_app14_stays() -> None:
    clean = jpeg_bytes()
    adobe = _segment(0xEE, b"Adobe\x00\x64\x00\x00\x00\x00\x01")
    iptc = _segment(0xED, b"Photoshop 3.0\x00patient: Doe")
    original = clean[:2] + adobe + iptc + clean[2:] + b"trailer"
    cleaned, removed = strip_jpeg(original)
    assert removed == ["APP13 (IPTC/Photoshop) removed",
                       "7 bytes after the end of the JPEG removed"]
    assert cleaned == clean[:2] + adobe + clean[2:]
    assert np.array_equal(pixels(cleaned), pixels(original))
