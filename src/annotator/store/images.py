"""Content-addressed image storage: bytes kept by SHA-256.

A folder project keeps files under ``images/ab/abcdef...`` beside its SQLite file; a team
store (PostgreSQL) keeps the bytes in ``image_blobs.data`` so every client reaches them.
Either way the ``image_blobs`` row records size and media type.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path

from sqlalchemy import insert, select
from sqlalchemy.orm import Session

from annotator.errors import NotFound
from annotator.store.bulk import chunks
from annotator.store.schema import ImageBlob

_READ_CHUNK = 200  # images per query (a case has a handful; a release reads case by case)


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


class ImageStore:
    """Put and get image bytes by hash; the folder is None for a database-held store."""

    def __init__(self, folder: Path | None) -> None:
        self.folder = folder
        self._batch = threading.local()  # files written, not yet flushed, in this thread

    @contextmanager
    def batch(self) -> Iterator[None]:
        """Flush every file :meth:`put` writes inside the block to disk once, at its end.

        Use it inside the transaction that records the files, so they are on disk before
        the commit that refers to them: a batch of images costs one flush, not one each.
        """
        if getattr(self._batch, "paths", None) is not None:
            yield  # nested: the outer batch flushes
            return
        self._batch.paths = []
        try:
            yield
            _flush_to_disk(self._batch.paths)
        finally:
            self._batch.paths = None

    def _file(self, sha: str) -> Path:
        assert self.folder is not None
        return self.folder / sha[:2] / sha

    def stored(self, session: Session, shas: Iterable[str]) -> set[str]:
        """Which of ``shas`` the project holds already: one query for a batch of images."""
        wanted = sorted(set(shas))
        found: set[str] = set()
        for start in range(0, len(wanted), 500):  # stay under the bound-parameter limits
            chunk = wanted[start:start + 500]
            found.update(session.scalars(select(ImageBlob.sha256)
                                         .where(ImageBlob.sha256.in_(chunk))))
        return found

    def put(self, session: Session, data: bytes, media_type: str, *,
            known: set[str] | None = None, sha: str | None = None) -> str:
        """Store bytes (idempotent) within the caller's transaction; returns the SHA-256.

        ``known``, when given, is the set of hashes already stored in this transaction (see
        :meth:`stored`): it replaces a lookup per image, and the blob row is inserted
        directly instead of through the ORM, so a batch of images costs no flush each.
        The caller adds the returned hash to ``known`` once the row is certain to stay.
        ``sha``, when given, is ``data``'s SHA-256 as the caller computed it (import hashes
        each image once, when it reads it).
        """
        sha = sha or sha256_hex(data)
        if known is not None:
            if sha not in known:
                self._write(data, sha)
                session.execute(insert(ImageBlob).values(
                    sha256=sha, size=len(data), media_type=media_type,
                    data=None if self.folder is not None else data))
            return sha
        if session.get(ImageBlob, sha) is not None:
            return sha
        self._write(data, sha)
        if self.folder is not None:
            session.add(ImageBlob(sha256=sha, size=len(data), media_type=media_type, data=None))
        else:
            session.add(ImageBlob(sha256=sha, size=len(data), media_type=media_type, data=data))
        session.flush()  # the blob row must exist before rows that reference it
        return sha

    def _write(self, data: bytes, sha: str) -> None:
        """Put the file of a folder store in place (nothing for a database-held store)."""
        if self.folder is None:
            return
        target = self._file(sha)
        if target.exists():
            return
        target.parent.mkdir(parents=True, exist_ok=True)
        # Write-then-rename: a crash never leaves a half file under the final name.
        fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
        pending = getattr(self._batch, "paths", None)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            if pending is None:
                os.fsync(handle.fileno())
        os.replace(tmp, target)
        if pending is not None:
            pending.append(target)

    def get(self, session: Session | None, sha: str) -> bytes:
        """The bytes of an image; raises NotFound when the store lost them. A folder store
        reads a file and needs no ``session``; a database store does."""
        if self.folder is not None:
            path = self._file(sha)
            try:
                return path.read_bytes()
            except FileNotFoundError:
                raise NotFound(f"image {sha[:12]} is missing from {self.folder}") from None
        if session is None:
            raise ValueError("a database image store reads through a session")
        data = dict(_blob_rows(session, [sha])).get(sha)
        if data is None:
            raise NotFound(f"image {sha[:12]} is missing from the project database")
        return data

    def get_many(self, session: Session | None, shas: Iterable[str]) -> dict[str, bytes]:
        """The bytes of several images by hash; raises NotFound for one the store lost. A
        database store reads them in one query per few hundred (a query each took three
        times as long for a 100-case release on PostgreSQL)."""
        wanted = list(dict.fromkeys(shas))
        if self.folder is not None:
            return {sha: self.get(None, sha) for sha in wanted}
        if session is None:
            raise ValueError("a database image store reads through a session")
        found: dict[str, bytes] = {}
        for chunk in chunks(wanted, _READ_CHUNK):
            found.update((sha, data) for sha, data in _blob_rows(session, chunk)
                         if data is not None)
        lost = next((sha for sha in wanted if sha not in found), None)
        if lost is not None:
            raise NotFound(f"image {lost[:12]} is missing from the project database")
        return found


def _blob_rows(session: Session, shas: list[str]) -> list[tuple[str, bytes | None]]:
    """``(sha256, data)`` of the stored images among ``shas``.

    On PostgreSQL the rows come in binary format. In text format the server sends a bytea as
    hex, twice its size, and psycopg turns it back into bytes holding the GIL throughout:
    15 ms for 4 MB, during which the GUI thread cannot run a line of Python while a worker
    reads the next case's images (issue 27).
    """
    connection = session.connection()
    if connection.dialect.name != "postgresql":
        rows = session.execute(select(ImageBlob.sha256, ImageBlob.data)
                               .where(ImageBlob.sha256.in_(shas)))
        return [(sha, data) for sha, data in rows]
    driver = connection.connection.driver_connection
    assert driver is not None
    with driver.cursor(binary=True) as cursor:
        # One image by ``=``, several by ``ANY``: psycopg prepares a query run often and
        # the server keeps a generic plan for ``=``, but plans ``= ANY`` afresh at each run
        # (6 ms under the row policies, against 0.6 ms: 600 images read one by one took
        # 3.7 s instead of 0.4 s).
        if len(shas) == 1:
            cursor.execute("SELECT sha256, data FROM image_blobs WHERE sha256 = %s", shas)
        else:
            cursor.execute("SELECT sha256, data FROM image_blobs WHERE sha256 = ANY(%s)",
                           [shas])
        return [(sha, data) for sha, data in cursor.fetchall()]


def _flush_to_disk(paths: list[Path]) -> None:
    """Make written files (and their renames) durable: one ``sync`` for many files."""
    if not paths:
        return
    if len(paths) > 8 and hasattr(os, "sync"):
        os.sync()  # one call, instead of a journal commit per file
        return
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
