"""No patient data on laptops: DICOM reduced to its allow-list, PNG and JPEG rebuilt from pixels."""

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

from annotator.export.privacy import dicom_findings, png_findings
from annotator.ingest.deidentify import DeidentifyError, deidentify_dicom, reencode_raster
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
    assert str(after.PatientName) == "" and after.PatientID == ""  # type 2: present, empty
    assert after.PatientBirthDate == ""  # type 2: kept, emptied
    assert after.StudyInstanceUID != before.StudyInstanceUID
    assert not any(element.tag.is_private for element in after)
    assert after.PixelData == before.PixelData
    assert np.array_equal(after.pixel_array, before.pixel_array)
    assert image.removed[:3] == ["PatientName replaced", "PatientID replaced",
                                 "PatientBirthDate replaced"]
    assert "StudyInstanceUID replaced" in image.removed
    assert any(line.endswith("private tags removed") for line in image.removed)
    assert image.media_type == "application/dicom" and (image.width, image.height) == (128, 128)
    assert image.dicom_header["Modality"] == "CT"
    assert "PatientName" not in image.dicom_header
    assert dicom_findings(image.data) == []  # the export gate accepts it as it is


def test_same_seed_same_output_other_seed_other_output() -> None:
    original = dicom_with_patient()
    one, _ = deidentify_dicom(original, seed="a", name="x")
    again, _ = deidentify_dicom(original, seed="a", name="x")
    other, _ = deidentify_dicom(original, seed="b", name="x")
    assert one == again
    assert other != one
    uid_one = pydicom.dcmread(io.BytesIO(one)).StudyInstanceUID
    uid_other = pydicom.dcmread(io.BytesIO(other)).StudyInstanceUID
    assert uid_one != uid_other


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
    # The same pixel values; compressed frames are stored decoded (their segments could
    # carry text), native ones byte for byte.
    assert np.array_equal(after.pixel_array, before.pixel_array)
    if before.file_meta.TransferSyntaxUID.is_compressed:
        assert after.file_meta.TransferSyntaxUID == pydicom.uid.ExplicitVRLittleEndian
        assert any("decoded and stored uncompressed" in line for line in image.removed)
    else:
        assert after.PixelData == before.PixelData
        assert after.file_meta.TransferSyntaxUID == before.file_meta.TransferSyntaxUID
    assert image.sha256 != "" and image.removed


def test_free_text_preamble_file_meta_and_padding_do_not_survive(case_dir: Path) -> None:
    from pydicom.dataset import Dataset

    ds = pydicom.dcmread(io.BytesIO(dicom_with_patient("Doe^Jane")))
    ds.StudyDescription = "Head CT for Jane Doe"
    ds.SeriesDescription = "AX FLAIR Jane Doe"
    ds.ProtocolName = "Doe protocol"
    ds.ImageComments = "MRN 4711 Jane Doe"
    ds.AdditionalPatientHistory = "Jane Doe fell"
    ds.ContrastBolusAgent = "Gadovist for Jane Doe"
    ds.add_new(0xFFFCFFFC, "OB", b"Jane Doe" * 2)  # DataSetTrailingPadding
    item = Dataset()
    item.CodeMeaning = "Jane Doe"
    ds.ReferencedStudySequence = [item]
    ds.file_meta.add_new(0x00020016, "AE", "JANEDOE")  # SourceApplicationEntityTitle
    ds.file_meta.add_new(0x00020100, "UI", "1.2.3.4")  # PrivateInformationCreatorUID
    ds.file_meta.add_new(0x00020102, "OB", b"Jane Doe")  # PrivateInformation
    ds.preamble = b"Jane Doe".ljust(128, b"\x00")
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    original = buffer.getvalue()
    assert original.count(b"Jane") >= 8
    image = imported_image(case_dir, original, "ct.dcm")
    assert b"Jane" not in image.data and b"Doe" not in image.data and b"4711" not in image.data
    assert image.data[:128] == b"\x00" * 128
    after = pydicom.dcmread(io.BytesIO(image.data))
    assert after.SeriesDescription == "FLAIR"  # the controlled word the metadata helper reads
    assert after.ContrastBolusAgent == "CONTRAST"
    assert {e.keyword for e in after.file_meta} <= {
        "FileMetaInformationGroupLength", "FileMetaInformationVersion",
        "MediaStorageSOPClassUID", "MediaStorageSOPInstanceUID", "TransferSyntaxUID",
        "ImplementationClassUID", "ImplementationVersionName"}
    assert "ReferencedStudySequence" not in after and "StudyDescription" not in after
    assert "SeriesDescription replaced by 'FLAIR'" in image.removed
    assert "ProtocolName" not in image.dicom_header and "StudyDescription" not in image.dicom_header
    assert dicom_findings(image.data) == []
    assert dicom_findings(original) != []  # the gate does not take the original's word


def test_the_gate_does_not_trust_a_file_that_says_it_is_de_identified() -> None:
    ds = pydicom.dcmread(io.BytesIO(dicom_with_patient("Doe^Jane")))
    ds.PatientIdentityRemoved = "YES"
    ds.DeidentificationMethod = "trust me"
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    found = dicom_findings(buffer.getvalue())
    assert any("PatientName is not empty" in f for f in found)


def _name_in_kept_elements(ds: pydicom.Dataset, name: str) -> None:
    """Plant ``name`` in every allow-listed element whose value is text."""
    from pydicom.dataset import Dataset

    word = name.upper().replace(" ", "")[:16]
    ds.Manufacturer = name
    ds.ManufacturerModelName = name
    ds.SequenceName = name
    ds.ConvolutionKernel = name
    ds.RescaleType = name
    ds.DeidentificationMethod = name
    ds.ImageType = ["ORIGINAL", "PRIMARY", word]
    ds.BodyPartExamined = word
    ds.ScanOptions = word
    ds.PatientPosition = word
    ds.SpecificCharacterSet = "ISO_IR 100"
    code = Dataset()
    code.CodeValue = word
    code.CodingSchemeDesignator = "DCM"
    code.CodeMeaning = name
    ds.DeidentificationMethodCodeSequence = [code]
    # The same written-by-the-profile keywords, nested in a sequence the profile keeps.
    frame = Dataset()
    frame.CodeMeaning = name
    frame.SeriesDescription = name
    frame.DeidentificationMethod = name
    ds.SharedFunctionalGroupsSequence = [frame]


def test_text_in_allow_listed_elements_is_controlled_or_removed(case_dir: Path) -> None:
    # The allow-list keeps elements, not values: a name typed into Manufacturer, a code
    # meaning or an ImageType value must not ride along on a kept element.
    ds = pydicom.dcmread(io.BytesIO(dicom_with_patient("Doe^Jane")))
    _name_in_kept_elements(ds, "Hortensia Vlk")
    ds.BodyPartExamined = "HEAD"  # a defined term survives
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    image = imported_image(case_dir, buffer.getvalue(), "ct.dcm")
    assert b"HORTENSIA" not in image.data.upper() and b"VLK" not in image.data.upper()
    after = pydicom.dcmread(io.BytesIO(image.data))
    assert after.BodyPartExamined == "HEAD" and list(after.ImageType) == ["ORIGINAL", "PRIMARY"]
    assert dicom_findings(image.data) == []


def test_the_gate_refuses_text_on_allow_listed_elements() -> None:
    # A file already reduced to allow-listed elements, with a name in their values: the gate
    # reads values too, so it cannot be fooled by a file that only has the right element names.
    from annotator.ingest.dicom_profile import apply_profile

    ds = pydicom.dcmread(io.BytesIO(dicom_with_patient("Doe^Jane")))
    apply_profile(ds)
    _name_in_kept_elements(ds, "Hortensia Vlk")
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    found = " ".join(dicom_findings(buffer.getvalue()))
    for keyword in ("Manufacturer", "ManufacturerModelName", "SequenceName", "ConvolutionKernel",
                    "RescaleType", "DeidentificationMethod", "ImageType", "BodyPartExamined",
                    "ScanOptions", "PatientPosition", "CodeMeaning", "CodeValue"):
        assert keyword in found, keyword
    # Nested copies of the words the profile writes are text nobody controls.
    ds = pydicom.dcmread(io.BytesIO(dicom_with_patient("")))
    apply_profile(ds)
    frame = pydicom.Dataset()
    frame.SeriesDescription = "FLAIR"  # a controlled word at the top level, not in here
    ds.SharedFunctionalGroupsSequence = [frame]
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    assert any("SeriesDescription" in f for f in dicom_findings(buffer.getvalue()))


def test_compressed_frames_are_stored_native_so_their_segments_go(case_dir: Path) -> None:
    # A JPEG frame inside a DICOM carries its own COM and APPn segments; no element filter
    # sees them, so the frames are decoded and stored uncompressed.
    from phi_corpus import PLANTED, PLANTED_MRN, planted_compressed_dicom

    original = planted_compressed_dicom()
    assert PLANTED in original
    image = imported_image(case_dir, original, "us.dcm")
    assert PLANTED not in image.data and PLANTED_MRN not in image.data
    after = pydicom.dcmread(io.BytesIO(image.data))
    assert not after.file_meta.TransferSyntaxUID.is_compressed
    assert after.pixel_array.shape == pydicom.dcmread(io.BytesIO(original)).pixel_array.shape
    assert dicom_findings(image.data) == []


def test_the_gate_refuses_compressed_frames_and_bytes_after_the_last_frame() -> None:
    from annotator.ingest.dicom_profile import apply_profile
    from phi_corpus import planted_compressed_dicom

    ds = pydicom.dcmread(io.BytesIO(planted_compressed_dicom()))
    apply_profile(ds)  # every element clean; the frames are not
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    assert any("compressed" in f for f in dicom_findings(buffer.getvalue()))
    ds = pydicom.dcmread(io.BytesIO(dicom_with_patient("")))
    apply_profile(ds)
    ds.PixelData = ds.PixelData + b"Jane Doe"
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    assert any("after the last frame" in f for f in dicom_findings(buffer.getvalue()))


# --- PNG and JPEG ---------------------------------------------------------------------------


def _png_chunk(kind: bytes, body: bytes) -> bytes:
    import struct
    import zlib

    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def _with_chunks(png: bytes, chunks: bytes) -> bytes:
    """``png`` with ``chunks`` inserted right after IHDR (8 + 25 bytes)."""
    return png[:33] + chunks + png[33:]


def test_png_metadata_chunks_of_every_kind_are_rebuilt_away(case_dir: Path) -> None:
    planted = b"Jane Doe"
    chunks = (
        _png_chunk(b"iCCP", planted + b"\x00\x00" + b"x\x9c\x03\x00\x00\x00\x00\x01")
        + _png_chunk(b"sPLT", planted + b"\x00\x08" + b"\x00" * 6)
        + _png_chunk(b"prVt", b"private " + planted)
        + _png_chunk(b"eXIf", b"MM\x00*" + planted)
    )
    original = _with_chunks(png_bytes(4, text={"Author": "Dr Jane Doe"}, with_time=True),
                            chunks)
    image = imported_image(case_dir, original, "f.png")
    assert planted not in image.data and b"Jane" not in image.data
    assert np.array_equal(pixels(image.data), pixels(png_bytes(4)))
    assert png_findings(image.data) == []
    assert any("re-encoded as PNG" in line for line in image.removed)
    assert png_findings(original)  # the gate names the chunks of the original


def test_a_png_whose_iend_lacks_its_crc_is_rebuilt_or_refused() -> None:
    original = png_bytes(3, text={"Comment": "Jane Doe"})
    broken = original[:-4]  # IEND without its CRC
    try:
        cleaned, _ = reencode_raster(broken, name="f.png")
    except DeidentifyError as exc:
        assert "f.png" in str(exc)
    else:
        assert b"Jane" not in cleaned and png_findings(cleaned) == []
        assert np.array_equal(pixels(cleaned), pixels(png_bytes(3)))


def test_a_clean_png_rebuilt_again_is_byte_identical() -> None:
    once, _ = reencode_raster(png_bytes(5), name="f.png")
    assert reencode_raster(once, name="f.png") == (once, [])


def test_bytes_after_png_end_are_gone() -> None:
    cleaned, removed = reencode_raster(png_bytes(5) + b"Jane Doe trailer", name="f.png")
    assert b"Jane" not in cleaned and removed


def test_sixteen_bit_grey_png_keeps_its_depth() -> None:
    values = (np.arange(64 * 64, dtype=np.uint16).reshape(64, 64) * 13)
    buffer = io.BytesIO()
    Image.fromarray(values).save(buffer, "PNG", pnginfo=None)
    cleaned, _ = reencode_raster(buffer.getvalue(), name="g.png")
    with Image.open(io.BytesIO(cleaned)) as img:
        assert np.array_equal(np.asarray(img), values)


def _segment(marker: int, body: bytes) -> bytes:
    return bytes([0xFF, marker]) + (len(body) + 2).to_bytes(2, "big") + body


def test_jpeg_metadata_of_every_kind_is_rebuilt_away(case_dir: Path) -> None:
    icc = b"Jane Doe ICC".ljust(128, b"\x00")
    clean = jpeg_bytes(exif={0x010E: "Jane Doe, MRN 123", 0x0112: 6}, comment=b"Doe^Jane",
                       icc=icc)
    app0 = _segment(0xE0, b"JFXX\x00Jane Doe")
    adobe = _segment(0xEE, b"Adobe\x00Jane Doe\x00\x01")
    iptc = _segment(0xED, b"Photoshop 3.0\x00patient: Jane Doe")
    original = clean[:2] + app0 + adobe + iptc + clean[2:] + b"Jane Doe trailer"
    image = imported_image(case_dir, original, "f.jpg")
    assert b"Jane" not in image.data and b"Doe" not in image.data
    assert image.media_type == "image/png" and png_findings(image.data) == []
    # Orientation 6 is applied to the pixels, so the image looks as before.
    rotated = Image.open(io.BytesIO(jpeg_bytes())).transpose(Image.Transpose.ROTATE_270)
    assert pixels(image.data).shape == np.asarray(rotated.convert("RGB")).shape


def test_a_jpeg_with_a_stray_byte_between_segments_is_rebuilt() -> None:
    clean = jpeg_bytes(comment=b"Jane Doe")
    cut = clean.index(b"\xff\xfe")  # the COM segment
    stray = clean[:cut] + b"\x00" + clean[cut:]
    cleaned, _ = reencode_raster(stray, name="f.jpg")
    assert b"Jane" not in cleaned and png_findings(cleaned) == []
    assert np.array_equal(pixels(cleaned), pixels(clean))


def test_an_undecodable_image_is_refused_not_kept() -> None:
    with pytest.raises(DeidentifyError, match="f.jpg"):
        reencode_raster(jpeg_bytes()[:40] + b"Jane Doe", name="f.jpg")
