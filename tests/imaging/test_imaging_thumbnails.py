"""ThumbnailCache: rendered once, stored by hash, served from disk afterwards."""

from __future__ import annotations

import hashlib
import io
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from annotator.imaging.decode import decode_frame
from annotator.imaging.probe import ImageDecodeError
from annotator.imaging.render import to_display
from annotator.imaging.thumbnails import ThumbnailCache, render_thumbnail


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_miss_renders_and_stores_then_hit_skips_the_loader(
    tmp_path: Path, dicom_bytes: Callable[[str], bytes]
) -> None:
    data = dicom_bytes("CT_small.dcm")
    digest = sha(data)
    cache = ThumbnailCache(tmp_path)
    calls: list[int] = []

    def loader() -> bytes:
        calls.append(1)
        return data

    first = cache.get(digest, loader)
    assert calls == [1]
    stored = tmp_path / digest[:2] / f"{digest}_160.png"
    assert stored.read_bytes() == first
    assert sorted(p.name for p in stored.parent.iterdir()) == [stored.name]  # no temp left

    def must_not_load() -> bytes:
        raise AssertionError("a cache hit must not load the image")

    assert cache.get(digest, must_not_load) == first
    assert ThumbnailCache(tmp_path).get(digest, must_not_load) == first  # survives restart


def test_thumbnail_size_and_default_window(
    tmp_path: Path, dicom_bytes: Callable[[str], bytes]
) -> None:
    data = dicom_bytes("CT_small.dcm")
    png = ThumbnailCache(tmp_path).get(sha(data), lambda: data, size=64)
    image = Image.open(io.BytesIO(png))
    assert (image.size, image.mode) == ((64, 64), "L")
    # 128 -> 64 halves the image; it must look like the default-window display, halved.
    expected = to_display(decode_frame(data)).astype(float)
    halved = expected.reshape(64, 2, 64, 2).mean(axis=(1, 3))
    assert np.abs(np.asarray(image, dtype=float) - halved).mean() < 8


def test_monochrome1_thumbnail_is_inverted(edited_dicom: Callable[..., bytes]) -> None:
    plain = render_thumbnail(edited_dicom("MR_small.dcm"), 64)
    inverted = render_thumbnail(
        edited_dicom("MR_small.dcm", PhotometricInterpretation="MONOCHROME1"), 64
    )
    a = np.asarray(Image.open(io.BytesIO(plain)), dtype=int)
    b = np.asarray(Image.open(io.BytesIO(inverted)), dtype=int)
    np.testing.assert_array_equal(b, 255 - a)


def test_wide_colour_image_keeps_aspect(dicom_bytes: Callable[[str], bytes]) -> None:
    png = render_thumbnail(dicom_bytes("examples_ybr_color.dcm"), 160)
    image = Image.open(io.BytesIO(png))
    assert (image.size, image.mode) == ((160, 120), "RGB")


def test_undecodable_image_is_not_cached(tmp_path: Path, gradient_png: bytes) -> None:
    broken = gradient_png[:100]
    cache = ThumbnailCache(tmp_path)
    with pytest.raises(ImageDecodeError):
        cache.get(sha(broken), lambda: broken)
    assert not cache.path_for(sha(broken)).exists()


def test_bad_hash_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="SHA-256"):
        ThumbnailCache(tmp_path).get("../../etc/passwd", lambda: b"")


def test_concurrent_requests_render_once(tmp_path: Path, gradient_png: bytes) -> None:
    cache = ThumbnailCache(tmp_path)
    digest = sha(gradient_png)
    calls: list[int] = []
    start = threading.Barrier(4)

    def loader() -> bytes:
        calls.append(1)
        return gradient_png

    def request(_: int) -> bytes:
        start.wait(timeout=10)
        return cache.get(digest, loader)

    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(request, range(4)))
    assert len(set(results)) == 1
    assert calls == [1]
