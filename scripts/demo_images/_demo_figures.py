"""Figure recipes: which image of which case is made from which source, and how."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
from _demo_dicom import write_derived_ct, write_enhanced_mr, write_series
from _demo_io import (
    HERE,
    nilearn_file,
    package_path,
    pydicom_file,
    record,
    save_image,
    seed_of,
)
from _demo_synth import (
    Blob,
    Brain,
    auto_window,
    downsample,
    load_brain,
    render,
    vessels,
    window,
)
from numpy.typing import NDArray

Array = NDArray[Any]
T1, GM, WM = (f"mni_icbm152_{t}_tal_nlin_sym_09a_converted.nii.gz" for t in ("t1", "gm", "wm"))
NAMES = {"T1": "T1", "T1C": "post-contrast T1", "T2": "T2", "FLAIR": "FLAIR", "DWI": "DWI b1000",
         "ADC": "ADC map", "CT": "CT", "PET": "FDG PET", "CBV": "rCBV map"}
# nilearn is located, not imported: only nibabel reads the volumes.
T1_SOURCE = package_path(nilearn_file(T1)) + " (+ the _gm_ and _wm_ maps)"


def _mni(rel: str, pixels: Array, what: str, text: dict[str, str] | None = None) -> None:
    save_image(rel, pixels, "MNI", T1_SOURCE, what, text=text)


def mr(b: Brain, rel: str, view: str, mm: float, contrast: str, blobs: list[Blob],
       lesion: str, down: int = 1, label: str | None = None) -> None:
    """A synthetic MR plane, auto-windowed, as an 8-bit PNG; ``label`` is burned in."""
    signal = render(b.plane(view, mm), contrast, blobs, seed_of(rel))
    if down > 1:
        signal = downsample(signal, down)
    axis = {"axial": "z", "sagittal": "x", "coronal": "y"}[view]
    pixels = auto_window(signal)
    burned = ""
    if label is not None:
        pixels = burn_label(pixels, label)
        burned = f"; made-up burned-in text {label!r} (fictional, for the redaction demo)"
    _mni(rel, pixels, f"{view} plane {axis}={mm:+g} mm; synthetic "
         f"{NAMES[contrast]} contrast from T1 intensity{lesion}{burned}; 8-bit PNG")


def burn_label(pixels: Array, label: str) -> Array:
    """``label`` in white DejaVu Sans 14 px at the top left, as a scanner prints a name."""
    from PIL import Image, ImageDraw, ImageFont

    from annotator.bench.text_images import font_path

    image = Image.fromarray(pixels)
    font = ImageFont.truetype(str(font_path()), 14)
    ImageDraw.Draw(image).text((6, 4), label, font=font, fill=255)
    return np.asarray(image)


def ct(b: Brain, rel: str, view: str, mm: float, blobs: list[Blob], lesion: str,
       win: tuple[float, float] = (40, 80), extra: Array | None = None,
       text: dict[str, str] | None = None) -> None:
    """A synthetic CT plane (Hounsfield units, grown skull) windowed to 8 bits."""
    hu = render(b.plane(view, mm), "CT", blobs, seed_of(rel))
    if extra is not None:
        hu = hu + extra
    axis = {"axial": "z", "sagittal": "x", "coronal": "y"}[view]
    _mni(rel, window(hu, *win), f"{view} plane {axis}={mm:+g} mm; synthetic CT (HU from T1 "
         f"intensity, synthetic skull){lesion}; window L{win[0]:g}/W{win[1]:g}; 8-bit PNG",
         text=text)


def cta(b: Brain, rel: str, paths: list[list[tuple[float, float]]], lesion: str,
        aneurysm: tuple[float, float, float] | None = None) -> None:
    """A CTA-style axial MIP at the circle of Willis with drawn arteries."""
    from scipy import ndimage

    sl = b.plane("axial", -12)
    hu = render(sl, "CT", [], seed_of(rel))
    tubes = vessels(sl, paths, 1.6)
    if aneurysm:
        x, y, r = aneurysm
        tubes = np.maximum(tubes, np.clip(r + 0.5 - np.hypot(sl.xyz[0] - x, sl.xyz[1] - y), 0, 1))
    tubes = ndimage.gaussian_filter(tubes, 0.7)
    mip = np.maximum(hu, hu * (1 - tubes) + 380.0 * tubes)
    _mni(rel, window(mip, 150, 600), "axial plane z=-12 mm; synthetic CT with drawn arteries of "
         f"the circle of Willis (CTA-style MIP){lesion}; window L150/W600; 8-bit PNG")


def mr_series(b: Brain, folder: str, zs: list[float], contrast: str, blobs: list[Blob],
              key: str, **kw: Any) -> None:
    """Consecutive axial MR slices as single-frame DICOM files (16-bit, 12 stored)."""
    planes = [b.plane("axial", z) for z in zs]
    data = [np.clip(np.round(render(p, contrast, blobs, seed_of(f"{key}{z}")) * 2000), 0, 4095)
            for p, z in zip(planes, zs, strict=True)]
    low, high = np.percentile(np.concatenate([d[d > 40] for d in data]), [1, 99.7])
    win = ([f"{(low + high) / 2:.0f}"], [f"{high - low:.0f}"])
    slices = [(d, _corner(p.xyz)) for d, p in zip(data, planes, strict=True)]
    for path in write_series(HERE / folder, slices, modality="MR", key=key, window=win, **kw):
        _register(path, f"axial slice of a {len(zs)}-slice MR series z={zs[0]:+g}..{zs[-1]:+g} "
                  f"mm; synthetic {NAMES[contrast]}; DICOM MR, 12-bit, identifying attributes "
                  "of a fictional patient")


def ct_series(b: Brain, folder: str, zs: list[float], blobs: list[Blob], key: str,
              **kw: Any) -> None:
    """Consecutive axial CT slices (stored = HU + 1024, brain and bone windows)."""
    planes = [b.plane("axial", z) for z in zs]
    slices = [(np.clip(np.round(render(p, "CT", blobs, seed_of(f"{key}{z}")) + 1024), 0, 4095),
               _corner(p.xyz)) for p, z in zip(planes, zs, strict=True)]
    win = (["40", "500"], ["80", "2000"])
    for path in write_series(HERE / folder, slices, modality="CT", key=key, window=win, **kw):
        _register(path, f"axial slice of a {len(zs)}-slice CT series z={zs[0]:+g}..{zs[-1]:+g} "
                  "mm; synthetic CT in HU (rescale -1024); brain and bone windows; fictional "
                  "patient identity")


def _corner(xyz: tuple[Array, Array, Array]) -> tuple[float, float, float]:
    return float(xyz[0][0, 0]), float(xyz[1][0, 0]), float(xyz[2][0, 0])


def _register(path: Path, what: str) -> None:
    record(path.relative_to(HERE).as_posix(), "MNI", T1_SOURCE, what)


def multiframe(b: Brain, rel: str, zs: list[float], contrast: str, blobs: list[Blob],
               key: str, **kw: Any) -> None:
    """An axial slab as one Enhanced MR DICOM with NumberOfFrames = len(zs)."""
    planes = [b.plane("axial", z) for z in zs]
    data = [np.clip(np.round(render(p, contrast, blobs, seed_of(f"{key}{z}")) * 2000), 0, 4095)
            for p, z in zip(planes, zs, strict=True)]
    low, high = np.percentile(np.concatenate([d[d > 40] for d in data]), [1, 99.7])
    frames = [(d, _corner(p.xyz)) for d, p in zip(data, planes, strict=True)]
    what = (f"{len(zs)}-frame axial slab z={zs[0]:+g}..{zs[-1]:+g} mm; synthetic "
            f"{NAMES[contrast]}; Enhanced MR DICOM, RLE Lossless, per-frame positions; "
            "fictional patient identity")
    path = record(rel, "MNI", T1_SOURCE, what)
    write_enhanced_mr(path, frames, key=key, window=(f"{(low + high) / 2:.0f}",
                      f"{high - low:.0f}"), **kw)


def spine_ct(rel_dcm: str, rel_png: str) -> None:
    """CT_small.dcm with a synthetic osteoid osteoma nidus in the left lamina."""
    import pydicom

    src = pydicom_file("CT_small.dcm")
    ds = pydicom.dcmread(src)
    hu = ds.pixel_array * float(ds.RescaleSlope) + float(ds.RescaleIntercept)
    from scipy import ndimage

    rows, cols = np.mgrid[: hu.shape[0], : hu.shape[1]]
    r = np.hypot((rows - 61.5) * 1.3, cols - 72.5)
    bone = ndimage.gaussian_filter((hu > 250).astype(float), 1.5) > 0.2  # lamina and its rim
    sclerosis = np.clip((10.0 - r) / 4.0, 0, 1) * (bone | (r < 7))  # thickened, dense lamina
    hu = hu * (1 - sclerosis) + np.maximum(hu, 650.0) * sclerosis
    nidus = np.clip((4.2 - r) / 1.2, 0, 1)  # lucent nidus with a blurred margin
    hu = hu * (1 - nidus) + 150.0 * nidus
    hu = hu + 600.0 * np.exp(-(r**2) / 2.0)  # central mineralisation
    hu = hu + np.random.default_rng(seed_of(rel_dcm)).normal(0, 12, hu.shape) * sclerosis
    what = "CT_small.dcm pixels with a synthetic nidus (lucent, central dot, sclerosis) in " \
           "the left lamina; new UIDs; DICOM CT"
    write_derived_ct(src, record(rel_dcm, "NEMA_DERIVED", package_path(src), what), hu,
                     key=rel_dcm, description="Synthetic osteoid osteoma nidus (demo)")
    from PIL import Image

    crop = Image.fromarray(window(hu[36:100, 40:104], 500, 2000)).resize((256, 256),
                                                                      Image.Resampling.BICUBIC)
    save_image(rel_png, np.asarray(crop), "NEMA_DERIVED", package_path(src),
               "the derived nidus CT above, cropped to the posterior elements, 4x bicubic, "
               "bone window L500/W2000; 8-bit PNG")


def load() -> Brain:
    """The padded MNI152 template with its grey- and white-matter maps."""
    return load_brain(str(nilearn_file(T1)), str(nilearn_file(GM)), str(nilearn_file(WM)))
