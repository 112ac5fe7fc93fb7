"""Whether a PNG holds its pixels and nothing else, proven by parsing it; the proofs kept.

:func:`png_pixels_only` inflates every row of a PNG to prove that a file the app wrote at
import can ship as it is (the export's privacy gate, :mod:`annotator.export.privacy`, still
reads every chunk of it). Inflating is most of an export's time, and the answer is a property
of the bytes alone, so :func:`pixels_only_proven` keeps each proof that holds by the bytes'
SHA-256 and this module's code in the user's cache folder: import proves each PNG it writes,
and an export trusts a kept proof only for bytes it has just hashed itself. Only proofs are
kept: a PNG that fails is checked again every time (and re-encoded by the export).
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from functools import lru_cache
from pathlib import Path

from annotator.imaging.limits import MAX_PIXELS_PER_FRAME
from annotator.userdirs import user_cache_dir

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_PIXEL_CHUNKS = frozenset({b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND"})

_PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}  # IHDR colour type -> samples per pixel
# IHDR colour type -> the bit depths the PNG specification allows with it (11.2.2).
_PNG_DEPTHS = {0: (1, 2, 4, 8, 16), 2: (8, 16), 3: (1, 2, 4, 8), 4: (8, 16), 6: (8, 16)}


def png_pixels_only(data: bytes) -> bool:
    """Whether a PNG provably holds its pixels and nothing else, by parsing it alone.

    Stricter than the gate's :func:`~annotator.export.privacy.png_findings`, so that a PNG
    the app wrote at import can ship as it is instead of being encoded again: pixel chunks
    only, each with a valid CRC, IHDR first (valid, not interlaced), IEND last and nothing
    after it, and the IDAT data one complete zlib stream with nothing after it that inflates
    to exactly the rows the IHDR declares, each with a valid filter type, a bit depth the
    colour type allows and a palette image's palette before its pixels: what a decoder
    needs, so a PNG that passes decodes. Any other PNG is re-encoded from its pixels; either
    way the shipped bytes still go through the gate.
    """
    chunks = _png_chunks(data)
    if not chunks or chunks[0][0] != b"IHDR" or chunks[-1][0] != b"IEND":
        return False
    if any(kind not in PNG_PIXEL_CHUNKS for kind, _ in chunks) or len(chunks[0][1]) != 13:
        return False
    width, height, depth, colour, method, filtering, interlace = struct.unpack(
        ">IIBBBBB", chunks[0][1])
    if (colour not in _PNG_CHANNELS or depth not in _PNG_DEPTHS[colour] or method or filtering
            or interlace or not 0 < width * height <= MAX_PIXELS_PER_FRAME):
        return False
    kinds = [kind for kind, _ in chunks]
    if colour == 3 and (b"PLTE" not in kinds or kinds.index(b"PLTE") > kinds.index(b"IDAT")):
        return False  # a palette image without its palette before the pixels
    stride = 1 + (width * depth * _PNG_CHANNELS[colour] + 7) // 8
    inflater = zlib.decompressobj()
    try:
        rows = inflater.decompress(b"".join(body for kind, body in chunks if kind == b"IDAT"),
                                   stride * height + 1)
    except zlib.error:
        return False
    if (len(rows) != stride * height or not inflater.eof or inflater.unused_data
            or inflater.unconsumed_tail):
        return False
    return max(rows[::stride]) <= 4  # filter types 0..4


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]] | None:
    """``[(type, body)]`` of a PNG whose every chunk is whole with a valid CRC and that ends
    right after IEND; None for any other file."""
    if not data.startswith(PNG_SIGNATURE):
        return None
    chunks: list[tuple[bytes, bytes]] = []
    pos = len(PNG_SIGNATURE)
    while pos + 12 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        end = pos + 12 + length
        if end > len(data):
            return None
        (crc,) = struct.unpack(">I", data[end - 4:end])
        if zlib.crc32(data[pos + 4:end - 4]) != crc:
            return None
        chunks.append((kind, data[pos + 8:end - 4]))
        pos = end
        if kind == b"IEND":
            return chunks if pos == len(data) else None
    return None


_PROVEN: set[str] = set()  # this process's proofs, by SHA-256 (the code cannot change in it)


@lru_cache(maxsize=1)
def _code_version() -> str:
    """This module's code: a changed proof proves every PNG again."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:16]


def _proof_file(sha: str) -> Path | None:
    folder = user_cache_dir()
    if str(folder) == "off":
        return None
    return folder / "png-pixels-only" / _code_version() / sha[:2] / sha


def pixels_only_proven(data: bytes, sha: str) -> bool:
    """:func:`png_pixels_only` of ``data``, whose SHA-256 the caller has just computed as
    ``sha`` from these very bytes: a proof kept for that hash is reused, a new one kept."""
    if sha in _PROVEN:
        return True
    path = _proof_file(sha)
    if path is not None and path.is_file():
        _PROVEN.add(sha)
        return True
    if not png_pixels_only(data):
        return False
    _PROVEN.add(sha)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.touch()  # empty: the name is the proof
        except OSError:
            pass  # a cache that cannot be written only costs time
    return True
