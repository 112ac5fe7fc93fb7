"""Window/level to 8-bit display values, and the CT window presets.

The grey mapping is DICOM's LINEAR VOI function (PS3.3 C.11.2.1.2.1): with centre ``c``
and width ``w``, values at or below ``c - 0.5 - (w - 1) / 2`` are black, values above
``c - 0.5 + (w - 1) / 2`` are white, and in between
``y = ((x - (c - 0.5)) / (w - 1) + 0.5) * 255``, rounded half up.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class WindowPreset:
    """A named window for CT, in Hounsfield units."""

    key: str
    label: str
    center: float
    width: float


CT_PRESETS: tuple[WindowPreset, ...] = (
    WindowPreset("brain", "Brain", 40.0, 80.0),
    WindowPreset("subdural", "Subdural", 75.0, 215.0),
    WindowPreset("stroke", "Stroke", 40.0, 40.0),
    WindowPreset("bone", "Bone", 600.0, 2800.0),
    WindowPreset("soft_tissue", "Soft tissue", 50.0, 350.0),
    WindowPreset("lung", "Lung", -600.0, 1500.0),
)


def preset(key: str) -> WindowPreset:
    """The CT preset called ``key`` (e.g. ``"brain"``); KeyError naming the known keys."""
    for candidate in CT_PRESETS:
        if candidate.key == key:
            return candidate
    known = ", ".join(p.key for p in CT_PRESETS)
    raise KeyError(f"unknown window preset {key!r} (known: {known})")


def apply_window(
    array: np.ndarray, center: float, width: float, *, invert: bool = False
) -> np.ndarray:
    """Map ``array`` to uint8 display values with a linear DICOM window.

    Grey arrays (2-D) go through the window. Colour arrays (H x W x 3) that are already
    uint8 pass through unchanged (the window does not apply to them); wider colour arrays
    are scaled channel by channel with the same window. ``invert`` flips the result
    (255 - y), as MONOCHROME1 and the viewer's invert button need. Widths below 1 are
    treated as 1, the smallest width the standard allows.
    """
    values = np.asarray(array)
    if values.ndim == 3 and values.dtype == np.uint8:
        out = values.copy()
    else:
        out = _linear(values, float(center), max(float(width), 1.0))
    if invert:
        np.subtract(255, out, out=out)
    return out


def _linear(values: np.ndarray, center: float, width: float) -> np.ndarray:
    x = values.astype(np.float64, copy=False)
    if width <= 1.0:
        # The standard's width-1 window is a threshold at c - 0.5.
        return np.where(x > center - 0.5, 255, 0).astype(np.uint8)
    y = ((x - (center - 0.5)) / (width - 1.0) + 0.5) * 255.0
    # Half-up rounding, so each uint8 value is floor(y + 0.5) of the formula's y.
    y = np.floor(np.clip(y, 0.0, 255.0) + 0.5)
    return y.astype(np.uint8)


def full_range_window(bits: int) -> tuple[float, float]:
    """The identity window for ``bits``-bit data: 0 maps to 0 and 2**bits - 1 to 255."""
    span = float(2**bits)
    return span / 2.0, span


# --- fast windowing at screen size ---------------------------------------------------------

LUT_LEVELS = 65536  # uint16 indices: exact for integer-valued data spanning < 65,536 values


@dataclass(frozen=True)
class ScreenFrame:
    """A grey frame prepared once (off the GUI thread) for windowing on every drag.

    ``indices`` is the frame reduced to at most the screen's size (every ``step``-th pixel)
    and quantised to uint16: pixel value = ``offset + indices * scale``. A window is then a
    65,536-entry lookup table, so its cost depends on the screen, not the image.
    """

    indices: np.ndarray
    offset: float
    scale: float
    step: int


def prepare_for_screen(array: np.ndarray, screen: tuple[int, int]) -> ScreenFrame:
    """Reduce a 2-D grey ``array`` to ``screen`` (width, height) or less and quantise it."""
    values = np.asarray(array)
    width, height = max(1, screen[0]), max(1, screen[1])
    return prepare_stepped(values, max(1, -(-values.shape[1] // width),
                                       -(-values.shape[0] // height)))


def prepare_stepped(array: np.ndarray, step: int) -> ScreenFrame:
    """:func:`prepare_for_screen` keeping every ``step``-th pixel of each row and column."""
    step = max(1, int(step))
    small = np.asarray(array)[::step, ::step]
    low, high = (float(small.min()), float(small.max())) if small.size else (0.0, 0.0)
    integral = bool(np.all(np.floor(small) == small)) if small.size else True
    scale = 1.0 if integral and high - low < LUT_LEVELS else max((high - low) / (LUT_LEVELS - 1),
                                                                 1e-12)
    indices = np.rint((small - low) / scale).astype(np.uint16)
    return ScreenFrame(indices, low, scale, step)


def window_lut(
    frame: ScreenFrame, center: float, width: float, *, invert: bool = False
) -> np.ndarray:
    """The prepared frame through the same LINEAR window as :func:`apply_window` (uint8)."""
    levels = frame.offset + frame.scale * np.arange(LUT_LEVELS, dtype=np.float64)
    table = apply_window(levels, center, width, invert=invert)
    return np.take(table, frame.indices)


def window_for_screen(
    array: np.ndarray, center: float, width: float, screen: tuple[int, int],
    *, invert: bool = False,
) -> np.ndarray:
    """Prepare and window in one call (a fresh frame; the viewer keeps the prepared one)."""
    return window_lut(prepare_for_screen(array, screen), center, width, invert=invert)
