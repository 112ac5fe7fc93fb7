"""DICOM renders of a release, cached by the DICOM's content hash (issue 14).

A stored image never changes (its name is its SHA-256), so its PNG render is the same in
every export until the rendering code changes; the key holds both. Entries live in the
project folder (``cache/renders``), and the process keeps the latest ones in memory too: a
team store has no project folder, and a curator exporting again after a fix (or the
export's second thread) then renders nothing twice. Pixels of a team store are never written
to the curator's disk. A cached PNG from the folder is used only when its bytes still have
the hash recorded beside it, and the privacy gate scans every render like a fresh one.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache
from pathlib import Path
from typing import Any

Rendered = tuple[bytes, dict[str, Any]]
_CODE = ("imaging/render.py", "imaging/decode.py", "imaging/window.py", "imaging/_dicom.py",
         "imaging/_raster.py")

# This process's renders by "<sha>-<code version>" (neither changes while it runs), the most
# recently used last; bounded by their PNG bytes (a 100-case release's DICOM renders: ~35 MB).
_MEMORY: OrderedDict[str, Rendered] = OrderedDict()
_MEMORY_MAX_BYTES = 128 * 2**20
_memory_bytes = 0
_memory_lock = threading.Lock()


@lru_cache(maxsize=1)
def _code_version() -> str:
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for part in _CODE:
        path = root / part
        if path.exists():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class RenderCache:
    """``get(sha, render)``: the cached render of the image ``sha``, or ``render()`` kept;
    or the two halves, :meth:`cached` and :meth:`keep`, for a caller that reads the image's
    bytes only when no render is cached."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._version = _code_version()
        self.hits = 0

    def get(self, sha: str, render: Callable[[], Rendered]) -> Rendered:
        found = self.cached(sha)
        if found is None:
            found = render()
            self.keep(sha, found)
        return found

    def cached(self, sha: str) -> Rendered | None:
        key = f"{sha}-{self._version}"
        with _memory_lock:
            found = _MEMORY.get(key)
            if found is not None:
                _MEMORY.move_to_end(key)
        if found is None and self.folder is not None:
            found = _read(self.folder / sha[:2] / key)
            if found is not None:
                _remember(key, found)
        if found is None:
            return None
        self.hits += 1
        return found[0], dict(found[1])  # the settings go into the caller's records

    def keep(self, sha: str, rendered: Rendered) -> None:
        key = f"{sha}-{self._version}"
        _remember(key, (rendered[0], dict(rendered[1])))
        if self.folder is not None:
            _write(self.folder / sha[:2] / key, *rendered)


def _remember(key: str, rendered: Rendered) -> None:
    global _memory_bytes
    size = len(rendered[0])
    if size > _MEMORY_MAX_BYTES:
        return
    with _memory_lock:
        if key in _MEMORY:
            return
        _MEMORY[key] = rendered
        _memory_bytes += size
        while _memory_bytes > _MEMORY_MAX_BYTES:
            _, (png, _settings) = _MEMORY.popitem(last=False)
            _memory_bytes -= len(png)


def forget_all() -> None:
    """Empty this process's memory of renders (the folder's entries stay)."""
    global _memory_bytes
    with _memory_lock:
        _MEMORY.clear()
        _memory_bytes = 0


def _read(base: Path) -> Rendered | None:
    try:
        meta = json.loads(base.with_suffix(".json").read_text("utf-8"))
        png = base.with_suffix(".png").read_bytes()
    except (OSError, ValueError):
        return None
    if not isinstance(meta, dict) or meta.get("sha256") != hashlib.sha256(png).hexdigest():
        return None  # a half-written or altered entry: render afresh
    settings = meta.get("render")
    return (png, settings) if isinstance(settings, dict) else None


def _write(base: Path, png: bytes, settings: dict[str, Any]) -> None:
    meta = json.dumps({"sha256": hashlib.sha256(png).hexdigest(), "render": settings})
    try:
        base.parent.mkdir(parents=True, exist_ok=True)
        for suffix, payload in ((".png", png), (".json", meta.encode("utf-8"))):
            fd, tmp = tempfile.mkstemp(dir=base.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
            os.replace(tmp, base.with_suffix(suffix))
    except OSError:
        pass  # a cache that cannot be written only costs time
