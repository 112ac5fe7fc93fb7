"""Content-addressed image storage: bytes kept by SHA-256.

A folder project keeps files under ``images/ab/abcdef...`` beside its SQLite file; a team
store (PostgreSQL) keeps the bytes in ``image_blobs.data`` so every client reaches them.
Either way the ``image_blobs`` row records size and media type.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from sqlalchemy.orm import Session

from annotator.errors import NotFound
from annotator.store.schema import ImageBlob


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ImageStore:
    """Put and get image bytes by hash; the folder is None for a database-held store."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder

    def _file(self, sha: str) -> Path:
        assert self.folder is not None
        return self.folder / sha[:2] / sha

    def put(self, session: Session, data: bytes, media_type: str) -> str:
        """Store bytes (idempotent) within the caller's transaction; returns the SHA-256."""
        sha = sha256_hex(data)
        if session.get(ImageBlob, sha) is not None:
            return sha
        if self.folder is not None:
            target = self._file(sha)
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                # Write-then-rename: a crash never leaves a half file under the final name.
                fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
                with os.fdopen(fd, "wb") as handle:
                    handle.write(data)
                    handle.flush()
                    os.fsync(handle.fileno())
                os.replace(tmp, target)
            session.add(ImageBlob(sha256=sha, size=len(data), media_type=media_type, data=None))
        else:
            session.add(ImageBlob(sha256=sha, size=len(data), media_type=media_type, data=data))
        session.flush()  # the blob row must exist before rows that reference it
        return sha

    def get(self, session: Session, sha: str) -> bytes:
        """The bytes of an image; raises NotFound when the store lost them."""
        if self.folder is not None:
            path = self._file(sha)
            try:
                return path.read_bytes()
            except FileNotFoundError:
                raise NotFound(f"image {sha[:12]} is missing from {self.folder}") from None
        blob = session.get(ImageBlob, sha)
        if blob is None or blob.data is None:
            raise NotFound(f"image {sha[:12]} is missing from the project database")
        return blob.data
