"""DICOM renders cached by content hash: the same bytes as a fresh render, never a stale one."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pydicom.data import get_testdata_file

from annotator.export import render_cache
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
    render_cache.forget_all()  # a later process reads the folder
    assert RenderCache(tmp_path).get(sha, lambda: render_png(data, name="ct")) == fresh
    assert entry.read_bytes() == fresh[0]


def test_without_a_folder_the_process_keeps_renders_in_memory_only(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A team store has no project folder: a second export in the same session renders
    # nothing again, and no pixels are written to the curator's disk.
    monkeypatch.chdir(tmp_path)
    sha, data = _dicom()
    calls: list[int] = []

    def render() -> tuple[bytes, dict[str, object]]:
        calls.append(1)
        return render_png(data, name="ct")

    first = RenderCache(None).get(sha, render)
    first[1]["frame"] = "changed by a caller"
    again = RenderCache(None)
    assert again.get(sha, render) == render_png(data, name="ct")  # not the caller's change
    assert calls == [1] and again.hits == 1
    assert list(tmp_path.iterdir()) == []
    render_cache.forget_all()  # a new process renders again
    RenderCache(None).get(sha, render)
    assert calls == [1, 1]


def test_memory_is_bounded_by_the_renders_bytes(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(render_cache, "_MEMORY_MAX_BYTES", 10)
    cache = RenderCache(None)
    for n in range(4):
        cache.keep(f"sha{n}", (b"1234", {"n": n}))
    assert [cache.cached(f"sha{n}") is not None for n in range(4)] == [False, False, True, True]
