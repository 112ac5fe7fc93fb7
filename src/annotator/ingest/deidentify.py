"""No patient data on laptops: de-identify DICOM, strip metadata from PNG and JPEG.

DICOM goes through dicognito (seeded: the same input and seed give the same bytes) plus
``remove_private_tags`` (dicognito keeps private tags). PNG and JPEG are cleaned at chunk and
segment level, so pixels are never re-encoded and a clean file comes back byte for byte.
Each function returns the new bytes and a human-readable list of what was removed.
"""

from __future__ import annotations

import io
import struct
import warnings
from typing import TYPE_CHECKING

from annotator.errors import AnnotatorError

if TYPE_CHECKING:
    from pydicom.dataset import Dataset

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_DROP = {b"tEXt", b"zTXt", b"iTXt", b"eXIf", b"tIME"}
# Non-identifying header fields worth showing next to a DICOM image.
HEADER_KEYWORDS = (
    "Modality", "BodyPartExamined", "StudyDescription", "SeriesDescription", "ProtocolName",
    "SequenceName", "ImageType", "Rows", "Columns", "NumberOfFrames", "BitsStored",
    "PhotometricInterpretation", "PixelSpacing", "SliceThickness", "RescaleSlope",
    "RescaleIntercept", "WindowCenter", "WindowWidth", "Manufacturer",
)
_SHIFTED_VRS = {"DA", "TM", "DT"}


class DeidentifyError(AnnotatorError):
    """An image that could not be cleaned; ``name`` says which, ``reason`` says why."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason


# --- DICOM ---------------------------------------------------------------------------------


def read_dicom(data: bytes) -> Dataset:
    """Parse DICOM bytes, with or without the Part 10 preamble."""
    import pydicom
    from pydicom.uid import ExplicitVRBigEndian, ExplicitVRLittleEndian, ImplicitVRLittleEndian

    ds = pydicom.dcmread(io.BytesIO(data), force=True)
    if "TransferSyntaxUID" not in ds.file_meta and ds.original_encoding is not None:
        # A headerless file: record how it was read so it can be written as Part 10.
        implicit, little = ds.original_encoding
        ds.file_meta.TransferSyntaxUID = (
            ImplicitVRLittleEndian if implicit
            else ExplicitVRLittleEndian if little else ExplicitVRBigEndian
        )
    return ds


def deidentify_dicom(data: bytes, *, seed: str, name: str) -> tuple[bytes, list[str]]:
    """De-identify a DICOM file; pixel data is left untouched.

    Names, IDs and UIDs are replaced, dates and times shifted, private tags removed.
    Raises :class:`DeidentifyError` when the file cannot be parsed or written back.
    """
    from dicognito.anonymizer import Anonymizer

    try:
        with warnings.catch_warnings():
            # pydicom warns about odd values in the input; the report lists what changed.
            warnings.simplefilter("ignore")
            ds = read_dicom(data)
            before = _flatten(ds)
            Anonymizer(seed=seed).anonymize(ds)
            private = len(_private_elements(ds))
            ds.remove_private_tags()
            buffer = io.BytesIO()
            ds.save_as(buffer, enforce_file_format=True)
    except Exception as exc:  # noqa: BLE001 - pydicom and dicognito raise many types
        raise DeidentifyError(name, f"cannot de-identify DICOM: {exc}") from exc
    removed = _describe_changes(before, _flatten(ds))
    if private:
        removed.append(f"{private} private tags removed")
    return buffer.getvalue(), removed


def dicom_header(data: bytes) -> dict[str, str]:
    """A few non-identifying header fields as text (for the viewer and the import report)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = read_dicom(data)
    except Exception:  # noqa: BLE001 - the image was probed already; a header is optional
        return {}
    header: dict[str, str] = {}
    for keyword in HEADER_KEYWORDS:
        value = ds.get(keyword)
        text = _as_text(value)
        if text:
            header[keyword] = text
    syntax = ds.file_meta.get("TransferSyntaxUID")
    if syntax is not None:
        header["TransferSyntax"] = getattr(syntax, "name", str(syntax))
    return header


def _as_text(value: object) -> str:
    from pydicom.multival import MultiValue

    if value is None:
        return ""
    if isinstance(value, MultiValue | list):
        return "\\".join(str(v) for v in value)
    return str(value).strip()


def _private_elements(ds: Dataset) -> list[object]:
    found: list[object] = []
    ds.walk(lambda _ds, elem: found.append(elem) if elem.tag.is_private else None)
    return found


def _flatten(ds: Dataset) -> dict[str, tuple[str, str]]:
    """``{path: (VR, value)}`` for every non-private, non-pixel element, nested ones too."""
    out: dict[str, tuple[str, str]] = {}

    def visit(dataset: Dataset, prefix: str) -> None:
        for elem in dataset:
            if elem.tag.is_private or elem.tag.group == 0x7FE0:
                continue
            key = f"{prefix}{elem.keyword or elem.tag}"
            if elem.VR == "SQ":
                for item in elem.value:
                    visit(item, f"{key} > ")
            else:
                out[key] = (str(elem.VR), repr(elem.value))

    visit(ds.file_meta, "")
    visit(ds, "")
    return out


def _describe_changes(before: dict[str, tuple[str, str]],
                      after: dict[str, tuple[str, str]]) -> list[str]:
    removed: list[str] = []
    for key, (vr, value) in before.items():
        if key not in after:
            removed.append(f"{key} removed")
        elif after[key][1] != value:
            verb = "shifted" if vr in _SHIFTED_VRS else "replaced"
            removed.append(f"{key} {verb}")
    # Patient attributes first: they are what a reader of the report looks for.
    unique = list(dict.fromkeys(removed))
    return sorted(unique, key=lambda line: not line.startswith("Patient"))


# --- PNG -----------------------------------------------------------------------------------


def strip_png(data: bytes) -> tuple[bytes, list[str]]:
    """Drop tEXt/zTXt/iTXt/eXIf/tIME chunks and bytes after IEND; keep every other chunk."""
    if not data.startswith(PNG_SIGNATURE):
        return data, []
    kept = [PNG_SIGNATURE]
    removed: list[str] = []
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        end = pos + 12 + length
        if end > len(data):
            return data, []  # truncated: leave it for the decoder to judge
        if kind in _PNG_DROP:
            removed.append(_png_chunk_label(kind, data[pos + 8:pos + 8 + length]))
        else:
            kept.append(data[pos:end])
        pos = end
        if kind == b"IEND":
            break
    if pos < len(data):
        removed.append(f"{len(data) - pos} bytes after the end of the PNG removed")
    return (b"".join(kept), removed) if removed else (data, [])


def _png_chunk_label(kind: bytes, body: bytes) -> str:
    label = f"PNG {kind.decode('ascii')} chunk"
    if kind in (b"tEXt", b"zTXt", b"iTXt"):
        keyword = body.split(b"\x00", 1)[0].decode("latin-1", "replace")
        label += f" ({keyword})"
    return f"{label} removed"


# --- JPEG ----------------------------------------------------------------------------------

_SOI, _EOI, _SOS = 0xD8, 0xD9, 0xDA
_STANDALONE = {0x01, *range(0xD0, 0xD8)}
_NAMES = {0xE1: "APP1 (EXIF/XMP)", 0xED: "APP13 (IPTC/Photoshop)", 0xFE: "COM (comment)"}


def _keep_jpeg_segment(marker: int, body: bytes) -> bool:
    if marker in (0xE0, 0xEE):  # JFIF/JFXX and Adobe colour transform
        return True
    if marker == 0xE2:  # only the ICC profile; MPF and FlashPix carry metadata
        return body.startswith(b"ICC_PROFILE\x00")
    return not (0xE1 <= marker <= 0xEF or marker == 0xFE)


def strip_jpeg(data: bytes) -> tuple[bytes, list[str]]:
    """Drop APP1 (EXIF/XMP), APP13, COM and other vendor APPn segments, and bytes after EOI.

    APP0 (JFIF), APP2 ICC profiles and APP14 (Adobe) stay; entropy-coded data is copied as is.
    """
    if not data.startswith(b"\xff\xd8"):
        return data, []
    out = bytearray(data[:2])
    removed: list[str] = []
    pos = 2
    while pos < len(data):
        if data[pos] != 0xFF:
            return data, []  # not at a marker: a layout this parser does not know
        marker_start = pos
        while pos < len(data) and data[pos] == 0xFF:
            pos += 1  # fill bytes
        if pos >= len(data):
            break
        marker = data[pos]
        pos += 1
        if marker == _EOI:
            out += data[marker_start:pos]
            break
        if marker in _STANDALONE or marker == _SOI:
            out += data[marker_start:pos]
            continue
        if pos + 2 > len(data):
            return data, []
        length = int.from_bytes(data[pos:pos + 2], "big")
        end = pos + length
        if length < 2 or end > len(data):
            return data, []
        body = data[pos + 2:end]
        if _keep_jpeg_segment(marker, body):
            out += data[marker_start:end]
        else:
            removed.append(_NAMES.get(marker, f"APP{marker - 0xE0} segment") + " removed")
        pos = end
        if marker == _SOS:
            scan_end = _scan_end(data, pos)
            out += data[pos:scan_end]
            pos = scan_end
    if pos < len(data):
        removed.append(f"{len(data) - pos} bytes after the end of the JPEG removed")
    return (bytes(out), removed) if removed else (data, [])


def _scan_end(data: bytes, pos: int) -> int:
    """Index of the marker that ends entropy-coded data (stuffed FF00 and RSTn are data)."""
    while True:
        pos = data.find(b"\xff", pos)
        if pos < 0 or pos + 1 >= len(data):
            return len(data)
        following = data[pos + 1]
        if following == 0x00 or 0xD0 <= following <= 0xD7 or following == 0xFF:
            pos += 1 if following == 0xFF else 2
            continue
        return pos
