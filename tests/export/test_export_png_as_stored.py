"""A stored PNG ships as it is only when parsing proves it holds its pixels alone.

Import writes every raster image anew from its decoded pixels, so export need not encode
it again; but export does not trust the store: :func:`png_pixels_only` parses the file
(chunks, CRCs, the whole zlib stream against the IHDR's rows) and anything it cannot prove
is re-encoded from pixels, and the gate then scans the shipped bytes either way.
"""

from __future__ import annotations

import hashlib
import io
import struct
import zlib

import numpy as np
import pytest
from PIL import Image, PngImagePlugin

from annotator.export.images import _pixels_png
from annotator.export.privacy import png_findings
from annotator.imaging.png_proof import png_pixels_only
from annotator.ingest.deidentify import reencode_raster, same_raster


def _png(mode: str = "L", **save: object) -> bytes:
    rng = np.random.default_rng(3)
    shape = (20, 30, 3) if mode == "RGB" else (20, 30)
    image = Image.fromarray(rng.integers(0, 255, shape, dtype=np.uint8), mode)
    buffer = io.BytesIO()
    image.save(buffer, "PNG", **save)  # type: ignore[arg-type]
    return buffer.getvalue()


def _chunks(data: bytes) -> list[tuple[bytes, bytes]]:
    out, pos = [], 8
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        out.append((kind, data[pos + 8:pos + 8 + length]))
        pos += 12 + length
    return out


def _build(chunks: list[tuple[bytes, bytes]]) -> bytes:
    return b"\x89PNG\r\n\x1a\n" + b"".join(
        struct.pack(">I", len(body)) + kind + body
        + struct.pack(">I", zlib.crc32(kind + body)) for kind, body in chunks)


def _with_idat(data: bytes, idat: bytes) -> bytes:
    chunks = [c for c in _chunks(data) if c[0] != b"IDAT"]
    return _build(chunks[:-1] + [(b"IDAT", idat)] + chunks[-1:])


def _idat(data: bytes) -> bytes:
    return b"".join(body for kind, body in _chunks(data) if kind == b"IDAT")


def test_a_png_import_wrote_ships_byte_for_byte() -> None:
    for mode in ("L", "RGB"):
        stored = reencode_raster(_png(mode), name="x.png")[0]
        assert png_pixels_only(stored)
        assert _pixels_png("C1", "x.png", stored) == (
            stored, hashlib.sha256(stored).hexdigest(), True)


def test_a_palette_png_with_transparency_is_pixels_only() -> None:
    image = Image.new("P", (9, 7), 2)
    image.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0])
    image.info["transparency"] = 1
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    assert png_pixels_only(buffer.getvalue())


@pytest.mark.parametrize("make", [
    # a text chunk
    lambda: _png(pnginfo=_text_info()),
    # data hidden after the zlib stream, inside a valid IDAT chunk
    lambda: _with_idat(_png(), _idat(_png()) + b"Patient: Doe^Jane"),
    # a second zlib stream after the first
    lambda: _with_idat(_png(), _idat(_png()) + zlib.compress(b"Doe^Jane")),
    # rows beyond those the IHDR declares, hidden in the stream itself
    lambda: _with_idat(_png(), zlib.compress(zlib.decompress(_idat(_png())) + b"\0Doe^Jane")),
    # interlaced (Adam7): not a layout this check proves
    lambda: _with_idat(_interlaced(), _idat(_interlaced())),
    # bytes after IEND
    lambda: _png() + b"Doe^Jane",
    # a bad CRC
    lambda: _png()[:-5] + bytes([_png()[-5] ^ 1]) + _png()[-4:],
])
def test_a_png_not_proven_pixels_only_is_encoded_again(make) -> None:  # type: ignore[no-untyped-def]
    data = make()
    assert not png_pixels_only(data)
    try:
        shipped, sha, proven = _pixels_png("C1", "x.png", data)
    except Exception:  # noqa: BLE001 - a file Pillow refuses is refused, never shipped
        return
    assert not proven  # encoded again: the gate decodes it before it ships
    assert sha == hashlib.sha256(shipped).hexdigest()
    assert shipped != data and b"Doe^Jane" not in shipped
    assert png_findings(shipped) == [] and png_pixels_only(shipped)
    assert same_raster(shipped, data)


def _text_info() -> PngImagePlugin.PngInfo:
    info = PngImagePlugin.PngInfo()
    info.add_text("Comment", "Doe^Jane")
    return info


def _interlaced() -> bytes:
    data = _png()
    ihdr = bytearray(_chunks(data)[0][1])
    ihdr[12] = 1
    return _build([(b"IHDR", bytes(ihdr))] + _chunks(data)[1:])


def _ihdr_with(data: bytes, depth: int, colour: int) -> bytes:
    chunks = _chunks(data)
    width, height = struct.unpack(">II", chunks[0][1][:8])
    chunks[0] = (b"IHDR", struct.pack(">IIBBBBB", width, height, depth, colour, 0, 0, 0))
    return _build(chunks)


def _palette(mode: str = "P") -> bytes:
    image = Image.new(mode, (9, 7), 1)
    if mode == "P":
        image.putpalette([0, 0, 0, 255, 0, 0, 0, 255, 0])
    buffer = io.BytesIO()
    image.save(buffer, "PNG")
    return buffer.getvalue()


@pytest.mark.parametrize("data", [
    _png("L"), _png("RGB"), _palette(), _palette("1"),
    reencode_raster(_png("RGB"), name="x.png")[0],
])
def test_a_png_proven_pixels_only_decodes(data: bytes) -> None:
    # The export gate does not decode a proven PNG a second time: proven must mean decodable.
    assert png_pixels_only(data)
    with Image.open(io.BytesIO(data)) as image:
        image.load()
    assert png_findings(data, pixels_proven=True) == png_findings(data) == []


@pytest.mark.parametrize("make", [
    # a palette image whose palette is gone: the rows inflate, but no decoder can show them
    lambda: _build([c for c in _chunks(_palette()) if c[0] != b"PLTE"]),
    # a bit depth the colour type does not allow (RGB at 1 bit), rows sized to match it
    lambda: _with_idat(_ihdr_with(_palette("1"), depth=1, colour=2),
                       zlib.compress(b"\0" * (1 + (9 * 3 + 7) // 8) * 7)),
])
def test_what_a_decoder_refuses_is_not_proven(make) -> None:  # type: ignore[no-untyped-def]
    assert not png_pixels_only(make())


def test_the_gate_reads_every_chunk_even_of_a_proven_png() -> None:
    # A proof spares the gate the decode and the CRCs (it checked both on the same bytes),
    # never the chunk walk: were a proof ever wrong, a non-pixel chunk is still found.
    data = _png(pnginfo=_text_info())
    assert png_findings(data, pixels_proven=True) == [
        "PNG 'tEXt' chunk present (only pixel chunks may ship)"]
    assert png_findings(data + b"Doe", pixels_proven=True)[-1] == "3 bytes after the PNG's IEND"
