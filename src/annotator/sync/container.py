"""The zip container both round-trip files share: atomic writing, checked reading.

The manifest lists the SHA-256 of every other member and carries a checksum over its own
canonical JSON, so one checksum vouches for the whole file. Reading checks, in this order:
the file is a regular file and the zip opens, the manifest names the expected kind, its
format version is not newer than this app's, its checksum matches, the caller's check (a
package's signature) passes, and only then are members inflated, each streamed within the
size the manifest lists and hashed; the models validate last. Any failure is
one :class:`SyncFileError` naming the file and the reason.
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import zipfile
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, TypeVar

from pydantic import BaseModel
from pydantic import ValidationError as PydanticError

from annotator.domain.text import error_location
from annotator.inputfiles import loads_bounded, open_regular, unstorable_text
from annotator.sync.formats import FORMAT_VERSIONS, KIND_WORDS, FileEntry, SyncFileError

MANIFEST = "manifest.json"
CONTENT = "content.json"
# Bounds on what a file may make this app read: a zip bomb or a padded manifest is refused
# with a reason instead of filling memory. Sizes are checked against the zip headers first and
# again while inflating, since headers can lie.
MAX_MEMBERS = 50_000
MAX_MANIFEST_BYTES = 32 * 2**20
MAX_MEMBER_BYTES = 512 * 2**20
MAX_TOTAL_BYTES = 8 * 2**30
_CHUNK = 2**20
M = TypeVar("M", bound=BaseModel)
# What reading a damaged member can raise (CRC, inflate, encryption, unknown compression).
# What zipfile raises on a damaged archive: NotImplementedError for a version or compression
# method it does not know, UnicodeDecodeError (a ValueError) for a bad member name,
# struct.error for a cut record.
_READ_ERRORS = (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error, RuntimeError,
                NotImplementedError, struct.error)


def canonical_json(data: Any) -> bytes:
    """The byte form the checksum is computed over (sorted keys, no spaces, UTF-8)."""
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def manifest_checksum(manifest: Mapping[str, Any]) -> str:
    """SHA-256 over the manifest's canonical JSON without its ``checksum`` field."""
    body = {k: v for k, v in manifest.items() if k != "checksum"}
    return hashlib.sha256(canonical_json(body)).hexdigest()


def write_container(
    out: Path,
    manifest: BaseModel,
    members: Mapping[str, bytes],
    signer: Callable[[dict[str, Any]], str] | None = None,
) -> Path:
    """Write ``members`` plus the sealed manifest to ``out`` atomically (temp + os.replace).

    ``manifest`` is a model whose ``files`` and ``checksum`` (and ``signature``, when a
    ``signer`` is given) are filled in here.
    """
    files = [
        FileEntry(path=name, sha256=hashlib.sha256(data).hexdigest(), size=len(data))
        for name, data in sorted(members.items())
    ]
    header = manifest.model_copy(update={"files": files}).model_dump(mode="json")
    if signer is not None:
        header["signature"] = signer(header)
    header["checksum"] = manifest_checksum(header)
    out = out.expanduser().resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp_name = tempfile.mkstemp(dir=out.parent, prefix=f".{out.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_DEFLATED) as archive:
                archive.writestr(MANIFEST, json.dumps(header, indent=1, ensure_ascii=False))
                for name, data in sorted(members.items()):
                    archive.writestr(name, data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, out)
    except BaseException:
        Path(tmp_name).unlink(missing_ok=True)
        raise
    return out


@dataclass(frozen=True)
class Member:
    """A member as the verified manifest lists it."""

    name: str
    sha256: str
    size: int


@dataclass
class Container:
    """A checked file: the raw manifest, ``content.json``'s bytes, and every member listed.

    Every member was hashed while streamed at reading; the others than ``content.json`` are
    read again on demand (:meth:`member`), so images are never all held in memory at once.
    """

    path: Path
    manifest: dict[str, Any]
    members: dict[str, bytes]
    listed: dict[str, Member]
    _archive: zipfile.ZipFile | None = field(default=None, repr=False)

    def model(self, model: type[M]) -> M:
        """The manifest as ``model`` (raises SyncFileError naming the bad field)."""
        return validated(self.path, model, self.manifest, MANIFEST)

    def content(self, model: type[M]) -> M:
        """``content.json`` as ``model``."""
        try:
            data = loads_bounded(self.members[CONTENT])
        except (KeyError, ValueError) as exc:
            raise SyncFileError(self.path, f"{CONTENT} is missing or not JSON ({exc})") from None
        if unstorable_text(data):
            raise SyncFileError(self.path, f"{CONTENT}: {unstorable_text(data)}")
        return validated(self.path, model, data, CONTENT)

    def member(self, name: str) -> bytes:
        """A listed member's bytes, read again and checked against the manifest."""
        if name in self.members:
            return self.members[name]
        entry = self.listed[name]  # KeyError when not listed
        if self._archive is None:  # opened once for every later member, until close()
            self._archive = _open_archive(self.path, "the file")
        data = _read_member(self.path, self._archive, entry, keep=True)
        assert data is not None
        return data

    def close(self) -> None:
        """Close the file :meth:`member` opened, if it did."""
        if self._archive is not None:
            self._archive.close()
            self._archive = None


def validated(path: Path, model: type[M], data: Any, member: str) -> M:
    """``data`` as ``model``, or SyncFileError naming ``member`` and the first bad field."""
    try:
        return model.model_validate(data)
    except PydanticError as exc:
        first = exc.errors()[0]
        where = error_location(first["loc"]) or "(top)"
        raise SyncFileError(path, f"{member} field {where}: {first['msg']}") from None


class _OwnZip(zipfile.ZipFile):
    """A ZipFile that closes the file object it reads (ZipFile leaves a given one open)."""

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle = handle  # first: close() runs from __del__ even when opening fails
        super().__init__(handle)

    def close(self) -> None:
        try:
            super().close()
        finally:
            self._handle.close()


def _open_archive(path: Path, what: str) -> zipfile.ZipFile:
    """The zip at ``path``; only a regular file is opened (a FIFO would block forever)."""
    try:
        handle = open_regular(path)
    except FileNotFoundError:
        raise SyncFileError(path, "no such file") from None
    except (OSError, ValueError) as exc:
        raise SyncFileError(path, f"cannot read: {getattr(exc, 'strerror', None) or exc}"
                            ) from None
    try:
        return _OwnZip(handle)
    except _READ_ERRORS as exc:
        handle.close()
        raise SyncFileError(path, f"not readable as {what} (truncated or damaged: {exc})"
                            ) from None


def read_container(
    path: Path, kind: str, verify: Callable[[dict[str, Any]], None] | None = None
) -> Container:
    """Open and verify a bundle or package of ``kind``; raises SyncFileError when unusable.

    ``verify`` (a package's signature check) sees the checked manifest before any other
    member is inflated, so an unsigned file costs no more than its manifest; members are
    then streamed within the sizes the manifest gives.
    """
    path = Path(path)
    with _open_archive(path, KIND_WORDS[kind]) as archive:
        if len(archive.infolist()) > MAX_MEMBERS:
            raise SyncFileError(path, f"refused: {len(archive.infolist())} members (at most"
                                      f" {MAX_MEMBERS})")
        try:
            raw = _read_bounded(path, archive, MANIFEST, MAX_MANIFEST_BYTES)
            manifest = loads_bounded(raw)
        except KeyError:
            raise SyncFileError(path, f"not {KIND_WORDS[kind]} (no {MANIFEST})") from None
        except _READ_ERRORS as exc:  # JSON errors are ValueErrors too
            raise SyncFileError(path, f"damaged manifest ({exc})") from None
        if unstorable_text(manifest):  # nor could the checksum be computed over it
            raise SyncFileError(path, f"damaged manifest ({unstorable_text(manifest)})")
        _check_header(path, manifest, kind)
        if verify is not None:
            verify(manifest)
        listed = _listed(path, archive, manifest)
        members: dict[str, bytes] = {}
        for entry in listed.values():
            data = _read_member(path, archive, entry, keep=entry.name == CONTENT)
            if data is not None:
                members[entry.name] = data
    return Container(path, manifest, members, listed)


def _check_header(path: Path, manifest: Any, kind: str) -> None:
    if not isinstance(manifest, dict):
        raise SyncFileError(path, "damaged manifest (not a JSON object)")
    found = manifest.get("kind")
    if found != kind:
        what = KIND_WORDS.get(str(found), f"a file of kind {str(found)[:40]!r}")
        raise SyncFileError(path, f"this is {what}, not {KIND_WORDS[kind]}")
    version = manifest.get("format_version")
    supported = FORMAT_VERSIONS[kind]
    if type(version) is not int or version < 1:
        raise SyncFileError(path, f"damaged manifest (format_version {str(version)[:40]!r})")
    if version > supported:
        raise SyncFileError(
            path,
            f"format version {version} was written by a newer annotator "
            f"(app {str(manifest.get('app_version', '?'))[:40]}); this app reads up to version "
            f"{supported}: install the newer version to use it",
        )
    if manifest.get("checksum") != manifest_checksum(manifest):
        raise SyncFileError(path, "damaged: the manifest checksum does not match its content")


def _listed(path: Path, archive: zipfile.ZipFile, manifest: dict[str, Any]) -> dict[str, Member]:
    """The manifest's file list, checked against the archive's names and declared sizes."""
    listed = manifest.get("files")
    if not isinstance(listed, list):
        raise SyncFileError(path, "damaged manifest (no file list)")
    entries: dict[str, Member] = {}
    for item in listed:
        if not isinstance(item, dict):
            raise SyncFileError(path, "damaged manifest (a file entry is not an object)")
        name, sha, size = item.get("path"), item.get("sha256"), item.get("size")
        if not isinstance(name, str) or not isinstance(sha, str) or type(size) is not int \
                or not 0 <= size <= MAX_MEMBER_BYTES:
            raise SyncFileError(path, f"damaged manifest (file entry {str(name)[:80]!r})")
        entries[name] = Member(name, sha, size)
    names = set(archive.namelist()) - {MANIFEST}
    if names != set(entries):
        odd = sorted(names ^ set(entries))[:5]
        raise SyncFileError(path, f"damaged: members differ from the manifest"
                                  f" ({', '.join(n[:80] for n in odd)})")
    total = sum(e.size for e in entries.values())
    if total > MAX_TOTAL_BYTES:
        raise SyncFileError(path, f"refused: {total} bytes uncompressed (at most"
                                  f" {MAX_TOTAL_BYTES})")
    for entry in entries.values():
        declared = archive.getinfo(entry.name).file_size
        if declared != entry.size:
            raise SyncFileError(path, f"damaged: checksum of {entry.name} does not match (it"
                                      f" is {declared} bytes, the manifest says {entry.size})")
    return entries


def _read_member(
    path: Path, archive: zipfile.ZipFile, entry: Member, *, keep: bool
) -> bytes | None:
    """Stream a member within its listed size, checking its hash; its bytes when ``keep``."""
    digest = hashlib.sha256()
    chunks: list[bytes] = []
    size = 0
    try:
        with archive.open(entry.name) as stream:
            while chunk := stream.read(_CHUNK):
                size += len(chunk)
                if size > entry.size:
                    raise SyncFileError(path, f"damaged: {entry.name} inflates past its listed"
                                              f" {entry.size} bytes")
                digest.update(chunk)
                if keep:
                    chunks.append(chunk)
    except _READ_ERRORS as exc:
        raise SyncFileError(path, f"damaged member {entry.name} ({exc})") from None
    if size != entry.size or digest.hexdigest() != entry.sha256:
        raise SyncFileError(path, f"damaged: checksum of {entry.name} does not match")
    return b"".join(chunks) if keep else None


def _read_bounded(path: Path, archive: zipfile.ZipFile, name: str, limit: int) -> bytes:
    """A member's bytes, refusing one that declares or inflates to more than ``limit``."""
    info = archive.getinfo(name)  # KeyError when absent, as archive.read
    if info.file_size > limit:
        raise SyncFileError(path, f"refused: {name} is {info.file_size} bytes uncompressed"
                                  f" (at most {limit})")
    chunks: list[bytes] = []
    size = 0
    with archive.open(info) as stream:
        while chunk := stream.read(_CHUNK):
            size += len(chunk)
            if size > limit:
                raise SyncFileError(path, f"refused: {name} inflates past {limit} bytes")
            chunks.append(chunk)
    return b"".join(chunks)
