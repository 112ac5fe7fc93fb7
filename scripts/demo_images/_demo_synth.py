"""Synthetic contrasts and lesions on the MNI152 T1 template (demo image builder only).

The template is a skull-stripped adult T1 volume (1 mm, RAS voxel grid). Other "sequences"
are monotone remappings of its T1 intensity (CSF, grey and white matter keep their detail),
a head shell (CSF rim, skull, scalp) is grown around the brain of each slice, and lesions are
soft ellipsoids with one target value per contrast. Realism within reason: a teaching demo.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

Array = NDArray[Any]
Point = tuple[float, float, float]

# Contrast tables: T1 intensity (0..1; CSF ~0.25, grey ~0.65, white ~0.87) -> signal.
_TABLES: dict[str, tuple[list[float], list[float]]] = {
    "T1": ([0.0, 1.0], [0.0, 1.0]),
    "T1C": ([0.0, 1.0], [0.0, 1.0]),
    "T2": ([0.0, 0.28, 0.65, 0.87, 1.0], [0.95, 0.9, 0.5, 0.3, 0.25]),
    "FLAIR": ([0.0, 0.28, 0.45, 0.65, 0.87, 1.0], [0.05, 0.1, 0.42, 0.55, 0.38, 0.35]),
    "DWI": ([0.0, 0.28, 0.45, 0.65, 0.87, 1.0], [0.03, 0.06, 0.38, 0.5, 0.42, 0.42]),
    "ADC": ([0.0, 0.28, 0.65, 0.87, 1.0], [0.95, 0.9, 0.45, 0.38, 0.36]),
    "CT": ([0.0, 0.28, 0.65, 0.87, 1.0], [5.0, 8.0, 38.0, 28.0, 27.0]),
    "PET": ([0.0, 0.28, 0.5, 0.65, 0.87, 1.0], [0.02, 0.05, 0.6, 1.0, 0.3, 0.3]),
    "CBV": ([0.0, 0.28, 0.5, 0.65, 0.87, 1.0], [0.1, 0.15, 0.6, 0.8, 0.3, 0.3]),
}
# Head shell outside the brain: CSF rim, inner/outer table, diploe, scalp, air.
_SHELL: dict[str, tuple[float, float, float, float, float]] = {
    "T1": (0.12, 0.03, 0.45, 0.8, 0.0),
    "T1C": (0.15, 0.03, 0.45, 0.8, 0.0),
    "T2": (0.9, 0.03, 0.5, 0.6, 0.0),
    "FLAIR": (0.06, 0.03, 0.4, 0.55, 0.0),
    "DWI": (0.03, 0.0, 0.04, 0.06, 0.0),
    "ADC": (0.9, 0.0, 0.05, 0.08, 0.0),
    "CT": (6.0, 1400.0, 600.0, -40.0, -1000.0),
    "PET": (0.02, 0.01, 0.02, 0.06, 0.0),
    "CBV": (0.0, 0.0, 0.0, 0.0, 0.0),
}
_NOISE = {"CT": 3.0, "DWI": 0.02, "ADC": 0.02, "PET": 0.01, "CBV": 0.01}
_BLUR = {"DWI": 0.8, "ADC": 0.8, "PET": 2.5, "CBV": 1.5}


@dataclass(frozen=True)
class Blob:
    """A soft ellipsoid lesion component (world mm, RAS) with a target value per contrast.

    ``shell`` = (inner, outer) radius fractions makes a rim; ``tissue`` restricts the blob
    to grey matter, white matter or brain; ``extra_axial`` lets it push the skull outward.
    """

    center: Point
    radii: Point
    values: dict[str, float]
    shell: tuple[float, float] | None = None
    tissue: str | None = "brain"
    edge: float = 0.25
    wobble: float = 0.0
    weight: float = 1.0
    extra_axial: bool = False


@dataclass
class Slice:
    """One display-oriented plane: tissue maps plus world coordinates of every pixel."""

    t1: Array
    gm: Array
    wm: Array
    xyz: tuple[Array, Array, Array]


@dataclass
class Brain:
    """The padded template volume and its grey/white probability maps (RAS, 1 mm)."""

    t1: Array
    gm: Array
    wm: Array
    origin: Point

    def plane(self, view: str, mm: float) -> Slice:
        """Return the axial (z), sagittal (x) or coronal (y) plane at world position ``mm``."""
        nx, ny, nz = self.t1.shape
        ox, oy, oz = self.origin
        xs = ox + np.arange(nx)[::-1]  # image columns: patient right on the viewer's left
        ys = oy + np.arange(ny)[::-1]  # anterior first (axial rows, sagittal columns)
        zs = oz + np.arange(nz)[::-1]  # superior on top
        if view == "axial":
            k = int(round(mm - oz))
            pick = [v[::-1, ::-1, k].T for v in (self.t1, self.gm, self.wm)]
            gx, gy = np.meshgrid(xs, ys)
            xyz = (gx, gy, np.full_like(gx, oz + k))
        elif view == "sagittal":
            i = int(round(mm - ox))
            pick = [v[i, ::-1, ::-1].T for v in (self.t1, self.gm, self.wm)]
            gy, gz = np.meshgrid(ys, zs)
            xyz = (np.full_like(gy, ox + i), gy, gz)
        elif view == "coronal":
            j = int(round(mm - oy))
            pick = [v[::-1, j, ::-1].T for v in (self.t1, self.gm, self.wm)]
            gx, gz = np.meshgrid(xs, zs)
            xyz = (gx, np.full_like(gx, oy + j), gz)
        else:
            raise ValueError(f"unknown view {view!r}")
        return Slice(pick[0], pick[1], pick[2], xyz)


def load_brain(t1_path: str, gm_path: str, wm_path: str, pad: int = 18) -> Brain:
    """Read the three nilearn template volumes with nibabel; pad room for the head shell."""
    import nibabel as nib

    vols = []
    for path in (t1_path, gm_path, wm_path):
        image: Any = nib.load(path)
        data = np.asarray(image.get_fdata(), dtype=np.float32) / 255.0
        vols.append(np.pad(data, ((pad, pad), (pad, pad), (4, pad))))
    affine = np.asarray(nib.load(t1_path).affine)  # type: ignore[attr-defined]
    origin = (float(affine[0, 3]) - pad, float(affine[1, 3]) - pad, float(affine[2, 3]) - 4)
    return Brain(vols[0], vols[1], vols[2], origin)


def blob_mask(blob: Blob, sl: Slice) -> Array:
    """Soft 0..1 mask of ``blob`` on the slice (before the tissue restriction)."""
    offs = [(g - c) / r for g, c, r in zip(sl.xyz, blob.center, blob.radii, strict=True)]
    rho = np.sqrt(offs[0] ** 2 + offs[1] ** 2 + offs[2] ** 2)
    if blob.wobble:
        theta = np.arctan2(offs[1], offs[0])
        phi = np.arctan2(offs[2], np.hypot(offs[0], offs[1]))
        rho = rho * (1.0 + blob.wobble * np.sin(3 * theta + 1.0) * np.cos(2 * phi))

    def inside(radius: float) -> Array:
        return np.asarray(np.clip((radius - rho) / blob.edge + 0.5, 0.0, 1.0))

    mask = inside(blob.shell[1]) - inside(blob.shell[0]) if blob.shell else inside(1.0)
    return np.asarray(np.clip(mask, 0.0, 1.0))


def _tissue(sl: Slice, name: str | None) -> Array | float:
    from scipy import ndimage

    brain = sl.t1 > 0.05
    if name == "csf":  # sulci, fissures and the enclosed basal cisterns (subarachnoid blood)
        enclosed = ndimage.binary_fill_holes(ndimage.binary_closing(brain, iterations=3))
        return np.asarray(np.clip((0.45 - sl.t1) / 0.15, 0.0, 1.0) * enclosed)
    if name == "surface":  # the outer 9 mm of the brain (a subdural collection)
        depth = ndimage.distance_transform_edt(ndimage.binary_fill_holes(brain))
        return np.asarray(np.clip((9.5 - depth) / 2.0, 0.0, 1.0) * brain)
    if name == "gm":
        return np.asarray(np.clip(sl.gm * 1.4, 0.0, 1.0))
    if name == "wm":
        return np.asarray(np.clip(sl.wm * 1.2, 0.0, 1.0))
    if name == "brain":
        return brain.astype(np.float32)
    return 1.0


def render(sl: Slice, contrast: str, blobs: list[Blob], seed: int) -> Array:
    """Signal of one contrast on the slice, with head shell, lesions, blur and noise."""
    from scipy import ndimage

    xs, ys = _TABLES[contrast]
    brain = sl.t1 > 0.05
    out = np.where(brain, np.interp(sl.t1, xs, ys), 0.0).astype(np.float64)
    masks = [blob_mask(b, sl) for b in blobs]
    intracranial = brain.copy()
    for b, m in zip(blobs, masks, strict=True):
        if b.extra_axial:
            intracranial |= m > 0.5
    intracranial = ndimage.binary_fill_holes(ndimage.binary_closing(intracranial, iterations=2))
    depth = ndimage.distance_transform_edt(~intracranial)
    rim, table, diploe, scalp, air = _SHELL[contrast]
    shell = np.select(
        [depth == 0, depth <= 2, depth <= 3.5, depth <= 6.5, depth <= 8, depth <= 13],
        [rim, rim, table, diploe, table, scalp],
        air,
    )
    out = np.where(brain, out, shell)
    if contrast == "CT":  # skin is denser than the subcutaneous fat beneath it
        out = np.where((depth > 11) & (depth <= 13), 35.0, out)
    for b, m in zip(blobs, masks, strict=True):
        if contrast not in b.values:
            continue
        w = m * _tissue(sl, None if b.extra_axial else b.tissue) * b.weight
        out = out * (1.0 - w) + b.values[contrast] * w
    out = ndimage.gaussian_filter(out, _BLUR.get(contrast, 0.6))  # soften synthetic edges
    rng = np.random.default_rng(seed)
    sigma = _NOISE.get(contrast, 0.012)
    head = depth <= 13
    out = out + rng.normal(0.0, sigma, out.shape) * (head if contrast != "CT" else 1.0)
    return np.asarray(out)


def window(values: Array, center: float, width: float) -> Array:
    """Linear window to uint8 (values below/above the window clip to black/white)."""
    low = center - width / 2.0
    scaled = (values - low) / width * 255.0
    return np.asarray(np.clip(np.round(scaled), 0, 255).astype(np.uint8))


def auto_window(values: Array) -> Array:
    """MR-style window from the 0.5th to the 99.7th percentile of the head."""
    head = values[values > 0.02]
    low, high = np.percentile(head, [0.5, 99.7]) if head.size else (0.0, 1.0)
    return window(values, (low + high) / 2.0, max(float(high - low), 1e-6))


def colormap(values: Array, kind: str) -> Array:
    """0..1 values to an RGB uint8 image ("hot" for PET, "jet" for perfusion maps)."""
    v = np.clip(values, 0.0, 1.0)
    if kind == "hot":
        rgb = np.stack([np.clip(3 * v, 0, 1), np.clip(3 * v - 1, 0, 1), np.clip(3 * v - 2, 0, 1)])
    else:
        rgb = np.stack(
            [
                np.clip(1.5 - np.abs(4 * v - 3), 0, 1),
                np.clip(1.5 - np.abs(4 * v - 2), 0, 1),
                np.clip(1.5 - np.abs(4 * v - 1), 0, 1),
            ]
        )
        rgb = rgb * (v > 0.02)
    return np.asarray(np.round(np.moveaxis(rgb, 0, -1) * 255).astype(np.uint8))


def vessels(sl: Slice, paths: list[list[tuple[float, float]]], radius: float) -> Array:
    """Soft mask of tubes along axial polylines (x, y in world mm) for a CTA-style MIP."""
    gx, gy = sl.xyz[0], sl.xyz[1]
    dist = np.full(gx.shape, np.inf)
    for path in paths:
        for (x0, y0), (x1, y1) in zip(path[:-1], path[1:], strict=True):
            dx, dy = x1 - x0, y1 - y0
            t = np.clip(((gx - x0) * dx + (gy - y0) * dy) / max(dx * dx + dy * dy, 1e-9), 0, 1)
            dist = np.minimum(dist, np.hypot(gx - (x0 + t * dx), gy - (y0 + t * dy)))
    return np.asarray(np.clip(radius + 0.5 - dist, 0.0, 1.0))


def downsample(values: Array, factor: int) -> Array:
    """Block-average by ``factor`` (low-matrix sequences such as DWI look the part)."""
    h, w = (values.shape[0] // factor) * factor, (values.shape[1] // factor) * factor
    v = values[:h, :w]
    return np.asarray(v.reshape(h // factor, factor, w // factor, factor).mean(axis=(1, 3)))
