"""The image with its redaction boxes: draw, move, resize and select them with the mouse.

Boxes are in image pixels (the scene's units), ``(x, y, w, h)`` whole numbers. The canvas
shows one frame and the boxes on it; it holds no rule and saves nothing: each finished
edit (a box drawn, moved or resized) is reported with :attr:`BoxCanvas.edited` as the new
list, and the page turns it into an undoable step and gives the list back through
:meth:`BoxCanvas.set_boxes`.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QBrush, QColor, QMouseEvent, QPainter, QPen, QPixmap, QResizeEvent
from PySide6.QtWidgets import QGraphicsPixmapItem, QGraphicsRectItem, QGraphicsScene, QGraphicsView

from annotator.gui import theme
from annotator.gui.workspace.images import to_qimage

Box = tuple[int, int, int, int]
GRIP = 8.0  # view pixels around a box's bottom-right corner that resize it


class BoxCanvas(QGraphicsView):
    edited = Signal(list)
    """The user finished an edit: the frame's new list of boxes."""
    selected = Signal(int)
    """The selected box changed (its index, -1 for none)."""

    def __init__(self) -> None:
        super().__init__()
        self.setScene(QGraphicsScene(self))
        self.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform, False)
        self.setBackgroundBrush(QBrush(theme.qcolour("viewer")))
        self.setMinimumSize(320, 240)
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.pixmap = QGraphicsPixmapItem()
        self.scene().addItem(self.pixmap)
        self.boxes: list[Box] = []
        self.items: list[QGraphicsRectItem] = []
        self.current = -1
        self.size_px = (0, 0)  # width, height of the frame shown
        self._drag: tuple[str, int, QPointF, Box] | None = None  # mode, box, start, before

    # --- what is shown -----------------------------------------------------------------

    def set_frame(self, grey: np.ndarray) -> None:
        self.pixmap.setPixmap(QPixmap.fromImage(to_qimage(grey)))
        self.size_px = (int(grey.shape[1]), int(grey.shape[0]))
        self.scene().setSceneRect(QRectF(0, 0, *self.size_px))
        self._fit()

    def set_boxes(self, boxes: list[Box], current: int | None = None) -> None:
        for item in self.items:
            self.scene().removeItem(item)
        self.boxes = [tuple(int(v) for v in b) for b in boxes]  # type: ignore[misc]
        self.items = [self._item(b) for b in self.boxes]
        self.select(min(self.current if current is None else current, len(self.boxes) - 1))

    def select(self, index: int) -> None:
        self.current = index
        for i, item in enumerate(self.items):
            chosen = i == index
            pen = QPen(theme.qcolour("tab_accent" if chosen else "flag"), 0)
            pen.setCosmetic(True)
            pen.setWidthF(3.0 if chosen else 2.0)
            item.setPen(pen)
        self.selected.emit(index)

    def _item(self, box: Box) -> QGraphicsRectItem:
        item = QGraphicsRectItem(QRectF(*box))
        fill = QColor(theme.qcolour("flag"))
        fill.setAlpha(70)
        item.setBrush(QBrush(fill))
        self.scene().addItem(item)
        return item

    def _fit(self) -> None:
        if self.size_px[0]:
            self.fitInView(self.scene().sceneRect(), Qt.AspectRatioMode.KeepAspectRatio)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._fit()

    # --- mouse ------------------------------------------------------------------------

    def _box_at(self, point: QPointF) -> tuple[int, bool]:
        """The topmost box under ``point`` (-1 for none) and whether at its resize grip."""
        grip = GRIP / max(self.transform().m11(), 1e-6)
        for index in range(len(self.boxes) - 1, -1, -1):
            x, y, w, h = self.boxes[index]
            corner = abs(point.x() - (x + w)) <= grip and abs(point.y() - (y + h)) <= grip
            if corner or (x <= point.x() <= x + w and y <= point.y() <= y + h):
                return index, corner
        return -1, False

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if event.button() != Qt.MouseButton.LeftButton or not self.size_px[0]:
            super().mousePressEvent(event)
            return
        point = self.mapToScene(event.position().toPoint())
        index, corner = self._box_at(point)
        if index < 0:  # a new box starts here
            start = self._clamp(point)
            self.boxes.append((int(start.x()), int(start.y()), 1, 1))
            self.items.append(self._item(self.boxes[-1]))
            index, mode = len(self.boxes) - 1, "draw"
        else:
            mode = "resize" if corner else "move"
        self.select(index)
        self._drag = (mode, index, point, self.boxes[index])

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self._drag is None:
            super().mouseMoveEvent(event)
            return
        mode, index, start, (x, y, w, h) = self._drag
        point = self._clamp(self.mapToScene(event.position().toPoint()))
        dx, dy = int(point.x() - start.x()), int(point.y() - start.y())
        if mode == "move":
            box = (min(max(0, x + dx), self.size_px[0] - w), min(max(0, y + dy),
                                                                 self.size_px[1] - h), w, h)
        elif mode == "resize":
            box = (x, y, max(1, w + dx), max(1, h + dy))
        else:  # draw: from the press to here, either way round
            left, top = min(x, int(point.x())), min(y, int(point.y()))
            box = (left, top, max(1, abs(int(point.x()) - x)), max(1, abs(int(point.y()) - y)))
        self.boxes[index] = box
        self.items[index].setRect(QRectF(*box))

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self._drag is None:
            super().mouseReleaseEvent(event)
            return
        mode, index, _, before = self._drag
        self._drag = None
        if mode == "draw" and min(self.boxes[index][2:]) < 3:  # a click, not a box
            self.scene().removeItem(self.items.pop(index))
            self.boxes.pop(index)
            self.select(-1)
            return
        if self.boxes[index] != before or mode == "draw":
            self.edited.emit(list(self.boxes))

    def _clamp(self, point: QPointF) -> QPointF:
        return QPointF(min(max(0.0, point.x()), float(self.size_px[0])),
                       min(max(0.0, point.y()), float(self.size_px[1])))

    # --- keys (through the page's registered actions) ------------------------------------

    def nudge(self, dx: int, dy: int, dw: int, dh: int) -> None:
        """Move or resize the selected box by whole pixels, inside the frame."""
        if not 0 <= self.current < len(self.boxes):
            return
        x, y, w, h = self.boxes[self.current]
        width, height = self.size_px
        w, h = max(1, min(w + dw, width - x)), max(1, min(h + dh, height - y))
        x, y = min(max(0, x + dx), width - w), min(max(0, y + dy), height - h)
        boxes = list(self.boxes)
        boxes[self.current] = (x, y, w, h)
        self.edited.emit(boxes)

    def add_box(self) -> None:
        """A new box a quarter of the frame's size in its middle, selected."""
        width, height = self.size_px
        if not width:
            return
        box = (width * 3 // 8, height * 3 // 8, max(1, width // 4), max(1, height // 4))
        self.current = len(self.boxes)
        self.edited.emit([*self.boxes, box])

    def delete_box(self) -> None:
        if 0 <= self.current < len(self.boxes):
            boxes = [b for i, b in enumerate(self.boxes) if i != self.current]
            self.current = min(self.current, len(boxes) - 1)
            self.edited.emit(boxes)

    def select_next(self) -> None:
        if self.boxes:
            self.select((self.current + 1) % len(self.boxes))
