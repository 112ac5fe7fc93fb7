"""Recognise an image file by its bytes and prove that it decodes.

Import calls :func:`probe_image` on every image before accepting a case, so an
unreadable file is rejected with a reason instead of failing later in the viewer.
"""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from annotator.imaging import _dicom
from annotator.imaging.limits import TooLarge, check_dicom_size, check_raster_size

if TYPE_CHECKING:
    from PIL import Image
    from pydicom.dataset import Dataset

PNG = "image/png"
JPEG = "image/jpeg"
DICOM = "application/dicom"

_PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
_JPEG_MAGIC = b"\xff\xd8\xff"
_FORMAT_LABEL = {PNG: "PNG", JPEG: "JPEG"}


class ImageDecodeError(Exception):
    """An image that cannot be read; ``name`` says which, ``reason`` says why."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"{name}: {reason}")
        self.name = name
        self.reason = reason


def pixel_frames(ds: Any, name: str) -> int:
    """How many frames a DICOM dataset's pixel data holds; ImageDecodeError when it has none
    or its frame count is unreadable."""
    if not _dicom.has_pixel_data(ds):
        raise ImageDecodeError(name, "DICOM has no pixel data")
    try:
        return _dicom.frame_count(ds)
    except ValueError as exc:
        raise ImageDecodeError(name, str(exc)) from exc


@dataclass(frozen=True)
class ImageInfo:
    """What an import needs to know about a readable image."""

    media_type: str  # "image/png" | "image/jpeg" | "application/dicom"
    width: int
    height: int
    frames: int
    is_dicom: bool
    photometric: str | None  # DICOM PhotometricInterpretation; None for PNG/JPEG


def sniff_media_type(data: bytes) -> str | None:
    """Media type from magic bytes: PNG, JPEG or DICOM (Part 10 or headerless); else None."""
    if data.startswith(_PNG_MAGIC):
        return PNG
    if data.startswith(_JPEG_MAGIC):
        return JPEG
    if _dicom.has_preamble(data):
        return DICOM
    if _dicom.might_be_headerless(data):
        try:
            _dicom.parse(data)
        except Exception:  # noqa: BLE001 - any parse failure simply means "not DICOM"
            return None
        return DICOM
    return None


def probe_image(data: bytes, *, name: str) -> ImageInfo:
    """Identify ``data`` and fully decode its first frame.

    Raises :class:`ImageDecodeError` (with ``name`` and a readable reason) when the bytes
    are not a PNG, JPEG or DICOM image, or when the image cannot be decoded.
    """
    if not data:
        raise ImageDecodeError(name, "empty file")
    media_type = sniff_media_type(data)
    if media_type is None:
        raise ImageDecodeError(name, "not a PNG, JPEG or DICOM file")
    if media_type == DICOM:
        return _probe_dicom(data, name)
    return _probe_raster(data, name, media_type)


def _probe_raster(data: bytes, name: str, media_type: str) -> ImageInfo:
    return probe_raster(data, name=name, media_type=media_type)[0]


def probe_raster(data: bytes, *, name: str, media_type: str) -> tuple[ImageInfo, Image.Image]:
    """:func:`probe_image` of a PNG or JPEG, and the decoded image (import cleans it next
    from these pixels rather than decoding the file a second time)."""
    from PIL import Image

    label = _FORMAT_LABEL[media_type]
    try:
        img = Image.open(io.BytesIO(data))
        width, height = img.size
        check_raster_size(width, height)  # from the header, before decoding
        img.load()
    except TooLarge as exc:
        raise ImageDecodeError(name, f"{label} too large to open safely: {exc}") from exc
    except Image.DecompressionBombError as exc:
        raise ImageDecodeError(name, f"{label} too large to open safely: {exc}") from exc
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageDecodeError(name, _raster_reason(label, exc)) from exc
    return ImageInfo(media_type, width, height, 1, False, None), img


def _raster_reason(label: str, exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    lowered = text.lower()
    if "truncated" in lowered or isinstance(exc, EOFError):
        return f"truncated {label}"
    if "cannot identify image file" in lowered:
        return f"corrupt or truncated {label}: Pillow cannot identify it"
    return f"corrupt {label}: {text}"


def _probe_dicom(data: bytes, name: str) -> ImageInfo:
    # Not cached: import probes the original (identified) bytes once, then stores a
    # de-identified copy, so keeping this parse would only hold patient data in memory.
    return probe_dicom(data, name=name)[0]


def probe_dicom(data: bytes, *, name: str, decode: bool = True) -> tuple[ImageInfo, Dataset]:
    """Parse DICOM bytes once: what :func:`probe_image` learns, and the parsed dataset.

    Import hands the dataset on to de-identification instead of parsing the bytes again.
    ``decode=False`` checks the header only (for a file whose pixel data is already known
    to decode). Raises :class:`ImageDecodeError`.
    """
    try:
        ds = _dicom.parse(data)
    except Exception as exc:  # noqa: BLE001 - pydicom raises many types on bad files
        raise ImageDecodeError(name, f"unreadable DICOM: {exc}") from exc
    frames = pixel_frames(ds, name)
    rows, columns = ds.get("Rows"), ds.get("Columns")
    if not rows or not columns:
        raise ImageDecodeError(name, "DICOM pixel data has no Rows/Columns")
    try:
        check_dicom_size(ds)  # from the header, before any pixel is decoded
    except TooLarge as exc:
        raise ImageDecodeError(name, f"DICOM too large to open safely: {exc}") from exc
    if decode:
        try:
            _dicom.decode_raw(ds, 0)
        except Exception as exc:  # noqa: BLE001 - decoder plugins raise anything
            raise ImageDecodeError(name, _dicom.decode_failure_reason(exc, ds)) from exc
    photometric = ds.get("PhotometricInterpretation")
    info = ImageInfo(
        media_type=DICOM,
        width=int(columns),
        height=int(rows),
        frames=frames,
        is_dicom=True,
        photometric=str(photometric) if photometric else None,
    )
    return info, ds


def png_header_info(data: bytes, *, name: str) -> ImageInfo:
    """Size of a PNG this app wrote itself from decoded pixels (header only, no decode)."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as img:
            width, height = img.size
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        raise ImageDecodeError(name, _raster_reason("PNG", exc)) from exc
    return ImageInfo(PNG, width, height, 1, False, None)
