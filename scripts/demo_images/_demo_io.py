"""Output bookkeeping for the demo image builder: where files go and where they came from."""

from __future__ import annotations

import hashlib
import importlib.util
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from numpy.typing import NDArray
from PIL import Image

# The committed demo data this builder writes (the package data of annotator).
HERE = Path(__file__).resolve().parents[2] / "src" / "annotator" / "demo_data"
Array = NDArray[Any]
OUT = HERE / "images"

# Attribution classes; the case JSON files copy these strings into images[].
ATTRIBUTION: dict[str, dict[str, str]] = {
    "MNI": {
        "author": "Derived by the annotator project from the MNI ICBM152 2009a template "
        "(V. Fonov, A. C. Evans, D. L. Collins et al., McConnell Brain Imaging Centre), "
        "as shipped in the nilearn package",
        "license": "MNI ICBM152 template notice: use, copy, modify and distribute with the "
        "copyright notice. Copyright (C) 1993-2004 Louis Collins, McConnell Brain Imaging "
        "Centre, Montreal Neurological Institute, McGill University",
        "source_url": "http://www.bic.mni.mcgill.ca/ServicesAtlases/ICBM152NLin2009",
    },
    "NEMA": {
        "author": "NEMA WG04 sample image, downsized by the pydicom contributors "
        "(pydicom test data)",
        "license": "MIT (pydicom test data)",
        "source_url": "https://pypi.org/project/pydicom/3.0.2/",
    },
    "NEMA_DERIVED": {
        "author": "NEMA WG04 sample image (pydicom test file CT_small.dcm) with a synthetic "
        "lesion added by the annotator project",
        "license": "MIT (pydicom test data; changes by the annotator project)",
        "source_url": "https://pypi.org/project/pydicom/3.0.2/",
    },
    "US": {
        "author": "pydicom contributors (pydicom test data: cropped colour ultrasound sample "
        "color3d_jpeg_baseline.dcm)",
        "license": "MIT (pydicom test data)",
        "source_url": "https://pypi.org/project/pydicom/3.0.2/",
    },
    "DRAWN": {
        "author": "annotator project (drawn by scripts/demo_images/make_demo_images.py)",
        "license": "CC0-1.0",
        "source_url": "https://example.org/annotator-demo/generated-figures",
    },
}


@dataclass(frozen=True)
class Record:
    """Provenance of one written file (a row of SOURCES.md)."""

    path: str
    attribution: str
    source: str
    derivation: str


RECORDS: list[Record] = []


def seed_of(rel: str) -> int:
    """A stable per-file noise seed."""
    return int(hashlib.sha256(rel.encode()).hexdigest()[:8], 16)


def record(rel: str, attribution: str, source: str, derivation: str) -> Path:
    """Register a file about to be written and return its absolute path."""
    RECORDS.append(Record(rel, attribution, source, derivation))
    path = HERE / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


def save_image(rel: str, pixels: Array, attribution: str, source: str, derivation: str,
               text: dict[str, str] | None = None, exif: dict[int, str] | None = None) -> None:
    """Write an 8-bit grey or RGB PNG (or JPEG); optional PNG text chunks or EXIF on purpose."""
    path = record(rel, attribution, source, derivation)
    image = Image.fromarray(pixels)
    if path.suffix == ".jpg":
        info = Image.Exif()
        for tag, value in (exif or {}).items():
            info[tag] = value
        image.save(path, quality=90, exif=info.tobytes())
        return
    pnginfo = None
    if text:
        from PIL.PngImagePlugin import PngInfo

        pnginfo = PngInfo()
        for key, value in text.items():
            pnginfo.add_text(key, value)
    image.save(path, pnginfo=pnginfo)


def copy_file(rel: str, src: Path, attribution: str, derivation: str) -> None:
    """Copy a package file byte for byte."""
    shutil.copyfile(src, record(rel, attribution, package_path(src), derivation))


def package_path(path: Path) -> str:
    """``site-packages/...`` path of a package file, as written in SOURCES.md."""
    parts = path.parts
    return "/".join(parts[parts.index("site-packages") + 1:]) if "site-packages" in parts \
        else path.name


def pydicom_file(name: str) -> Path:
    """A bundled pydicom test file; never downloads (get_testdata_files() hangs offline)."""
    from pydicom.data import get_testdata_file

    found = get_testdata_file(name, download=False)
    if not found:
        raise SystemExit(f"pydicom test file {name} is not installed")
    return Path(str(found))


def nilearn_file(name: str) -> Path:
    """A file in nilearn's bundled data folder (located without importing nilearn)."""
    spec = importlib.util.find_spec("nilearn")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("nilearn is needed to build the demo images (pip install nilearn)")
    return Path(list(spec.submodule_search_locations)[0]) / "datasets" / "data" / name


