"""Turn a decoded frame into display pixels and deterministic PNG bytes.

The release exporter writes DICOM exams as PNG through :func:`render_png`; the same input
always gives the same bytes (no timestamps, fixed compression), so release checksums are
stable, and the returned settings say exactly which frame and window were used.
"""

from __future__ import annotations

import io
from typing import Any

import numpy as np

from annotator.imaging.decode import DecodedFrame, decode_frame
from annotator.imaging.window import apply_window

_PNG_COMPRESS_LEVEL = 6


def to_display(
    frame: DecodedFrame,
    *,
    window: tuple[float, float] | None = None,
    invert: bool | None = None,
) -> np.ndarray:
    """uint8 display pixels of ``frame``: its default window and inversion unless given."""
    center, width = window if window is not None else frame.window
    flip = frame.invert_default if invert is None else invert
    return apply_window(frame.array, center, width, invert=flip)


def encode_png(pixels: np.ndarray) -> bytes:
    """PNG bytes of a uint8 grey (H x W) or RGB (H x W x 3) array, with no metadata."""
    from PIL import Image

    if pixels.dtype != np.uint8 or pixels.ndim not in (2, 3):
        raise ValueError(f"encode_png needs uint8 H x W or H x W x 3, got {pixels.dtype}")
    buffer = io.BytesIO()
    Image.fromarray(np.ascontiguousarray(pixels)).save(
        buffer, format="PNG", optimize=False, compress_level=_PNG_COMPRESS_LEVEL
    )
    return buffer.getvalue()


def default_frame_index(frames: int) -> int:
    """The frame shown when none is asked for: the middle one (0-based ``frames // 2``)."""
    return frames // 2


def render_png(
    data: bytes,
    *,
    frame: int | None = None,
    window: tuple[float, float] | None = None,
    name: str = "image",
) -> tuple[bytes, dict[str, Any]]:
    """Render one frame of ``data`` (DICOM, PNG or JPEG) as a deterministic PNG.

    Without ``frame`` a multi-frame file renders its middle frame; without ``window`` the
    file's window (or the data window when it has none). MONOCHROME1 is inverted. Returns
    the PNG bytes and the settings used: ``frame``, ``frames``, ``center``, ``width``,
    ``invert``, ``color``, ``window_source`` and ``policy`` (a sentence saying which
    frame was chosen and why). Raises ImageDecodeError for unreadable data and
    IndexError for a frame the file does not have.
    """
    if frame is None:
        decoded = decode_frame(data, 0, name=name)
        chosen = default_frame_index(decoded.frames)
        if chosen != 0:
            decoded = decode_frame(data, chosen, name=name)
        if decoded.frames == 1:
            policy = "single frame"
        else:
            policy = f"middle frame {chosen} of {decoded.frames} (0-based frames // 2)"
    else:
        decoded = decode_frame(data, frame, name=name)
        policy = f"requested frame {frame} of {decoded.frames}"
    center, width = window if window is not None else decoded.window
    pixels = to_display(decoded, window=(center, width))
    settings: dict[str, Any] = {
        "frame": decoded.frame,
        "frames": decoded.frames,
        "center": float(center),
        "width": float(width),
        "invert": decoded.invert_default,
        "color": decoded.is_color,
        "window_source": "requested" if window is not None else decoded.window_source,
        "policy": policy,
    }
    return encode_png(pixels), settings
