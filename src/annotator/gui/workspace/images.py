"""Image bytes, decoded frames and thumbnails, always produced off the GUI thread.

The loader asks the core for bytes by SHA-256 and decodes with ``imaging.decode_frame`` on
the thread pool (``workers.run_in_background``); results come back as signals on the GUI
thread and are kept in small LRU caches, so going back to an exam is instant and the next
case's images can be prefetched while the physician reads the current one.

``decoder`` is a hook: tests inject a slow decoder to prove the event loop keeps running.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np
from PySide6.QtCore import QObject, Signal
from PySide6.QtGui import QImage

from annotator.imaging.decode import DecodedFrame, decode_frame
from annotator.imaging.thumbnails import ThumbnailCache
from annotator.services import workspace
from annotator.services.workspace_state import cache_dir
from annotator.store.project import Project

Decoder = Callable[[bytes, int, str], DecodedFrame]
BYTES_BUDGET = 256 * 1024 * 1024
FRAMES_BUDGET = 512 * 1024 * 1024
THUMB_SIZE = 160


def default_decoder(data: bytes, frame: int, key: str) -> DecodedFrame:
    return decode_frame(data, frame, name=key[:12], key=key)


class Lru:
    """A thread-safe LRU keyed by anything, bounded by the total size of its values."""

    def __init__(self, budget: int, size_of: Callable[[Any], int]) -> None:
        self.budget = budget
        self.size_of = size_of
        self.items: OrderedDict[Any, Any] = OrderedDict()
        self.used = 0
        self.lock = threading.Lock()

    def get(self, key: Any) -> Any:
        with self.lock:
            if key not in self.items:
                return None
            self.items.move_to_end(key)
            return self.items[key]

    def put(self, key: Any, value: Any) -> None:
        with self.lock:
            if key in self.items:
                self.used -= self.size_of(self.items.pop(key))
            self.items[key] = value
            self.used += self.size_of(value)
            while self.used > self.budget and len(self.items) > 1:
                _, old = self.items.popitem(last=False)
                self.used -= self.size_of(old)


def to_qimage(pixels: np.ndarray) -> QImage:
    """A QImage that owns a copy of uint8 grey (H x W) or RGB (H x W x 3) pixels."""
    pixels = np.ascontiguousarray(pixels)
    height, width = pixels.shape[:2]
    grey = pixels.ndim == 2
    kind = QImage.Format.Format_Grayscale8 if grey else QImage.Format.Format_RGB888
    image = QImage(pixels.data, width, height, pixels.strides[0], kind)
    return image.copy()  # the numpy buffer may go away; the copy owns its pixels


class ImageLoader(QObject):
    """Decodes frames and renders thumbnails in the background; caches both."""

    frameReady = Signal(str, int, object)
    """A frame was decoded: (sha256, frame, DecodedFrame)."""
    frameFailed = Signal(str, int, str)
    """A frame could not be decoded: (sha256, frame, readable reason)."""
    thumbnailReady = Signal(str, QImage)
    """A thumbnail is available: (sha256, image)."""
    headerReady = Signal(str, object)
    """A DICOM header was read: (sha256, metadata values in the case schema's words)."""

    def __init__(self, project: Project, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.project = project
        self.decoder: Decoder = default_decoder
        self.thumbnails = ThumbnailCache(cache_dir() / "thumbnails")
        self._bytes = Lru(BYTES_BUDGET, len)
        self._frames = Lru(FRAMES_BUDGET, lambda f: int(f.array.nbytes))
        self._thumbs: dict[str, QImage] = {}
        self._in_flight: set[tuple[str, int]] = set()
        self._thumbs_in_flight: set[str] = set()
        self._headers: dict[str, dict[str, str]] = {}

    def data(self, sha: str) -> bytes:
        """The image's bytes (worker threads only: may read a file or the database)."""
        cached = self._bytes.get(sha)
        if cached is None:
            cached = workspace.image_bytes(self.project, sha)
            self._bytes.put(sha, cached)
        return cached  # type: ignore[no-any-return]

    def cached_frame(self, sha: str, frame: int) -> DecodedFrame | None:
        found: DecodedFrame | None = self._frames.get((sha, frame))
        return found

    def busy(self) -> bool:
        """True while decodes or thumbnails are under way (screenshots wait for this)."""
        return bool(self._in_flight or self._thumbs_in_flight)

    def request(self, sha: str, frame: int) -> DecodedFrame | None:
        """The frame if cached; otherwise start decoding it and return None (see signals)."""
        from annotator.gui.workers import run_in_background

        cached = self.cached_frame(sha, frame)
        if cached is not None:
            return cached
        key = (sha, frame)
        if key in self._in_flight:
            return None
        self._in_flight.add(key)
        decoder = self.decoder

        def work() -> DecodedFrame:
            return decoder(self.data(sha), frame, sha)

        def done(result: DecodedFrame) -> None:
            self._in_flight.discard(key)
            self._frames.put(key, result)
            self.frameReady.emit(sha, frame, result)

        def failed(exc: BaseException) -> None:
            self._in_flight.discard(key)
            self.frameFailed.emit(sha, frame, str(exc))

        run_in_background(work, done, failed)
        return None

    def thumbnail(self, sha: str) -> QImage | None:
        """The thumbnail if ready; otherwise render it in the background (see signal)."""
        from annotator.gui.workers import run_in_background

        if sha in self._thumbs:
            return self._thumbs[sha]
        if sha in self._thumbs_in_flight:
            return None
        self._thumbs_in_flight.add(sha)

        def work() -> QImage:
            # Decoded here, not in ``done``: a PNG decode on the GUI thread for each card.
            return QImage.fromData(self.thumbnails.get(sha, lambda: self.data(sha), THUMB_SIZE))

        def done(image: QImage) -> None:
            self._thumbs_in_flight.discard(sha)
            self._thumbs[sha] = image
            self.thumbnailReady.emit(sha, image)

        def failed(_exc: BaseException) -> None:
            self._thumbs_in_flight.discard(sha)

        run_in_background(work, done, failed)
        return None

    def header(self, sha: str) -> dict[str, str] | None:
        """The DICOM header's metadata values if read; otherwise read them in the background."""
        from annotator.gui.workers import run_in_background
        from annotator.imaging.dicom_header import header_values

        if sha in self._headers:
            return self._headers[sha]
        self._headers[sha] = {}  # asked once; filled when the worker is done

        def done(values: dict[str, str]) -> None:
            self._headers[sha] = values
            self.headerReady.emit(sha, values)

        run_in_background(lambda: header_values(self.data(sha)), done, lambda _exc: None)
        return None

    def prefetch(self, wanted: list[tuple[str, int]]) -> None:
        """Start decoding frames (and thumbnails) that will probably be shown next."""
        for sha, frame in wanted:
            self.thumbnail(sha)
            self.request(sha, frame)
