"""No patient data on laptops: de-identify DICOM, rebuild PNG and JPEG from their pixels.

DICOM goes through dicognito (seeded: the same input and seed give the same bytes: names,
IDs and UIDs replaced, dates shifted), then the allow-list of :mod:`dicom_profile` (DICOM
PS3.15 Annex E, read strictly): private tags, free text, file-meta extras, trailing padding
and the preamble go. A raster image (PNG, JPEG) is decoded and written anew as PNG from its
pixels alone, so no chunk, segment, comment or profile of the original can survive, however
malformed the file; a file Pillow cannot decode is refused, never kept as it was.
Each function returns the new bytes and a human-readable list of what was removed.
"""

from __future__ import annotations

import io
import struct
import warnings
import zlib
from typing import TYPE_CHECKING

from annotator.errors import AnnotatorError
from annotator.imaging.limits import check_raster_size
from annotator.imaging.png_proof import PNG_PIXEL_CHUNKS, PNG_SIGNATURE
from annotator.ingest.dicom_profile import apply_profile, native_pixels

if TYPE_CHECKING:
    from PIL import Image
    from pydicom.dataset import Dataset

# Non-identifying header fields worth showing next to a DICOM image (no free text: the
# SeriesDescription of a de-identified file is a controlled word, see dicom_profile).
HEADER_KEYWORDS = (
    "Modality", "BodyPartExamined", "SeriesDescription",
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


def deidentify_dicom(
    data: bytes, *, seed: str, name: str, dataset: Dataset | None = None
) -> tuple[bytes, list[str]]:
    """De-identify a DICOM file; the pixel values are left untouched.

    Names, IDs and UIDs are replaced, dates shifted, then only the allow-listed elements of
    :mod:`dicom_profile` are kept (free text, private tags, file-meta extras, trailing
    padding removed; preamble zeroed); compressed frames are stored decoded, since a JPEG frame
    carries segments of its own. ``dataset``, when given, is ``data`` already parsed (import
    parses each file once); it is changed in place. Raises :class:`DeidentifyError` when the
    file cannot be parsed, decoded or written back.
    """
    from dicognito.anonymizer import Anonymizer

    try:
        with warnings.catch_warnings():
            # pydicom warns about odd values in the input; the report lists what changed.
            warnings.simplefilter("ignore")
            ds = read_dicom(data) if dataset is None else dataset
            before = _flatten(ds)
            Anonymizer(seed=seed).anonymize(ds)
            private = len(_private_elements(ds))
            ds.remove_private_tags()
            profile = native_pixels(ds) + apply_profile(ds)
            buffer = io.BytesIO()
            ds.save_as(buffer, enforce_file_format=True)
    except Exception as exc:  # noqa: BLE001 - pydicom and dicognito raise many types
        raise DeidentifyError(name, f"cannot de-identify DICOM: {exc}") from exc
    removed = _describe_changes(before, _flatten(ds))
    removed += [line for line in profile if line not in removed]
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
    return header_of(ds)


def header_of(ds: Dataset) -> dict[str, str]:
    """:func:`dicom_header` of an already parsed dataset."""
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
            # An emptied value is "replaced" (as PatientName is), not "shifted".
            emptied = after[key][1] in ("''", "None")
            verb = "shifted" if vr in _SHIFTED_VRS and not emptied else "replaced"
            removed.append(f"{key} {verb}")
    # Patient attributes first: they are what a reader of the report looks for.
    unique = list(dict.fromkeys(removed))
    return sorted(unique, key=lambda line: not line.startswith("Patient"))


# --- PNG and JPEG ---------------------------------------------------------------------------

# Pillow modes a PNG holds as they are; any other mode (CMYK, YCbCr, PA...) becomes RGB(A).
_PNG_MODES = frozenset({"1", "L", "LA", "I", "I;16", "P", "RGB", "RGBA"})

# zlib settings of the re-encoded PNG. Encoding is most of an import's time. Run-length
# matching after PNG's row filters is the fastest setting and no larger on scan-like images:
# 320x320 8-bit phantoms 2.3 ms and 58.6 kB per image (level 6, Pillow's default: 5.3 ms,
# 58.7 kB; level 1: 2.9 ms, 66.7 kB); the demo's 59 real images 40 ms and 905 kB in all
# (level 6: 77 ms, 909 kB). Lossless either way; a project imported with other settings
# still sees an unchanged draft as unchanged (services.imports compares pixels then).
PNG_ENCODER: dict[str, int] = {"compress_level": 1, "compress_type": zlib.Z_RLE}


def reencode_raster(data: bytes, *, name: str, decoded: Image.Image | None = None
                    ) -> tuple[bytes, list[str]]:
    """A PNG written from ``data``'s decoded pixels alone, and what of the original went.

    EXIF orientation is applied to the pixels first, so the image looks as it did. The
    output carries only IHDR, PLTE, tRNS, IDAT and IEND; it is deterministic (the same
    pixels give the same bytes). Raises :class:`DeidentifyError` when Pillow cannot decode
    the whole image: such a file is refused, never passed on. ``decoded``, when given, is
    ``data`` already opened and loaded by Pillow (import's probe decodes each file once).
    """
    from PIL import Image, ImageOps

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # a stray byte before a marker: decoded anyway
            opened = decoded if decoded is not None else Image.open(io.BytesIO(data))
            check_raster_size(*opened.size)  # from the header, before decoding
            opened.load()
            source_format = opened.format or "image"
            carried = sorted(k for k in opened.info if k != "transparency")
            image = ImageOps.exif_transpose(opened)
            pixels = _pixels_only(image)
    except Exception as exc:  # noqa: BLE001 - Pillow raises many types for a bad file
        raise DeidentifyError(name, f"cannot decode image to clean it: {exc}") from exc
    buffer = io.BytesIO()
    pixels.save(buffer, "PNG", **PNG_ENCODER)
    out = buffer.getvalue()
    if out == data or only_pixel_chunks(data):
        return out, []  # the original held nothing but pixels: nothing of it went
    removed = [f"{source_format} {key} removed" for key in carried]
    removed.append(f"{source_format} re-encoded as PNG from its pixels (no metadata kept)")
    return out, removed


def only_pixel_chunks(data: bytes) -> bool:
    """Whether ``data`` is a PNG made of pixel chunks alone, ending with its IEND chunk.

    Only the chunk layout is read (no CRC, no decoding): enough to say that re-encoding
    removed nothing, never enough to call a file clean on its own.
    """
    if not data.startswith(PNG_SIGNATURE):
        return False
    pos = len(PNG_SIGNATURE)
    while pos + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        if kind not in PNG_PIXEL_CHUNKS:
            return False
        pos += 12 + int(length)
        if kind == b"IEND":
            return pos == len(data)
    return False


def same_raster(first: bytes, second: bytes) -> bool:
    """Whether two images decode to the same pixels, palette and transparency (so two
    encodings of one image compare equal); False when either does not decode."""
    from PIL import Image

    def content(data: bytes) -> tuple[object, ...]:
        with Image.open(io.BytesIO(data)) as image:
            image.load()
            return (image.mode, image.size, image.tobytes(), image.getpalette(),
                    image.info.get("transparency"))

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return content(first) == content(second)
    except Exception:  # noqa: BLE001 - Pillow raises many types for a bad file
        return False


def _pixels_only(image: Image.Image) -> Image.Image:
    """A new image holding only ``image``'s pixels, palette and transparency."""
    from PIL import Image

    if image.mode not in _PNG_MODES:
        image = image.convert("RGBA" if "A" in image.mode else "RGB")
    clean = Image.frombytes(image.mode, image.size, image.tobytes())
    if image.mode == "P":
        palette = image.getpalette()
        if palette is not None:
            clean.putpalette(palette)
    transparency = image.info.get("transparency")
    if transparency is not None:
        clean.info["transparency"] = transparency
    return clean
