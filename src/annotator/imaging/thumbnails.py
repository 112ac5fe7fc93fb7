"""Thumbnails of stored images, cached on disk by content hash.

Files live at ``folder/<sha[:2]>/<sha>_<size>.png`` and are written atomically (temporary
file, then ``os.replace``), so a crash or two workers rendering the same image never leave
a half-written thumbnail.
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path

import numpy as np

from annotator.imaging.decode import decode_frame
from annotator.imaging.render import default_frame_index, encode_png, to_display

_SHA256 = re.compile(r"[0-9a-f]{64}")


class ThumbnailCache:
    """Disk cache of PNG thumbnails keyed by the image's SHA-256."""

    def __init__(self, folder: Path) -> None:
        self.folder = Path(folder)
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def path_for(self, sha256: str, size: int = 160) -> Path:
        """Where the thumbnail of ``sha256`` at ``size`` pixels is (or will be) stored."""
        if not _SHA256.fullmatch(sha256):
            raise ValueError(f"not a lowercase SHA-256 hex digest: {sha256!r}")
        if size < 1:
            raise ValueError(f"thumbnail size must be positive, got {size}")
        return self.folder / sha256[:2] / f"{sha256}_{size}.png"

    def get(self, sha256: str, data_loader: Callable[[], bytes], size: int = 160) -> bytes:
        """PNG bytes of the thumbnail, rendering it with ``data_loader()`` on a miss.

        The longest side is ``size`` pixels. DICOM uses its default window, middle frame
        and MONOCHROME1 inversion. Raises ImageDecodeError (nothing cached) when the
        image cannot be decoded.
        """
        path = self.path_for(sha256, size)
        cached = _read(path)
        if cached is not None:
            return cached
        with self._lock_for(path.name):
            cached = _read(path)  # another worker may have finished it meanwhile
            if cached is not None:
                return cached
            png = render_thumbnail(data_loader(), size, name=sha256)
            _write_atomically(path, png)
            return png

    def _lock_for(self, key: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(key, threading.Lock())


def render_thumbnail(data: bytes, size: int = 160, *, name: str = "image") -> bytes:
    """A PNG whose longest side is ``size`` pixels, shown as the viewer first shows it."""
    from PIL import Image

    first = decode_frame(data, 0, name=name)
    middle = default_frame_index(first.frames)
    shown = first if middle == 0 else decode_frame(data, middle, name=name)
    pixels = to_display(shown)
    image = Image.fromarray(np.ascontiguousarray(pixels))
    scale = size / max(image.width, image.height)
    target = (max(1, round(image.width * scale)), max(1, round(image.height * scale)))
    # Shrinking averages (readable); enlarging a tiny image keeps its pixels sharp.
    resample = Image.Resampling.LANCZOS if scale < 1 else Image.Resampling.NEAREST
    resized = image.resize(target, resample)
    return encode_png(np.asarray(resized))


def _read(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


def _write_atomically(path: Path, payload: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".tmp-", suffix=".png", dir=path.parent)
    try:
        with os.fdopen(handle, "wb") as stream:
            stream.write(payload)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
