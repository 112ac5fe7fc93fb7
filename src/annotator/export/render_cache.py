"""DICOM renders of a release, cached by the DICOM's content hash (issue 14).

A stored image never changes (its name is its SHA-256), so its PNG render is the same in
every export until the rendering code changes; the key holds both. Entries live in the
project folder (``cache/renders``); a team store without a folder renders every time.
A cached PNG is used only when its bytes still have the hash recorded beside it, and the
privacy gate scans it like any freshly rendered image.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

Rendered = tuple[bytes, dict[str, Any]]
_CODE = ("imaging/render.py", "imaging/decode.py", "imaging/window.py", "imaging/_dicom.py",
         "imaging/_raster.py")


def _code_version() -> str:
    root = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for part in _CODE:
        path = root / part
        if path.exists():
            digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


class RenderCache:
    """``get(sha, render)``: the cached render of the image ``sha``, or ``render()`` stored."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._version = _code_version() if folder is not None else ""
        self.hits = 0

    def get(self, sha: str, render: Callable[[], Rendered]) -> Rendered:
        if self.folder is None:
            return render()
        base = self.folder / sha[:2] / f"{sha}-{self._version}"
        cached = _read(base)
        if cached is not None:
            self.hits += 1
            return cached
        png, settings = render()
        _write(base, png, settings)
        return png, settings


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
