"""The image viewer: zoom, pan, fit, 1:1, window/level by drag, presets, slices, invert.

A series is the exam's images flattened into slices (every frame of every image), so the
wheel and the arrow keys scroll frames of a multi-frame DICOM and files of a DICOM series
alike. Decoding happens in :class:`ImageLoader` off the GUI thread; this widget only maps
the decoded array through the window and paints it. A grey frame is windowed through a
lookup table at the resolution it is shown at (every n-th pixel when the image is shown
smaller than 1:1), so a window/level drag costs the same at any image size.

Mouse: drag = window/level (left/right: width, up/down: level), right or middle drag (or
Shift+drag) = pan, wheel = slices, Ctrl+wheel = zoom at the cursor, double-click = fit.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QFont, QImage, QMouseEvent, QPainter, QPaintEvent, QWheelEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from annotator.gui import theme
from annotator.gui.workspace.images import ImageLoader, to_qimage
from annotator.imaging.decode import DecodedFrame
from annotator.imaging.window import ScreenFrame, apply_window, prepare_stepped, preset, window_lut
from annotator.store.image_record import ImageRecord

MIN_ZOOM, MAX_ZOOM = 0.05, 32.0
Slice = tuple[ImageRecord, int]


class ImageViewer(QWidget):
    """Shows one slice of an exam's series with radiology-style interaction."""

    viewChanged = Signal()
    """Zoom, pan, window, inversion or slice changed (the page saves resume state)."""
    sliceShown = Signal(int)
    """A slice finished decoding and is on screen (its index)."""

    def __init__(self, loader: ImageLoader, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.loader = loader
        self.slices: list[Slice] = []
        self.index = 0
        self.frame: DecodedFrame | None = None
        self.shown_index = -1
        self.level_window: tuple[float, float] | None = None  # None: the frame's default
        self.inverted = False  # on top of the frame's own MONOCHROME1 inversion
        self.zoom = 1.0
        self.fit_mode = True
        self.center = QPointF(0, 0)  # image point at the widget centre
        self.title = ""
        self.error = ""
        self._image: QImage | None = None
        self._prepared: dict[int, ScreenFrame] = {}  # the frame by display step
        self._step = 1  # the shown image holds every _step-th pixel of the frame
        self._drag: tuple[str, QPointF, Any] | None = None
        self.setMinimumSize(200, 160)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setMouseTracking(False)
        loader.frameReady.connect(self._frame_ready)
        loader.frameFailed.connect(self._frame_failed)

    # -- series ---------------------------------------------------------------------------

    def set_series(
        self, slices: list[Slice], start: int, title: str, state: dict[str, Any]
    ) -> None:
        """Show a new series; ``state`` may restore slice, zoom, pan, window, inversion."""
        self.slices = slices
        self.title = title
        self.frame = None
        self._image = None
        self._prepared = {}
        self.error = "" if slices else "This exam has no image."
        saved = state.get("window")
        self.level_window = (float(saved[0]), float(saved[1])) if saved else None
        self.inverted = bool(state.get("invert", False))
        self.fit_mode = bool(state.get("fit", True))
        self.zoom = float(state.get("zoom", 1.0))
        center = state.get("center")
        self.center = QPointF(*center) if center else QPointF(0, 0)
        index = state.get("slice", start)
        self.index = index if isinstance(index, int) and 0 <= index < len(slices) else start
        self.shown_index = -1
        self._load()
        self.update()

    def state(self) -> dict[str, Any]:
        """What the page remembers to come back to this exam as it was."""
        return {
            "slice": self.index,
            "fit": self.fit_mode,
            "zoom": round(self.zoom, 4),
            "center": [round(self.center.x(), 1), round(self.center.y(), 1)],
            "window": list(self.level_window) if self.level_window else None,
            "invert": self.inverted,
        }

    def ready(self) -> bool:
        """True once the wanted slice is on screen (or failed, or there is none)."""
        return bool(self.error) or not self.slices or self.shown_index == self.index

    def _load(self) -> None:
        if not self.slices:
            return
        ref, frame = self.slices[self.index]
        cached = self.loader.request(ref.sha256, frame)
        if cached is not None:
            self._show(cached)
        # Neighbours decode next, so scrolling stays smooth.
        for step in (1, -1):
            j = self.index + step
            if 0 <= j < len(self.slices):
                self.loader.request(self.slices[j][0].sha256, self.slices[j][1])

    def _wanted(self, sha: str, frame: int) -> bool:
        if not self.slices:
            return False
        ref, wanted = self.slices[self.index]
        return ref.sha256 == sha and wanted == frame

    def _frame_ready(self, sha: str, frame: int, decoded: DecodedFrame) -> None:
        if self._wanted(sha, frame):
            self._show(decoded)

    def _frame_failed(self, sha: str, frame: int, reason: str) -> None:
        if self._wanted(sha, frame):
            self.error = f"Cannot show this image: {reason}"
            self.update()

    def _show(self, decoded: DecodedFrame) -> None:
        first = self.frame is None
        if decoded is not self.frame:
            self._prepared = {}
        self.frame = decoded
        self.error = ""
        if first and not self.center.x() and not self.center.y():
            self.center = QPointF(decoded.array.shape[1] / 2, decoded.array.shape[0] / 2)
        self._render()
        self.shown_index = self.index
        self.sliceShown.emit(self.index)

    def _render(self) -> None:
        if self.frame is None:
            return
        self._image = self._windowed(self.frame)
        self.update()

    def _windowed(self, frame: DecodedFrame) -> QImage:
        center, width = self.level_window or frame.window
        flip = frame.invert_default != self.inverted
        if frame.array.ndim != 2:  # colour: the window does not apply per pixel
            self._step = 1
            return to_qimage(apply_window(frame.array, center, width, invert=flip))
        step = self._wanted_step()
        prepared = self._prepared.get(step)
        if prepared is None:
            prepared = self._prepared[step] = prepare_stepped(frame.array, step)
        self._step = step
        return to_qimage(window_lut(prepared, center, width, invert=flip))

    def _wanted_step(self) -> int:
        """Every n-th pixel is enough while the image is shown at 1/n of its size or less."""
        s = self.scale()
        return max(1, int(1.0 / s)) if s < 1.0 else 1

    def _full_size(self) -> tuple[int, int]:
        if self.frame is not None:
            return int(self.frame.array.shape[1]), int(self.frame.array.shape[0])
        if self._image is not None:
            return self._image.width(), self._image.height()
        return 1, 1

    # -- commands (actions call these) -----------------------------------------------------

    def step(self, delta: int) -> None:
        """Scroll ``delta`` slices (clamped to the series)."""
        if not self.slices:
            return
        index = max(0, min(len(self.slices) - 1, self.index + delta))
        if index != self.index:
            self.index = index
            self._load()
            self.update()
            self.viewChanged.emit()

    def fit(self) -> None:
        self.fit_mode = True
        if self.frame is not None:
            self.center = QPointF(self.frame.array.shape[1] / 2, self.frame.array.shape[0] / 2)
        self.update()
        self.viewChanged.emit()

    def actual_size(self) -> None:
        """1:1: one image pixel per screen pixel."""
        self._set_zoom(1.0, None)

    def zoom_by(self, factor: float, anchor: QPointF | None = None) -> None:
        self._set_zoom(self.scale() * factor, anchor)

    def _set_zoom(self, zoom: float, anchor: QPointF | None) -> None:
        zoom = max(MIN_ZOOM, min(MAX_ZOOM, zoom))
        if anchor is not None:
            # Keep the image point under the cursor where it is.
            before = self.to_image(anchor)
            self.fit_mode, self.zoom = False, zoom
            after = self.to_image(anchor)
            self.center += before - after
        else:
            self.fit_mode, self.zoom = False, zoom
        self.update()
        self.viewChanged.emit()

    def toggle_invert(self) -> None:
        self.inverted = not self.inverted
        self._render()
        self.viewChanged.emit()

    def reset_window(self) -> None:
        self.level_window = None
        self._render()
        self.viewChanged.emit()

    def apply_preset(self, key: str) -> None:
        """A CT window preset (brain, subdural, stroke, bone, soft tissue, lung)."""
        chosen = preset(key)
        self.level_window = (chosen.center, chosen.width)
        self._render()
        self.viewChanged.emit()

    def is_ct(self) -> bool:
        return self.frame is not None and self.frame.modality == "CT"

    # -- geometry -------------------------------------------------------------------------

    def scale(self) -> float:
        if self._image is None:
            return self.zoom
        if self.fit_mode:
            w, h = self._full_size()
            return min(self.width() / w, self.height() / h)
        return self.zoom

    def to_image(self, point: QPointF) -> QPointF:
        s = self.scale()
        middle = QPointF(self.width() / 2, self.height() / 2)
        return self.center + (point - middle) / s

    # -- painting -------------------------------------------------------------------------

    def paintEvent(self, _event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.fillRect(self.rect(), theme.qcolour("viewer"))
        if self.frame is not None and self.frame.array.ndim == 2 and (
                self._image is None or self._wanted_step() != self._step):
            self._image = self._windowed(self.frame)  # zoomed: another resolution is due
        if self._image is not None:
            s = self.scale()
            full_w, full_h = self._full_size()
            if self.fit_mode and self.frame is not None:
                self.center = QPointF(full_w / 2, full_h / 2)
            w, h = full_w * s, full_h * s
            x = self.width() / 2 - self.center.x() * s
            y = self.height() / 2 - self.center.y() * s
            smooth = s < 1.0
            painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, smooth)
            painter.drawImage(QRectF(x, y, w, h), self._image)
        self._overlay(painter)
        painter.end()

    def _overlay(self, painter: QPainter) -> None:
        font = QFont(self.font())
        font.setPointSizeF(max(9.0, font.pointSizeF()))
        painter.setFont(font)
        painter.setPen(theme.qcolour("viewer_text"))
        margin = 8
        box = self.rect().adjusted(margin, margin, -margin, -margin)
        top_left = Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop
        painter.drawText(box, top_left, self.title)
        if self.error:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, self.error)
            return
        if self.slices and self.shown_index != self.index:
            painter.drawText(self.rect(), Qt.AlignmentFlag.AlignCenter, "Decoding...")
        if self.frame is None:
            return
        ref, frame = self.slices[self.index]
        where = f"slice {self.index + 1}/{len(self.slices)}"
        if ref.frames > 1:
            where += f"  (frame {frame + 1}/{ref.frames} of {ref.draft_path.rsplit('/', 1)[-1]})"
        painter.drawText(box, Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignBottom, where)
        center, width = self.level_window or self.frame.window
        zoom = "fit" if self.fit_mode else ""
        info = f"W {width:g}  L {center:g}   {self.scale() * 100:.0f}% {zoom}".rstrip()
        if self.inverted:
            info = "inverted   " + info
        painter.drawText(box, Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignBottom, info)

    # -- mouse ----------------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        self.setFocus(Qt.FocusReason.MouseFocusReason)
        pan = event.button() in (Qt.MouseButton.RightButton, Qt.MouseButton.MiddleButton) or (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        )
        if pan:
            if self.fit_mode:
                self.zoom, self.fit_mode = self.scale(), False
            self._drag = ("pan", event.position(), QPointF(self.center))
        elif event.button() == Qt.MouseButton.LeftButton and self.frame is not None:
            self._drag = ("window", event.position(), self.level_window or self.frame.window)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self._drag is None:
            return
        kind, start, origin = self._drag
        delta = event.position() - start
        if kind == "pan":
            self.center = origin - delta / self.scale()
            self.update()
        elif self.frame is not None:
            center, width = origin
            span = max(self.frame.data_window[1], 1.0)
            sensitivity = span / 400.0  # a 400-pixel drag sweeps the data's range
            self.level_window = (
                center + delta.y() * sensitivity,
                max(1.0, width + delta.x() * sensitivity),
            )
            self._render()

    def mouseReleaseEvent(self, _event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self._drag is not None:
            self._drag = None
            self.viewChanged.emit()

    def mouseDoubleClickEvent(self, _event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        self.fit()

    def wheelEvent(self, event: QWheelEvent) -> None:  # noqa: N802 - Qt's name
        steps = event.angleDelta().y() / 120
        if not steps:
            return
        if event.modifiers() & Qt.KeyboardModifier.ControlModifier:
            self.zoom_by(1.25 ** steps, event.position())
        else:
            self.step(-1 if steps > 0 else 1)
        event.accept()
