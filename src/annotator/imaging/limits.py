"""How large an image this app agrees to decode, checked from headers before any pixel is read.

A crafted file can claim 20000 x 20000 pixels or thousands of frames and make a decoder
allocate gigabytes; the header is cheap to read, so it is checked first and the file refused
with a reason. The limits are far above what a clinical image needs (a full-field mammogram is
about 4,000 x 5,000; a CT series is a few hundred slices of 512 x 512).
"""

from __future__ import annotations

from typing import Any

MAX_PIXELS_PER_FRAME = 60_000_000  # e.g. 7,745 x 7,745
MAX_FRAMES = 3_000
MAX_TOTAL_SAMPLES = 1_000_000_000  # pixels x frames x samples per pixel, about 2 GB at 16 bit
MAX_FILE_BYTES = 1 * 2**30  # one image file on disk


class TooLarge(ValueError):
    """An image whose header asks for more than the limits above."""


def check_raster_size(width: int, height: int) -> None:
    """Raise :class:`TooLarge` for a PNG/JPEG over the per-frame limit."""
    if width * height > MAX_PIXELS_PER_FRAME:
        raise TooLarge(f"{width} x {height} pixels is more than this app opens"
                       f" ({MAX_PIXELS_PER_FRAME:,} per image)")


def check_dicom_size(ds: Any) -> None:
    """Raise :class:`TooLarge` when a DICOM's Rows, Columns, frames or samples are too many."""
    def number(keyword: str, default: int) -> int:
        value = ds.get(keyword)
        try:
            return int(str(value).strip()) if value not in (None, "") else default
        except ValueError:
            return default

    rows, columns = number("Rows", 0), number("Columns", 0)
    frames, samples = number("NumberOfFrames", 1), number("SamplesPerPixel", 1)
    if rows * columns > MAX_PIXELS_PER_FRAME:
        raise TooLarge(f"{columns} x {rows} pixels per frame is more than this app opens"
                       f" ({MAX_PIXELS_PER_FRAME:,})")
    if frames > MAX_FRAMES:
        raise TooLarge(f"{frames} frames is more than this app opens ({MAX_FRAMES:,})")
    if rows * columns * frames * max(samples, 1) > MAX_TOTAL_SAMPLES:
        raise TooLarge(f"{columns} x {rows} x {frames} frames is more pixel data than this app"
                       " opens")
