"""The privacy gate's own check for text burned into the pixels of released images.

It trusts no stored flag: it runs the detector on the very bytes about to be written, so
text planted in a stored image after import, or an image never checked, is found. An image
a curator reviewed (redacted or cleared) passes, since a person accepted what is left. The
verdicts are cached by the SHA-256 of the bytes checked, so a second export of the same
images costs a lookup each. Without Tesseract every unreviewed image is a finding.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from annotator.imaging.burned_text import OcrUnavailable, find_text_in_image
from annotator.imaging.probe import ImageDecodeError

_TEXT, _CLEAN = "text", "clean"


class TextVerdicts:
    """Verdicts by hash of the bytes checked; kept in ``folder`` when there is one."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._memory: dict[str, str] = {}

    def findings(self, label: str, data: bytes) -> list[str]:
        """Why ``data`` cannot ship unreviewed (empty: the detector reads no text)."""
        sha = hashlib.sha256(data).hexdigest()
        verdict = self._memory.get(sha) or self._read(sha)
        if verdict is None:
            try:
                verdict = _TEXT if find_text_in_image(data, name=label) else _CLEAN
            except OcrUnavailable as exc:
                return [f"{label}: cannot be checked for burned-in text: {exc}"]
            except (ImageDecodeError, IndexError, ValueError):
                return []  # the file checks report what cannot be decoded
            self._write(sha, verdict)
        self._memory[sha] = verdict
        if verdict == _TEXT:
            return [f"{label}: the gate reads text in the pixels that no curator reviewed"
                    " (annotator redact --scan, then --list)"]
        return []

    def _read(self, sha: str) -> str | None:
        if self.folder is None:
            return None
        try:
            text = (self.folder / sha).read_text("ascii").strip()
        except OSError:
            return None
        return text if text in (_TEXT, _CLEAN) else None

    def _write(self, sha: str, verdict: str) -> None:
        if self.folder is None:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            (self.folder / sha).write_text(verdict, "ascii")
        except OSError:
            pass  # a cache that cannot be written only costs time
