"""The privacy gate's own check for text burned into the pixels of released images.

It trusts no stored flag: it runs the detector on the very bytes about to be written, so
text planted in a stored image after import, or an image never checked, is found. An image
a curator reviewed (redacted or cleared) passes, since a person accepted what is left.

A verdict is reused only for the same bytes and the same detector: it is kept by the
SHA-256 of the bytes checked under the detector's version (its code and Tesseract's,
:func:`~annotator.imaging.burned_text.detector_version`), in the project folder's
``cache/text-verdicts`` when there is one, and found through the detector's own cache in
the user's cache folder, which import fills for every stored image (any store, PostgreSQL
too). So a PNG that ships as stored is not read again after import, and a DICOM's
rendition (other bytes) once per render. Anything else is checked; without Tesseract every
unreviewed image is a finding.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from annotator.imaging import burned_text
from annotator.imaging.burned_text import OcrUnavailable
from annotator.imaging.probe import ImageDecodeError

_TEXT, _CLEAN = "text", "clean"
# This process's verdicts by "<detector version>:<sha>" (neither can change while it runs):
# the next export of the same images reads no verdict file again (600 per 100 bench cases).
# Bounded: past _SEEN_MAX (~20 MB) it starts again, and the verdict files still answer.
_SEEN: dict[str, str] = {}
_SEEN_MAX = 200_000


class TextVerdicts:
    """Verdicts by detector version and hash of the bytes checked; kept in ``folder`` too
    when there is one."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def findings(self, label: str, data: bytes, sha: str | None = None) -> list[str]:
        """Why ``data`` cannot ship unreviewed (empty: the detector reads no text); ``sha``
        is the SHA-256 of ``data`` when the caller has just computed it."""
        sha = sha or hashlib.sha256(data).hexdigest()
        try:
            version = burned_text.detector_version()
        except OcrUnavailable as exc:
            return [f"{label}: cannot be checked for burned-in text: {exc}"]
        seen = f"{version}:{sha}"
        verdict = _SEEN.get(seen)
        if verdict is None:
            try:
                verdict = self._read(version, sha)
                if verdict is None:
                    found = burned_text.find_text_cached(data, name=label, sha=sha)
                    verdict = _TEXT if found else _CLEAN
                    self._write(version, sha, verdict)
            except OcrUnavailable as exc:
                return [f"{label}: cannot be checked for burned-in text: {exc}"]
            except (ImageDecodeError, IndexError, ValueError):
                return []  # the file checks report what cannot be decoded
            if version is not None:  # a detector of unknown version: nothing is kept
                if len(_SEEN) >= _SEEN_MAX:
                    _SEEN.clear()
                _SEEN[seen] = verdict
        if verdict == _TEXT:
            return [f"{label}: the gate reads text in the pixels that no curator reviewed"
                    " (annotator redact --scan, then --list)"]
        return []

    def _path(self, version: str | None, sha: str) -> Path | None:
        if self.folder is None or version is None:
            return None  # no folder, or a detector of unknown version: nothing is kept
        return self.folder / version / sha

    def _read(self, version: str | None, sha: str) -> str | None:
        path = self._path(version, sha)
        if path is None:
            return None
        try:
            text = path.read_text("ascii").strip()
        except OSError:
            return None
        return text if text in (_TEXT, _CLEAN) else None

    def _write(self, version: str | None, sha: str, verdict: str) -> None:
        path = self._path(version, sha)
        if path is None:
            return
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(verdict, "ascii")
        except OSError:
            pass  # a cache that cannot be written only costs time
