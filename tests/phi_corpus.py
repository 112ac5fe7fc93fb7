"""A planted-PHI corpus: image files that carry a patient's name wherever a file can hide it.

Every file plants ``PLANTED`` (and the record number ``PLANTED_MRN``) in a different place:
PNG text, compressed text, international text, eXIf, iCCP and sPLT names, a private chunk, a
trailer, and an IEND without its CRC; JPEG EXIF, COM, APP0 (JFXX), APP13, APP14 and ICC
payloads with a stray byte between segments and a trailer; DICOM patient attributes, free
text, text on kept elements (Manufacturer, ImageType...), a nested sequence, a private
block, file-meta private elements, trailing padding and the preamble; and a JPEG-compressed
DICOM whose frame carries comment and EXIF segments. A release, bundle or project built from
them must not contain either string.
"""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import numpy as np
from PIL import Image, PngImagePlugin

PLANTED = b"Zelda Quimby"
PLANTED_MRN = b"MRN-90817263"


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body))


def planted_png(shade: int = 60, *, size: tuple[int, int] = (32, 24)) -> bytes:
    image = Image.new("L", size, color=shade)
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", PLANTED.decode())
    info.add_text("Comment", PLANTED_MRN.decode(), zip=True)
    info.add_itxt("Description", f"patient {PLANTED.decode()}", lang="en")
    buffer = io.BytesIO()
    image.save(buffer, "PNG", pnginfo=info)
    data = buffer.getvalue()
    extra = (
        _chunk(b"iCCP", PLANTED + b"\x00\x00" + zlib.compress(b"not a profile"))
        + _chunk(b"sPLT", PLANTED + b"\x00\x08" + b"\x00" * 6)
        + _chunk(b"eXIf", b"MM\x00*" + PLANTED_MRN)
        + _chunk(b"prVt", PLANTED)
    )
    data = data[:33] + extra + data[33:]
    return data[:-4] + PLANTED  # IEND without its CRC, then a trailer


def _segment(marker: int, body: bytes) -> bytes:
    return bytes([0xFF, marker]) + (len(body) + 2).to_bytes(2, "big") + body


def planted_jpeg() -> bytes:
    rng = np.random.default_rng(7)
    image = Image.fromarray(rng.integers(0, 255, (24, 32, 3), dtype=np.uint8), "RGB")
    exif = Image.Exif()
    exif[0x010E] = PLANTED.decode()  # ImageDescription
    exif[0x013B] = PLANTED_MRN.decode()  # Artist
    buffer = io.BytesIO()
    image.save(buffer, "JPEG", quality=92, exif=exif.tobytes(), comment=PLANTED,
               icc_profile=b"ICC " + PLANTED + b"\x00" * 64)
    data = buffer.getvalue()
    app0 = _segment(0xE0, b"JFXX\x00" + PLANTED)
    app13 = _segment(0xED, b"Photoshop 3.0\x00" + PLANTED_MRN)
    app14 = _segment(0xEE, b"Adobe\x00" + PLANTED + b"\x00\x01")
    return data[:2] + app0 + app13 + b"\x00" + app14 + data[2:] + PLANTED  # stray byte, trailer


def planted_dicom() -> bytes:
    import pydicom
    from pydicom.data import get_testdata_file
    from pydicom.dataset import Dataset

    ds = pydicom.dcmread(get_testdata_file("CT_small.dcm", download=False))
    name = PLANTED.decode()
    ds.PatientName = name.replace(" ", "^")
    ds.PatientID = PLANTED_MRN.decode()
    ds.OtherPatientIDs = PLANTED_MRN.decode()
    ds.StudyDescription = f"CT head {name}"
    ds.SeriesDescription = f"AX FLAIR {name}"
    ds.ProtocolName = f"{name} protocol"
    ds.ImageComments = f"{PLANTED_MRN.decode()} {name}"
    ds.PatientComments = name
    ds.AdditionalPatientHistory = f"{name} fell"
    ds.RequestedProcedureDescription = name
    # Text on elements the profile keeps: their values are controlled, not just their names.
    ds.Manufacturer = name
    ds.SequenceName = name
    ds.DeidentificationMethod = name
    ds.ImageType = ["ORIGINAL", "PRIMARY", "QUIMBY"]
    ds.BodyPartExamined = "QUIMBY"
    item = Dataset()
    item.CodeMeaning = name
    ds.ReferencedStudySequence = [item]
    block = ds.private_block(0x0011, "PLANTED", create=True)
    block.add_new(0x01, "LO", name)
    ds.add_new(0xFFFCFFFC, "OB", PLANTED * 2)  # DataSetTrailingPadding
    ds.file_meta.add_new(0x00020016, "AE", "ZQUIMBY")  # SourceApplicationEntityTitle
    ds.file_meta.add_new(0x00020100, "UI", "1.2.3.4")  # PrivateInformationCreatorUID
    ds.file_meta.add_new(0x00020102, "OB", PLANTED)  # PrivateInformation
    ds.preamble = PLANTED.ljust(128, b"\x00")
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


def planted_compressed_dicom() -> bytes:
    """A JPEG-compressed DICOM whose frame carries a COM and an APP1 segment, plus a trailer.

    No element filter sees these: they live inside the encapsulated pixel data.
    """
    import pydicom
    from pydicom.data import get_testdata_file
    from pydicom.encaps import encapsulate, generate_fragmented_frames

    ds = pydicom.dcmread(get_testdata_file("SC_rgb_jpeg_dcmtk.dcm", download=False))
    frame = b"".join(next(generate_fragmented_frames(ds.PixelData)))
    com = _segment(0xFE, PLANTED)
    app1 = _segment(0xE1, b"Exif\x00\x00" + PLANTED_MRN)
    ds.PixelData = encapsulate([frame[:2] + com + app1 + frame[2:] + PLANTED])
    buffer = io.BytesIO()
    ds.save_as(buffer, enforce_file_format=True)
    return buffer.getvalue()


def hits(root: Path, needles: tuple[bytes, ...] = (b"quimby", b"90817263")) -> list[str]:
    """Every file under ``root`` (zip members unpacked) that holds a needle, in any case.

    ASCII and UTF-16 spellings are both searched (DICOM and PNG iTXt may use either).
    """
    import zipfile

    found: list[str] = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        blobs = [(str(path), path.read_bytes())]
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as archive:
                blobs += [(f"{path}!{n}", archive.read(n)) for n in archive.namelist()]
        for label, data in blobs:
            lowered = data.lower()
            for needle in needles:
                if needle in lowered or needle.decode().encode("utf-16-le") in lowered:
                    found.append(f"{label}: {needle.decode()}")
    return found
