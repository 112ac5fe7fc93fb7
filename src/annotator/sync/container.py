"""The zip container both round-trip files share: atomic writing, checked reading.

The manifest lists the SHA-256 of every other member and carries a checksum over its own
canonical JSON, so one checksum vouches for the whole file. Reading checks, in this order:
the zip opens, the manifest names the expected kind, its format version is not newer than
this app's, the checksum and every member's hash match, the models validate. Any failure is
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
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel
from pydantic import ValidationError as PydanticError

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


@dataclass
class Container:
    """A checked file: the raw manifest and every member's bytes."""

    path: Path
    manifest: dict[str, Any]
    members: dict[str, bytes]

    def model(self, model: type[M]) -> M:
        """The manifest as ``model`` (raises SyncFileError naming the bad field)."""
        return _validate(self.path, model, self.manifest, MANIFEST)

    def content(self, model: type[M]) -> M:
        """``content.json`` as ``model``."""
        try:
            data = json.loads(self.members[CONTENT])
        except (KeyError, ValueError) as exc:
            raise SyncFileError(self.path, f"{CONTENT} is missing or not JSON ({exc})") from None
        return _validate(self.path, model, data, CONTENT)


def _validate(path: Path, model: type[M], data: Any, member: str) -> M:
    try:
        return model.model_validate(data)
    except PydanticError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top)"
        raise SyncFileError(path, f"{member} field {where}: {first['msg']}") from None


def read_container(path: Path, kind: str) -> Container:
    """Open and verify a bundle or package of ``kind``; raises SyncFileError when unusable."""
    path = Path(path)
    try:
        archive = zipfile.ZipFile(path)
    except FileNotFoundError:
        raise SyncFileError(path, "no such file") from None
    except _READ_ERRORS as exc:
        raise SyncFileError(
            path, f"not readable as {KIND_WORDS[kind]} (truncated or damaged: {exc})"
        ) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise SyncFileError(path, f"refused: {len(infos)} members (at most {MAX_MEMBERS})")
        try:
            manifest = json.loads(_read_bounded(path, archive, MANIFEST, MAX_MANIFEST_BYTES))
        except KeyError:
            raise SyncFileError(path, f"not {KIND_WORDS[kind]} (no {MANIFEST})") from None
        except _READ_ERRORS as exc:  # JSON errors are ValueErrors too
            raise SyncFileError(path, f"damaged manifest ({exc})") from None
        _check_header(path, manifest, kind)
        members = _read_members(path, archive, manifest)
    return Container(path, manifest, members)


def _check_header(path: Path, manifest: Any, kind: str) -> None:
    if not isinstance(manifest, dict):
        raise SyncFileError(path, "damaged manifest (not a JSON object)")
    found = manifest.get("kind")
    if found != kind:
        what = KIND_WORDS.get(str(found), f"a file of kind {found!r}")
        raise SyncFileError(path, f"this is {what}, not {KIND_WORDS[kind]}")
    version = manifest.get("format_version")
    supported = FORMAT_VERSIONS[kind]
    if type(version) is not int or version < 1:
        raise SyncFileError(path, f"damaged manifest (format_version {version!r})")
    if version > supported:
        raise SyncFileError(
            path,
            f"format version {version} was written by a newer annotator "
            f"(app {manifest.get('app_version', '?')}); this app reads up to version "
            f"{supported}: install the newer version to use it",
        )
    if manifest.get("checksum") != manifest_checksum(manifest):
        raise SyncFileError(path, "damaged: the manifest checksum does not match its content")


def _read_members(
    path: Path, archive: zipfile.ZipFile, manifest: dict[str, Any]
) -> dict[str, bytes]:
    listed = manifest.get("files")
    if not isinstance(listed, list):
        raise SyncFileError(path, "damaged manifest (no file list)")
    names = set(archive.namelist()) - {MANIFEST}
    expected: dict[str, Any] = {str(e.get("path")): e for e in listed if isinstance(e, dict)}
    if names != set(expected):
        odd = sorted(names ^ set(expected))
        raise SyncFileError(path, f"damaged: members differ from the manifest ({', '.join(odd)})")
    declared = sum(i.file_size for i in archive.infolist() if i.filename != MANIFEST)
    if declared > MAX_TOTAL_BYTES:
        raise SyncFileError(path, f"refused: {declared} bytes uncompressed (at most"
                                  f" {MAX_TOTAL_BYTES})")
    members: dict[str, bytes] = {}
    total = 0
    for name, entry in expected.items():
        try:
            data = _read_bounded(path, archive, name, MAX_MEMBER_BYTES)
        except _READ_ERRORS as exc:
            raise SyncFileError(path, f"damaged member {name} ({exc})") from None
        if hashlib.sha256(data).hexdigest() != entry.get("sha256") or len(data) != entry.get(
            "size"
        ):
            raise SyncFileError(path, f"damaged: checksum of {name} does not match")
        total += len(data)
        if total > MAX_TOTAL_BYTES:
            raise SyncFileError(path, f"refused: more than {MAX_TOTAL_BYTES} bytes uncompressed")
        members[name] = data
    return members


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
