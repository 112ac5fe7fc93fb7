"""A PNG's pixels-only proof is kept by the hash of the bytes proven, and used for no others.

Inflating every row (:func:`png_pixels_only`) was most of an export's time, and the answer
is a property of the bytes: import proves each PNG it writes, an export reuses the proof for
bytes it has just hashed itself, so a file changed in the store after import is proven (or
refused) afresh.
"""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, PngImagePlugin

from annotator.imaging import png_proof
from annotator.imaging.png_proof import pixels_only_proven


def _png(seed: int, text: str | None = None) -> bytes:
    pixels = np.random.default_rng(seed).integers(0, 255, (16, 24), dtype=np.uint8)
    info = None
    if text is not None:
        info = PngImagePlugin.PngInfo()
        info.add_text("Comment", text)
    buffer = io.BytesIO()
    Image.fromarray(pixels, "L").save(buffer, "PNG", pnginfo=info)
    return buffer.getvalue()


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("ANNOTATOR_CACHE", str(tmp_path))
    monkeypatch.setattr(png_proof, "_PROVEN", set())  # a fresh process
    return tmp_path


def test_a_proof_is_kept_and_reused_without_inflating_again(
    cache: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = _png(1)
    assert pixels_only_proven(data, _sha(data))
    assert [p.name for p in cache.rglob("*") if p.is_file()] == [_sha(data)]

    def no_inflating(_data: bytes) -> bool:
        raise AssertionError("the kept proof was not used")

    monkeypatch.setattr(png_proof, "png_pixels_only", no_inflating)
    monkeypatch.setattr(png_proof, "_PROVEN", set())  # another process: the folder's proof
    assert pixels_only_proven(data, _sha(data))


def test_a_png_that_fails_is_not_kept_and_fails_every_time(cache: Path) -> None:
    data = _png(2, text="Doe^Jane")
    assert not pixels_only_proven(data, _sha(data))
    assert not [p for p in cache.rglob("*") if p.is_file()]
    assert not pixels_only_proven(data, _sha(data))


def test_bytes_changed_after_the_proof_are_proven_afresh(cache: Path) -> None:
    clean = _png(3)
    assert pixels_only_proven(clean, _sha(clean))
    # The same pixels with a name planted in the stored file: another hash, no proof.
    planted = _png(3, text="Doe^Jane")
    assert not pixels_only_proven(planted, _sha(planted))


def test_no_cache_folder_still_proves(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANNOTATOR_CACHE", "off")
    monkeypatch.setattr(png_proof, "_PROVEN", set())
    data = _png(4)
    assert pixels_only_proven(data, _sha(data))
    assert not pixels_only_proven(_png(4, text="x"), _sha(_png(4, text="x")))


def test_import_proves_the_png_it_writes(cache: Path, tmp_path: Path) -> None:
    from annotator.ingest.images import LoadSettings, load_image

    source = tmp_path / "scan.png"
    source.write_bytes(_png(5, text="Doe^Jane"))  # metadata import removes
    cleaned = load_image(LoadSettings(deidentify=True, seed="s", check_pixels=False),
                         source, "scan.png")
    assert b"Doe^Jane" not in cleaned.data
    assert (cache / "png-pixels-only").is_dir()
    assert [p.name for p in (cache / "png-pixels-only").rglob("*") if p.is_file()] == [
        cleaned.sha256]
