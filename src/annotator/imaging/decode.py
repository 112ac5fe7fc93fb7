"""Decode one frame of a PNG, JPEG or DICOM file into an array, before any 8-bit step.

Grey frames come out as float32 in the file's own units (Hounsfield units for CT after
the modality LUT; raw values for PNG/JPEG, so a 16-bit PNG keeps values above 255).
Colour frames come out as H x W x 3 RGB in their stored integer type. Each frame carries
the window to show it with by default; :func:`annotator.imaging.window.apply_window`
turns it into display values.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from annotator.imaging import _dicom
from annotator.imaging._raster import read_raster
from annotator.imaging.probe import DICOM, ImageDecodeError, pixel_frames, sniff_media_type
from annotator.imaging.window import full_range_window

if TYPE_CHECKING:
    from pydicom.dataset import Dataset

WindowSource = Literal["file", "data", "full_range"]
_DATA_PERCENTILES = (0.5, 99.5)


@dataclass(frozen=True, eq=False)
class DecodedFrame:
    """One decoded frame and how to display it by default."""

    array: np.ndarray  # float32 H x W (grey) or H x W x 3 RGB (colour, stored dtype)
    is_color: bool
    photometric: str | None  # DICOM PhotometricInterpretation; None for PNG/JPEG
    window: tuple[float, float]  # default (center, width)
    window_source: WindowSource  # "file", "data" (percentiles) or "full_range" (identity)
    data_window: tuple[float, float]  # 0.5-99.5 percentile window (the "auto" window)
    frame: int
    frames: int
    invert_default: bool  # True for MONOCHROME1
    media_type: str
    modality: str | None  # DICOM Modality ("CT" means the CT presets apply)


def decode_frame(
    data: bytes, frame: int = 0, *, name: str = "image", key: str | None = None,
    percentiles: bool = True,
) -> DecodedFrame:
    """Decode frame ``frame`` (0-based) of ``data``.

    ``key`` (e.g. the store's SHA-256 of ``data``) spares hashing when looking up the
    parsed-dataset cache. ``percentiles=False`` makes ``data_window`` span the smallest to
    the largest value (cheaper; for a frame that is analysed, not shown). Raises
    :class:`ImageDecodeError` for unreadable input and IndexError when ``frame`` is outside
    the file's frames.
    """
    media_type = sniff_media_type(data)
    if media_type is None:
        raise ImageDecodeError(name, "not a PNG, JPEG or DICOM file")
    if media_type == DICOM:
        return _decode_dicom(data, frame, name, key, percentiles)
    if frame != 0:
        raise IndexError(f"{name}: frame {frame} out of range (the image has 1 frame)")
    return _decode_raster(data, media_type, name, percentiles)


def remember_parsed(data: bytes, dataset: Any, key: str) -> None:
    """Let :func:`decode_frame` (given ``key``, or the same bytes object) use ``dataset``,
    the caller's parse of ``data``, instead of parsing it again."""
    _dicom.remember(data, dataset, key)


# --- DICOM -------------------------------------------------------------------------------


def _decode_dicom(data: bytes, frame: int, name: str, key: str | None,
                  percentiles: bool = True) -> DecodedFrame:
    try:
        entry = _dicom.cached_parse(data, key)
    except Exception as exc:  # noqa: BLE001 - pydicom raises many types on bad files
        raise ImageDecodeError(name, f"unreadable DICOM: {exc}") from exc
    ds = entry.ds
    frames = pixel_frames(ds, name)
    if not 0 <= frame < frames:
        raise IndexError(f"{name}: frame {frame} out of range (the file has {frames})")
    photometric = str(ds.get("PhotometricInterpretation", "") or "MONOCHROME2").strip()
    try:
        with entry.lock:  # one decoder at a time per dataset; datasets are not thread-safe
            raw = _dicom.decode_raw(ds, frame)
            if photometric == "PALETTE COLOR":
                from pydicom.pixels.processing import apply_color_lut

                raw = apply_color_lut(raw, ds)
    except Exception as exc:  # noqa: BLE001 - decoder plugins raise anything
        raise ImageDecodeError(name, _dicom.decode_failure_reason(exc, ds)) from exc
    modality = str(ds.get("Modality", "") or "").strip() or None
    if raw.ndim == 3:
        bits = _color_bits(ds, photometric, raw)
        return _color_frame(raw, photometric, bits, frame, frames, DICOM, modality)
    values = _modality_values(raw, ds, frame)
    data_window = window_from_data(values) if percentiles else range_window(values)
    file_window = _file_window(ds, frame)
    source: WindowSource = "file" if file_window else "data"
    return DecodedFrame(
        array=values,
        is_color=False,
        photometric=photometric,
        window=file_window or data_window,
        window_source=source,
        data_window=data_window,
        frame=frame,
        frames=frames,
        invert_default=photometric == "MONOCHROME1",
        media_type=DICOM,
        modality=modality,
    )


def _modality_values(raw: np.ndarray, ds: Dataset, frame: int) -> np.ndarray:
    """Stored values -> modality units (e.g. HU) as float32."""
    from pydicom.dataset import Dataset
    from pydicom.pixels.processing import apply_modality_lut

    source: Dataset = ds
    if "ModalityLUTSequence" not in ds and "RescaleSlope" not in ds:
        # Enhanced multi-frame objects keep the rescale in functional groups.
        slope = _functional_value(ds, frame, "PixelValueTransformationSequence", "RescaleSlope")
        intercept = _functional_value(
            ds, frame, "PixelValueTransformationSequence", "RescaleIntercept"
        )
        if slope is not None and intercept is not None:
            source = Dataset()
            source.RescaleSlope = slope
            source.RescaleIntercept = intercept
    values = apply_modality_lut(raw, source)
    return np.asarray(values, dtype=np.float32)


def _file_window(ds: Dataset, frame: int) -> tuple[float, float] | None:
    """First WindowCenter/WindowWidth pair (top level or functional groups), if usable."""
    center: Any = ds.get("WindowCenter")
    width: Any = ds.get("WindowWidth")
    if center is None or width is None:
        center = _functional_value(ds, frame, "FrameVOILUTSequence", "WindowCenter")
        width = _functional_value(ds, frame, "FrameVOILUTSequence", "WindowWidth")
    parsed_center, parsed_width = _first_number(center), _first_number(width)
    if parsed_center is None or parsed_width is None or parsed_width < 1.0:
        return None
    return parsed_center, parsed_width


def _first_number(value: Any) -> float | None:
    if value is None or value == "":
        return None
    if isinstance(value, list | tuple) or type(value).__name__ == "MultiValue":
        if len(value) == 0:
            return None
        value = value[0]
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if np.isfinite(number) else None


def _functional_value(ds: Dataset, frame: int, sequence: str, keyword: str) -> Any:
    """``keyword`` from the per-frame functional group of ``frame``, else the shared one."""
    for groups, index in (
        ("PerFrameFunctionalGroupsSequence", frame),
        ("SharedFunctionalGroupsSequence", 0),
    ):
        items = ds.get(groups)
        if not items or index >= len(items):
            continue
        inner = items[index].get(sequence)
        if inner and keyword in inner[0]:
            return inner[0].get(keyword)
    return None


def _color_bits(ds: Dataset, photometric: str, arr: np.ndarray) -> int:
    if arr.dtype == np.uint8:
        return 8
    if photometric == "PALETTE COLOR":
        descriptor = ds.get("RedPaletteColorLookupTableDescriptor")
        if descriptor is not None and len(descriptor) == 3:
            return int(descriptor[2])
    bits = ds.get("BitsStored")
    return int(bits) if bits else int(arr.dtype.itemsize * 8)


def _color_frame(array: Any, photometric: str | None, bits: int, frame: int, frames: int,
                 media_type: str, modality: str | None) -> DecodedFrame:
    """A colour frame: shown over the full range of its bits, never inverted."""
    window = full_range_window(bits)
    return DecodedFrame(
        array=array,
        is_color=True,
        photometric=photometric,
        window=window,
        window_source="full_range",
        data_window=window,
        frame=frame,
        frames=frames,
        invert_default=False,
        media_type=media_type,
        modality=modality,
    )


# --- PNG / JPEG --------------------------------------------------------------------------


def _decode_raster(data: bytes, media_type: str, name: str,
                   percentiles: bool = True) -> DecodedFrame:
    array = read_raster(data, media_type, name)
    if array.ndim == 3:
        return _color_frame(array, None, 8, 0, 1, media_type, None)
    values = array.astype(np.float32)
    data_window = window_from_data(values) if percentiles else range_window(values)
    # 8-bit grey is shown as stored; deeper grey (16-bit PNG) gets the data's window.
    eight_bit = array.dtype == np.uint8
    source: WindowSource = "full_range" if eight_bit else "data"
    return DecodedFrame(
        array=values,
        is_color=False,
        photometric=None,
        window=full_range_window(8) if eight_bit else data_window,
        window_source=source,
        data_window=data_window,
        frame=0,
        frames=1,
        invert_default=False,
        media_type=media_type,
        modality=None,
    )


def range_window(values: np.ndarray) -> tuple[float, float]:
    """A (center, width) from the smallest to the largest value: cheaper than percentiles,
    for callers that do not show the frame (``decode_frame(percentiles=False)``)."""
    if values.size == 0:
        return 0.0, 1.0
    low, high = float(np.nanmin(values)), float(np.nanmax(values))
    return (low + high) / 2.0, max(high - low, 1.0)


def window_from_data(values: np.ndarray) -> tuple[float, float]:
    """A (center, width) covering the 0.5-99.5 percentiles of a grey frame."""
    finite = values[np.isfinite(values)] if values.dtype.kind == "f" else values
    if finite.size == 0:
        return 0.0, 1.0
    low, high = (float(v) for v in np.percentile(finite, _DATA_PERCENTILES))
    return (low + high) / 2.0, max(high - low, 1.0)
