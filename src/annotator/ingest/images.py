"""Read the images a case references: find, probe, clean (de-identify) and hash them.

Paths are relative to the JSON file's folder. A missing or unreadable image rejects the
case, so :class:`ImageRejected` carries the field that named the image and the reason.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath

from annotator.domain.checks import ImageUse
from annotator.errors import AnnotatorError
from annotator.imaging.limits import MAX_FILE_BYTES
from annotator.imaging.probe import ImageDecodeError, ImageInfo, probe_image
from annotator.ingest.deidentify import (
    DeidentifyError,
    deidentify_dicom,
    dicom_header,
    reencode_raster,
)
from annotator.ingest.results import CandidateImage
from annotator.ingest.sources import os_reason, read_regular


class ImageRejected(AnnotatorError):
    """An image that makes its case unimportable; ``field`` names where the case cites it."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason


@dataclass(frozen=True)
class _Cleaned:
    data: bytes
    sha256: str
    info: ImageInfo
    removed: tuple[str, ...]
    header: tuple[tuple[str, str], ...]


class ImageReader:
    """Reads images for one import run; a file cited by several cases is read once."""

    def __init__(self, *, deidentify: bool, seed: str) -> None:
        self._deidentify = deidentify
        self._seed = seed
        self._cache: dict[Path, _Cleaned | ImageRejected] = {}

    def read(self, base: Path, use: ImageUse) -> CandidateImage:
        """The candidate image for ``use``; raises :class:`ImageRejected`."""
        location = _locate(base, use)
        try:
            key = location.resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop, an over-long name
            raise ImageRejected(use.field, f"cannot read image {location}: {exc}") from None
        cached = self._cache.get(key)
        if cached is None:
            try:
                cached = self._load(location, use.draft_path)
            except ImageRejected as exc:
                cached = exc
            self._cache[key] = cached
        if isinstance(cached, ImageRejected):
            raise ImageRejected(use.field, cached.reason)
        return CandidateImage(
            draft_path=use.draft_path, data=cached.data, sha256=cached.sha256,
            media_type=cached.info.media_type, width=cached.info.width,
            height=cached.info.height, frames=cached.info.frames, figures=list(use.figures),
            name=use.name, caption=use.caption, attribution=dict(use.attribution),
            removed=list(cached.removed), dicom_header=dict(cached.header),
        )

    def _load(self, location: Path, draft_path: str) -> _Cleaned:
        try:
            data = read_regular(location, MAX_FILE_BYTES)
        except FileNotFoundError:
            raise ImageRejected("", f"image file not found: {location}") from None
        except IsADirectoryError:
            raise ImageRejected("", f"image path is a folder, not a file: {location}") from None
        except OSError as exc:
            raise ImageRejected("", f"cannot read image {location}: {os_reason(exc)}") from None
        info = _probe(data, draft_path)
        removed: list[str] = []
        header: dict[str, str] = {}
        if self._deidentify:
            data, removed = _clean(data, info, draft_path, self._seed)
            if removed:
                info = _probe(data, draft_path)  # the rewritten file must still decode
        if info.is_dicom:
            header = dicom_header(data)
        return _Cleaned(data, hashlib.sha256(data).hexdigest(), info, tuple(removed),
                        tuple(header.items()))


def _locate(base: Path, use: ImageUse) -> Path:
    """Resolve a draft path against the JSON file's folder; absolute paths are refused."""
    draft = use.draft_path
    if not draft.strip():
        raise ImageRejected(use.field, "empty image path")
    if "\x00" in draft:
        raise ImageRejected(use.field, "image path holds a NUL character")
    if PurePosixPath(draft).is_absolute() or PureWindowsPath(draft).is_absolute():
        raise ImageRejected(use.field, f"image path {draft!r} must be relative to the JSON"
                                       " file's folder")
    location = base / draft
    try:
        exists = location.exists()
    except OSError as exc:  # an over-long name
        raise ImageRejected(use.field, f"cannot read image {location}: {os_reason(exc)}") from None
    if not exists and ".." in PurePosixPath(draft).parts:
        # Allowed, but say so: a path leaving the folder is the usual cause of "missing".
        raise ImageRejected(use.field, f"image file not found: {location.resolve()} (the"
                                       " path leads outside the JSON file's folder)")
    return location


def _probe(data: bytes, draft_path: str) -> ImageInfo:
    try:
        return probe_image(data, name=draft_path)
    except ImageDecodeError as exc:
        raise ImageRejected("", f"unreadable image: {exc.reason}") from None


def _clean(data: bytes, info: ImageInfo, name: str, seed: str) -> tuple[bytes, list[str]]:
    try:
        if info.is_dicom:
            return deidentify_dicom(data, seed=seed, name=name)
        return reencode_raster(data, name=name)
    except DeidentifyError as exc:
        raise ImageRejected("", exc.reason) from None
