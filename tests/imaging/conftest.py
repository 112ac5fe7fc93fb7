"""Fixtures for the imaging tests: pydicom's bundled files and small PNGs made on the fly."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest


def _bundled_path(name: str) -> Path:
    """Path of one of pydicom's bundled test files (never downloads)."""
    from pydicom.data import get_testdata_file

    found = get_testdata_file(name, download=False)
    assert found is not None, f"pydicom no longer ships {name}"
    return Path(str(found))


@pytest.fixture
def dicom_path() -> Callable[[str], Path]:
    """Path of a bundled pydicom test file, by name."""
    return _bundled_path


@pytest.fixture
def dicom_bytes() -> Callable[[str], bytes]:
    """Bytes of a bundled pydicom test file, by name."""

    def load(name: str) -> bytes:
        return _bundled_path(name).read_bytes()

    return load


def _encode_png(array: np.ndarray) -> bytes:
    """PNG bytes of ``array``: uint8 grey/RGB/RGBA, or uint16 grey for a 16-bit PNG."""
    from PIL import Image

    buffer = io.BytesIO()
    image = Image.fromarray(np.ascontiguousarray(array))
    assert array.dtype != np.uint16 or image.mode == "I;16"
    image.save(buffer, format="PNG")
    return buffer.getvalue()


@pytest.fixture
def gradient_png() -> bytes:
    """A 64x48 8-bit grey gradient PNG, large enough that truncation cuts pixel data."""
    rng = np.random.default_rng(7)
    return _encode_png(rng.integers(0, 256, size=(48, 64), dtype=np.uint8))


@pytest.fixture
def encode_png() -> Callable[..., bytes]:
    """``encode_png(array)``: PNG bytes; a uint16 array gives a 16-bit grey PNG."""
    return _encode_png


@pytest.fixture
def edited_dicom() -> Callable[..., bytes]:
    """``edited_dicom(name, **attributes)``: a bundled file edited, as bytes (None deletes)."""
    import pydicom

    def edit(name: str, **attributes: object) -> bytes:
        ds = pydicom.dcmread(_bundled_path(name))
        for keyword, value in attributes.items():
            if value is None:
                delattr(ds, keyword)
            else:
                setattr(ds, keyword, value)
        buffer = io.BytesIO()
        ds.save_as(buffer)
        return buffer.getvalue()

    return edit
