"""DICOM renders cached by content hash: the same bytes as a fresh render, never a stale one."""

from __future__ import annotations

import hashlib
from pathlib import Path

from pydicom.data import get_testdata_file

from annotator.export.render_cache import RenderCache
from annotator.imaging.render import render_png


def _dicom() -> tuple[str, bytes]:
    data = Path(get_testdata_file("CT_small.dcm", download=False)).read_bytes()
    return hashlib.sha256(data).hexdigest(), data


def test_a_cached_render_is_the_fresh_render(tmp_path: Path) -> None:
    sha, data = _dicom()
    calls: list[int] = []

    def render() -> tuple[bytes, dict[str, object]]:
        calls.append(1)
        return render_png(data, name="ct")

    fresh = render_png(data, name="ct")
    assert RenderCache(tmp_path).get(sha, render) == fresh
    again = RenderCache(tmp_path)
    assert again.get(sha, render) == fresh
    assert calls == [1] and again.hits == 1


def test_an_altered_entry_is_rendered_afresh(tmp_path: Path) -> None:
    sha, data = _dicom()
    cache = RenderCache(tmp_path)
    fresh = cache.get(sha, lambda: render_png(data, name="ct"))
    (entry,) = tmp_path.rglob("*.png")
    entry.write_bytes(b"\x89PNG\r\n\x1a\nnot the render")
    assert RenderCache(tmp_path).get(sha, lambda: render_png(data, name="ct")) == fresh
    assert entry.read_bytes() == fresh[0]


def test_without_a_folder_nothing_is_cached() -> None:
    sha, data = _dicom()
    cache = RenderCache(None)
    calls: list[int] = []
    for _ in range(2):
        cache.get(sha, lambda: calls.append(1) or render_png(data, name="ct"))  # type: ignore[func-returns-value]
    assert calls == [1, 1]
