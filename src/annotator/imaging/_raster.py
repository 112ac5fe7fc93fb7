"""PNG/JPEG pixels through Pillow, without losing depth: 16-bit grey stays 16-bit."""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from annotator.imaging.probe import ImageDecodeError

_GREY_MODES = frozenset({"I;16", "I;16B", "I;16L", "I;16N", "I", "F", "L"})


def read_raster(data: bytes, media_type: str, name: str) -> np.ndarray:
    """Grey (H x W, native depth) or uint8 RGB (H x W x 3) pixels of a PNG or JPEG.

    EXIF orientation is applied; palettes become grey or RGB; alpha is composited over
    black. Raises :class:`ImageDecodeError` for a truncated or corrupt file.
    """
    from PIL import Image, ImageOps

    label = "PNG" if media_type == "image/png" else "JPEG"
    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.load()
            image = ImageOps.exif_transpose(opened)
            return _raster_array(image)
    except (OSError, SyntaxError, ValueError, EOFError) as exc:
        reason = f"truncated {label}" if "truncated" in str(exc).lower() else f"corrupt {label}"
        raise ImageDecodeError(name, f"{reason}: {exc}") from exc


def raster_pixels(image: Any) -> np.ndarray:
    """:func:`read_raster`'s pixels of an image Pillow decoded already (import's probe)."""
    from PIL import ImageOps

    return _raster_array(ImageOps.exif_transpose(image))


def _raster_array(image: Any) -> np.ndarray:
    """Pillow image -> grey (any depth) or uint8 RGB; alpha composited over black."""
    mode = image.mode
    if mode in _GREY_MODES:
        return np.asarray(image)
    if mode == "1":
        return np.asarray(image.convert("L"))
    if mode in ("P", "PA"):
        image = image.convert("RGBA")
        mode = "RGBA"
    if mode in ("LA", "La", "RGBA", "RGBa"):
        rgba = np.asarray(image.convert("RGBA")).astype(np.float32)
        rgb = rgba[..., :3] * (rgba[..., 3:4] / 255.0)
        composed = np.floor(rgb + 0.5).astype(np.uint8)
        if mode in ("LA", "La") or _is_grey(composed):
            return np.ascontiguousarray(composed[..., 0])
        return composed
    return np.asarray(image.convert("RGB"))


def _is_grey(rgb: np.ndarray) -> bool:
    return bool(
        np.array_equal(rgb[..., 0], rgb[..., 1]) and np.array_equal(rgb[..., 1], rgb[..., 2])
    )
