"""Drawn (non-photographic) demo figures: a visual-field chart and an MR spectrum."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

Array = NDArray[Any]


def perimetry() -> Array:
    """Two Goldmann-style visual-field charts with both temporal halves lost."""
    image = Image.new("L", (640, 340), 255)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    # Each eye's temporal field lies on its own side: left eye left, right eye right.
    for cx, label, lost in ((165, "LEFT EYE (OS)", (90, 270)), (475, "RIGHT EYE (OD)", (270, 90))):
        cy, radius = 180, 130
        box = (cx - radius, cy - radius, cx + radius, cy + radius)
        draw.pieslice(box, lost[0], lost[1], fill=110)
        for r in (130, 98, 65, 33):
            draw.ellipse((cx - r, cy - r, cx + r, cy + r), outline=0, width=1)
        draw.line((cx - radius, cy, cx + radius, cy), fill=0)
        draw.line((cx, cy - radius, cx, cy + radius), fill=0)
        blind = cx + (22 if cx > 320 else -22)  # physiological blind spot, temporal side
        draw.ellipse((blind - 6, cy - 5, blind + 6, cy + 7), fill=40)
        draw.text((cx - 45, 22), label, fill=0, font=font)
    draw.text((12, 318), "Kinetic perimetry, isopters V4e..I2e. Shaded: not seen.", fill=0,
              font=font)
    return np.asarray(image)


# (ppm, height, half width) of the resonances of a pyogenic abscess at short echo time.
_ABSCESS_PEAKS = [
    (0.90, 0.70, 0.05),  # cytosolic amino acids (valine, leucine, isoleucine)
    (1.30, 0.75, 0.035),  # lactate doublet
    (1.36, 0.75, 0.035),
    (1.30, 0.25, 0.15),  # lipids
    (1.92, 0.50, 0.035),  # acetate
    (2.40, 0.60, 0.035),  # succinate
    (3.20, 0.08, 0.04),  # choline, barely above noise
    (3.02, 0.06, 0.04),  # creatine
]
_LABELS = [(0.90, "AA"), (1.33, "Lac"), (1.92, "Ac"), (2.40, "Suc")]


def spectrum(seed: int) -> Array:
    """A single-voxel proton spectrum (4.2..0.4 ppm, right to left as usual) on black."""
    width, height, left, right, base = 480, 300, 40, 460, 250
    ppm = np.linspace(4.2, 0.4, right - left)
    signal = np.zeros_like(ppm)
    for centre, amp, half in _ABSCESS_PEAKS:
        signal += amp * half**2 / ((ppm - centre) ** 2 + half**2)
    signal += np.random.default_rng(seed).normal(0.0, 0.012, ppm.shape)
    image = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(image)
    font = ImageFont.load_default()
    points = [(left + i, base - 190 * float(v)) for i, v in enumerate(signal)]
    draw.line(points, fill=255, width=2)
    draw.line((left, base + 8, right, base + 8), fill=200)
    for tick in (4, 3, 2, 1):
        x = left + (4.2 - tick) / 3.8 * (right - left)
        draw.line((x, base + 8, x, base + 14), fill=200)
        draw.text((x - 3, base + 18), str(tick), fill=200, font=font)
    for centre, name in _LABELS:
        x = left + (4.2 - centre) / 3.8 * (right - left)
        peak = base - 190 * float(np.interp(centre, ppm[::-1], signal[::-1])) - 18
        draw.text((x - 8, peak - 4), name, fill=255, font=font)
    draw.text((left, 10), "PRESS TE 35 ms, voxel in the lesion core", fill=200, font=font)
    draw.text((right - 30, base + 30), "ppm", fill=200, font=font)
    return np.asarray(image)
