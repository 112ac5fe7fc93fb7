"""Read the images a case references: find, probe, clean (de-identify) and hash them.

Paths are relative to the JSON file's folder. A missing or unreadable image rejects the
case, so :class:`ImageRejected` carries the field that named the image and the reason.

Each DICOM file is parsed once: the probe's dataset is de-identified in place, and the
written file is parsed once more to prove that it is still a DICOM image with the very
same pixel data (so its pixels decode as the probe proved).

All of an image's work runs in one call, :func:`load_image`: read, probe (decode), clean
(de-identify, re-encode), hash and check for burned-in text, the check reusing the probe's
decoded pixels. An import of more than :data:`PROCESS_MIN_IMAGES` images runs those calls
in one process pool for the whole run, one worker per CPU, so every core works on images
while the main process only stores the results (bytes and metadata); a smaller import
runs them on a few threads (starting worker processes would cost more than it saves).
"""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import sys
import threading
import warnings
from collections.abc import Iterable
from concurrent.futures import Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from typing import Any

from annotator.domain.checks import ImageUse
from annotator.errors import AnnotatorError
from annotator.imaging._raster import raster_pixels
from annotator.imaging.limits import MAX_FILE_BYTES
from annotator.imaging.png_proof import pixels_only_proven
from annotator.imaging.probe import (
    JPEG,
    PNG,
    ImageDecodeError,
    ImageInfo,
    png_header_info,
    probe_dicom,
    probe_image,
    probe_raster,
    sniff_media_type,
)
from annotator.ingest.deidentify import (
    DeidentifyError,
    deidentify_dicom,
    header_of,
    reencode_raster,
)
from annotator.ingest.pixel_text import PixelCheck, check_pixels
from annotator.ingest.results import CandidateImage
from annotator.ingest.sources import os_reason
from annotator.inputfiles import read_regular


class ImageRejected(AnnotatorError):
    """An image that makes its case unimportable; ``field`` names where the case cites it."""

    def __init__(self, field: str, reason: str) -> None:
        super().__init__(f"{field}: {reason}")
        self.field = field
        self.reason = reason

    def __reduce__(self) -> tuple[type[ImageRejected], tuple[str, str]]:
        # Raised in a worker process and re-raised here: rebuilt from field and reason.
        return (ImageRejected, (self.field, self.reason))


@dataclass(frozen=True)
class _Cleaned:
    data: bytes
    sha256: str
    info: ImageInfo
    removed: tuple[str, ...]
    header: tuple[tuple[str, str], ...]
    pixel_check: PixelCheck | None


@dataclass(frozen=True)
class LoadSettings:
    """How one import run reads its images (the same in every worker)."""

    deidentify: bool
    seed: str
    check_pixels: bool = True
    checked: frozenset[str] = frozenset()  # hashes whose pixels the project checked before


THREADS = max(1, min(4, os.cpu_count() or 1))  # a small import's worker threads
WORKER_EXIT_S = 10.0  # how long close() waits for a worker to exit before ending it
PROCESS_MIN_IMAGES = 20  # an import citing fewer images reads them on threads


def cpu_count() -> int:
    """The CPUs this process may run on (its affinity where the system says)."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return max(1, os.cpu_count() or 1)


def pool_context() -> multiprocessing.context.BaseContext:
    """How the image workers start: forked (at once, sharing the loaded modules) only where
    that is safe, a Linux process with no other thread and without Qt; else spawned (a
    fresh interpreter, as the GUI's import and other systems need)."""
    if (sys.platform.startswith("linux") and threading.active_count() == 1
            and "PySide6.QtCore" not in sys.modules):
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context("spawn")


class ImageReader:
    """Reads images for one import run; a file cited by several cases of a batch is read once.

    :meth:`prefetch` starts reading in the background (worker processes for a large run,
    threads for a small one, see :meth:`plan`); :meth:`read` waits for the result;
    :meth:`forget` drops what a finished batch read, so memory holds about two batches' images.
    """

    def __init__(self, *, deidentify: bool, seed: str, checked: frozenset[str] = frozenset(),
                 check_pixels: bool = True, processes: bool | None = None) -> None:
        self._settings = LoadSettings(deidentify, seed, check_pixels, frozenset(checked))
        self._processes = processes  # None: decided by the run's size (see plan)
        self._cache: dict[Path, _Cleaned | ImageRejected | Future[_Cleaned] | None] = {}
        self._pool: Executor | None = None
        self._planned = 0

    def plan(self, images: int) -> None:
        """Say that ``images`` more images are about to be prefetched: once a run cites
        :data:`PROCESS_MIN_IMAGES` or more, it gets its process pool (unless told not to)."""
        self._planned += images
        if self._pool is not None:
            return
        wanted = self._processes
        if wanted is None:
            wanted = self._planned >= PROCESS_MIN_IMAGES
        if wanted:
            self._pool = ProcessPoolExecutor(
                cpu_count(), mp_context=pool_context(), initializer=_start_worker,
                initargs=(self._settings,))

    def prefetch_all(self, items: Iterable[tuple[Path, ImageUse]]) -> set[Path]:
        """:meth:`prefetch` each (folder, use); the keys they are cached under."""
        listed = list(items)
        self.plan(len(listed))
        keys = {self.prefetch(base, use) for base, use in listed}
        return {key for key in keys if key is not None}

    def prefetch(self, base: Path, use: ImageUse) -> Path | None:
        """Start reading ``use``'s image in the background (errors wait for :meth:`read`);
        returns the key it is cached under (None when it cannot even be located)."""
        try:
            location = _locate(base, use)
            key = location.resolve()
        except (ImageRejected, OSError, RuntimeError):
            return None
        if key not in self._cache:
            if self._pool is None:
                self._pool = ThreadPoolExecutor(THREADS, thread_name_prefix="import-image")
            try:
                if isinstance(self._pool, ProcessPoolExecutor):
                    future = self._pool.submit(_load_in_worker, location, use.draft_path)
                else:
                    future = self._pool.submit(load_image, self._settings, location,
                                               use.draft_path)
            except BrokenProcessPool:  # a worker died: read() loads it here instead
                future = None
            self._cache[key] = future
        return key

    def forget(self, keys: set[Path]) -> None:
        """Drop the images cached under ``keys`` (a finished part's)."""
        for key in keys:
            self._cache.pop(key, None)

    def close(self) -> None:
        pool, self._pool = self._pool, None
        if pool is None:
            return
        if not isinstance(pool, ProcessPoolExecutor):
            pool.shutdown(cancel_futures=True)
            return
        # A worker that died (killed, out of memory) may have held the call queue's lock, and
        # then the others wait on it for ever: ask them to exit, give them a moment, end the
        # rest. Nothing is lost: the reads were consumed or cancelled.
        workers = list((pool._processes or {}).values())  # noqa: SLF001 - no public handle
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.join(WORKER_EXIT_S)
            if worker.is_alive():
                worker.terminate()
                worker.join()

    def read(self, base: Path, use: ImageUse) -> CandidateImage:
        """The candidate image for ``use``; raises :class:`ImageRejected`."""
        location = _locate(base, use)
        try:
            key = location.resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop, an over-long name
            raise ImageRejected(use.field, f"cannot read image {location}: {exc}") from None
        cached = self._cache.get(key)
        if isinstance(cached, Future):
            try:
                cached = cached.result()
            except ImageRejected as exc:
                cached = exc
            except BrokenProcessPool:
                cached = None  # the worker died (killed, out of memory): load it here
        if cached is None:
            try:
                cached = load_image(self._settings, location, use.draft_path)
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
            pixel_check=cached.pixel_check,
        )


_WORKER_SETTINGS: LoadSettings | None = None


def _start_worker(settings: LoadSettings) -> None:
    """A worker process's start: the run's settings, sent once, not with every image."""
    global _WORKER_SETTINGS
    _WORKER_SETTINGS = settings


def _load_in_worker(location: Path, draft_path: str) -> _Cleaned:
    assert _WORKER_SETTINGS is not None, "started without _start_worker"
    return load_image(_WORKER_SETTINGS, location, draft_path)


def load_image(settings: LoadSettings, location: Path, draft_path: str) -> _Cleaned:
    """All of one image's work: read, probe, clean, hash, check its pixels for text.

    Raises :class:`ImageRejected` (its field empty: :meth:`ImageReader.read` names it).
    """
    try:
        data = read_regular(location, MAX_FILE_BYTES)
    except FileNotFoundError:
        raise ImageRejected("", f"image file not found: {location}") from None
    except IsADirectoryError:
        raise ImageRejected("", f"image path is a folder, not a file: {location}") from None
    except OSError as exc:
        raise ImageRejected("", f"cannot read image {location}: {os_reason(exc)}") from None
    info, dataset, raster = _probe(data, draft_path)
    removed: list[str] = []
    if settings.deidentify:
        pixels = dataset.get("PixelData") if dataset is not None else None
        data, removed = _clean(data, info, draft_path, settings.seed, dataset, raster)
        if removed:  # the rewritten file must still decode
            info, dataset = _recheck(data, info, draft_path, pixels)
    header: dict[str, str] = {}
    if dataset is not None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            header = header_of(dataset)
    sha = hashlib.sha256(data).hexdigest()
    if settings.deidentify and not info.is_dicom:
        # The PNG just written from its pixels, proven so once (here, on the import's
        # workers), not by every export that ships it (imaging/png_proof.py).
        pixels_only_proven(data, sha)
    check = None
    if settings.check_pixels and sha not in settings.checked:
        # The probe's decode is reused: a DICOM's parse, a PNG's or JPEG's pixels.
        check = check_pixels(data, name=draft_path, dataset=dataset, sha=sha,
                             pixels=None if raster is None else raster_pixels(raster))
    return _Cleaned(data, sha, info, tuple(removed), tuple(header.items()), check)


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


def _probe(data: bytes, draft_path: str) -> tuple[ImageInfo, Any, Any]:
    """The image's info, its parsed DICOM dataset (or None) and its decoded PNG or JPEG
    image (or None): what the probe decoded, so that cleaning does not decode it again."""
    try:
        media_type = sniff_media_type(data)
        if media_type == "application/dicom":
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                info, dataset = probe_dicom(data, name=draft_path)
                return info, dataset, None
        if media_type in (PNG, JPEG):
            info, raster = probe_raster(data, name=draft_path, media_type=media_type)
            return info, None, raster
        return probe_image(data, name=draft_path), None, None  # says why it is no image
    except ImageDecodeError as exc:
        raise ImageRejected("", f"unreadable image: {exc.reason}") from None


def _recheck(data: bytes, before: ImageInfo, draft_path: str, pixels: Any
             ) -> tuple[ImageInfo, Any]:
    """Info of a cleaned file, proving it is still the image the probe decoded.

    A PNG this app wrote from decoded pixels needs only its header read. A de-identified
    DICOM is parsed again; when its pixel data and image attributes are those of the
    probed original, decoding it again would prove nothing new, otherwise it is decoded.
    """
    try:
        if not before.is_dicom:
            return png_header_info(data, name=draft_path), None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            info, dataset = probe_dicom(data, name=draft_path, decode=False)
            same = pixels is not None and dataset.get("PixelData") == pixels and info == before
            if not same:
                info, dataset = probe_dicom(data, name=draft_path)
        return info, dataset
    except ImageDecodeError as exc:
        raise ImageRejected("", f"unreadable image: {exc.reason}") from None


def _clean(data: bytes, info: ImageInfo, name: str, seed: str, dataset: Any, raster: Any
           ) -> tuple[bytes, list[str]]:
    try:
        if info.is_dicom:
            return deidentify_dicom(data, seed=seed, name=name, dataset=dataset)
        return reencode_raster(data, name=name, decoded=raster)
    except DeidentifyError as exc:
        raise ImageRejected("", exc.reason) from None
