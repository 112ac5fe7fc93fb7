"""The preferred order as a board: stage columns, an "unranked" area, a "not placed" tray.

Exams are chips that can be dragged between columns; a drop asks the page to carry out a
``order_board.Move`` (the keyboard does the same), so the board itself decides nothing: it
draws the core's :class:`~annotator.services.order_board.Board` and reports drops.

The board is one painted widget, not a widget per chip and column: a case switch redraws
it in well under a millisecond, where building, polishing (under the page's style sheet) and
painting a dozen new widgets took 10-80 ms of the GUI thread on every switch.
"""

from __future__ import annotations

from dataclasses import dataclass

from PySide6.QtCore import QEvent, QMimeData, QPoint, QRect, QSize, Qt, QTimer, Signal
from PySide6.QtGui import (
    QColor,
    QDrag,
    QDragEnterEvent,
    QDragLeaveEvent,
    QDragMoveEvent,
    QDropEvent,
    QFont,
    QFontMetrics,
    QHelpEvent,
    QMouseEvent,
    QPainter,
    QPaintEvent,
    QPen,
    QPixmap,
    QResizeEvent,
)
from PySide6.QtWidgets import QFrame, QScrollArea, QToolTip, QWidget

from annotator.gui import theme
from annotator.services.order_board import Board, Move

MIME = "application/x-annotator-exam"
MARGIN, SPACING, GAP_WIDTH, ZONE_MIN_WIDTH = 4, 4, 10, 112
ZONE_PAD_X, ZONE_PAD_Y, CHIP_PAD_X, CHIP_PAD_Y, CHIP_SPACING = 6, 4, 5, 1, 3
DRAG_DISTANCE = 6
CHIP_TIP = "{figure}: drag to a stage, or use 1-9, T (tie) and 0 (unranked)"
GAP_TIP = "drop here to insert a new stage"


@dataclass
class Zone:
    """A column, the unranked area, a gap that opens a new column, or the tray."""

    key: str  # "stage 1", "new 2", "unranked", "tray"
    title: str
    target: Move
    kind: str  # "column", "empty" (the "+ Stage N" column), "unranked", "gap", "tray"
    rect: QRect

    @property
    def accepts(self) -> bool:
        return self.kind != "tray"


@dataclass
class Chip:
    """One exam on the board."""

    figure: str
    text: str
    rect: QRect
    current: bool
    placed: bool


class BoardCanvas(QWidget):
    """Lays out and paints the zones and chips; handles clicks, drags and drops on them."""

    def __init__(self, owner: OrderBoard) -> None:
        super().__init__()
        self.owner = owner
        self.setAcceptDrops(True)
        self.setMouseTracking(True)  # the open-hand cursor over chips
        self.zones: list[Zone] = []
        self.chips: list[Chip] = []
        self.hover = ""  # the key of the zone a drag is over
        self._press: tuple[Chip, QPoint] | None = None
        self._content = QSize(0, 0)

    # -- layout -----------------------------------------------------------------------------

    def lay_out(self, board: Board, current: str, short: dict[str, str]) -> None:
        """Place the zones and chips of ``board`` left to right (heights follow the widget's)."""
        fm, bold = QFontMetrics(self.font()), QFontMetrics(self._bold())
        chip_h = fm.height() + 2 * CHIP_PAD_Y + 2
        title_h = bold.height()
        zones: list[Zone] = []
        chips: list[Chip] = []
        x = MARGIN
        tallest = 0

        def zone(key: str, title: str, move: Move, kind: str,
                 figures: list[tuple[str, str, bool]]) -> None:
            nonlocal x, tallest
            if kind == "gap":
                width = GAP_WIDTH
            else:
                texts = [fm.horizontalAdvance(text) + 2 * CHIP_PAD_X + 4 for _, text, _ in figures]
                width = max(ZONE_MIN_WIDTH, bold.horizontalAdvance(title) + 2 * ZONE_PAD_X,
                            *(w + 2 * ZONE_PAD_X for w in texts))
            y = MARGIN + ZONE_PAD_Y + (title_h + CHIP_SPACING if title else 0)
            for figure, text, placed in figures:
                width_chip = fm.horizontalAdvance(text) + 2 * CHIP_PAD_X + 4
                chips.append(Chip(figure, text, QRect(x + ZONE_PAD_X, y, width_chip, chip_h),
                                  figure == current, placed))
                y += chip_h + CHIP_SPACING
            tallest = max(tallest, y + ZONE_PAD_Y)
            zones.append(Zone(key, title, move, kind, QRect(x, MARGIN, width, 0)))
            x += width + SPACING

        def text(figure: str, hint: str = "") -> str:
            return short.get(figure, figure) + hint

        if board.unplaced:
            tray = []
            for figure in board.unplaced:
                stage = board.suggested.get(figure)
                hint = f"  (suggests {stage})" if stage else "  (suggests unranked)"
                tray.append((figure, text(figure, hint), False))
            zone("tray", "Not placed yet", Move("unranked"), "tray", tray)
        for number, column in enumerate(board.columns, start=1):
            zone(f"new {number}", "", Move("new_stage", number), "gap", [])
            zone(f"stage {number}", f"Stage {number}", Move("stage", number), "column",
                 [(f, text(f), True) for f in column])
        last = len(board.columns) + 1
        zone(f"new {last}", f"+ Stage {last}", Move("new_stage", last), "empty", [])
        zone("unranked", "Unranked", Move("unranked"), "unranked",
             [(f, text(f), True) for f in board.unranked])
        self.zones, self.chips = zones, chips
        self._content = QSize(x - SPACING + MARGIN, tallest + MARGIN)
        self.setMinimumSize(self._content)
        self._fit_heights()
        self.setAccessibleName("Preferred order")
        self.setAccessibleDescription(describe(board))
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        return self._content

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        self._fit_heights()
        super().resizeEvent(event)

    def _fit_heights(self) -> None:
        height = max(0, self.height() - 2 * MARGIN)
        for z in self.zones:
            z.rect.setHeight(height)

    def _bold(self) -> QFont:
        font = QFont(self.font())
        font.setBold(True)
        return font

    # -- painting ---------------------------------------------------------------------------

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.fillRect(event.rect(), theme.qcolour("board"))
        for z in self.zones:
            self._paint_zone(painter, z)
        for chip in self.chips:
            paint_chip(painter, chip, self.font())
        painter.end()

    def _paint_zone(self, painter: QPainter, z: Zone) -> None:
        rect = z.rect.adjusted(0, 0, -1, -1)
        if z.key == self.hover:
            painter.setPen(QPen(theme.qcolour("hover_border"), 2))
            painter.setBrush(theme.qcolour("hover"))
            painter.drawRoundedRect(rect.adjusted(1, 1, 0, 0), 6, 6)
        elif z.kind != "gap":
            fill, border, dashed = {
                "column": ("column", "column_border", False),
                "empty": ("", "empty_border", True),
                "unranked": ("unranked", "column_border", False),
                "tray": ("tray", "tray_border", True),
            }[z.kind]
            pen = QPen(theme.qcolour(border), 1)
            if dashed:
                pen.setStyle(Qt.PenStyle.DashLine)
            painter.setPen(pen)
            painter.setBrush(theme.qcolour(fill) if fill else QColor(Qt.GlobalColor.transparent))
            painter.drawRoundedRect(rect, 6, 6)
        if z.title:
            painter.setFont(self._bold())
            painter.setPen(theme.qcolour("zone_title"))
            painter.drawText(z.rect.adjusted(ZONE_PAD_X, ZONE_PAD_Y, -ZONE_PAD_X, 0),
                             Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignTop, z.title)

    # -- hit testing ------------------------------------------------------------------------

    def chip_at(self, pos: QPoint) -> Chip | None:
        return next((c for c in self.chips if c.rect.contains(pos)), None)

    def zone_at(self, pos: QPoint) -> Zone | None:
        return next((z for z in self.zones if z.rect.contains(pos)), None)

    def event(self, event: QEvent) -> bool:
        if event.type() == QEvent.Type.ToolTip and isinstance(event, QHelpEvent):
            chip, z = self.chip_at(event.pos()), self.zone_at(event.pos())
            tip = (CHIP_TIP.format(figure=chip.figure) if chip
                   else GAP_TIP if z is not None and z.kind == "gap" else "")
            if tip:
                QToolTip.showText(event.globalPos(), tip, self)
            else:
                QToolTip.hideText()
                event.ignore()
            return True
        return super().event(event)

    # -- clicks and drags -------------------------------------------------------------------

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        chip = self.chip_at(event.position().toPoint())
        if event.button() == Qt.MouseButton.LeftButton and chip is not None:
            self._press = (chip, event.position().toPoint())

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        pos = event.position().toPoint()
        over_chip = self.chip_at(pos) is not None
        self.setCursor(Qt.CursorShape.OpenHandCursor if over_chip else Qt.CursorShape.ArrowCursor)
        if self._press is None:
            return
        chip, start = self._press
        if (pos - start).manhattanLength() < DRAG_DISTANCE:
            return
        self._press = None
        drag = QDrag(self)
        data = QMimeData()
        data.setData(MIME, chip.figure.encode("utf-8"))
        drag.setMimeData(data)
        drag.setPixmap(self._chip_pixmap(chip))
        drag.setHotSpot(start - chip.rect.topLeft())
        self.owner._dragging(True)
        drag.exec(Qt.DropAction.MoveAction)  # a nested event loop; the drop happens inside
        self.owner._dragging(False)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self._press is not None:
            chip, _ = self._press
            self._press = None
            self.owner.examClicked.emit(chip.figure)

    def _chip_pixmap(self, chip: Chip) -> QPixmap:
        ratio = self.devicePixelRatioF()
        pixmap = QPixmap(chip.rect.size() * ratio)
        pixmap.setDevicePixelRatio(ratio)
        pixmap.fill(Qt.GlobalColor.transparent)
        painter = QPainter(pixmap)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        moved = Chip(chip.figure, chip.text, QRect(QPoint(0, 0), chip.rect.size()),
                     chip.current, chip.placed)
        paint_chip(painter, moved, self.font())
        painter.end()
        return pixmap

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if event.mimeData().hasFormat(MIME):
            event.acceptProposedAction()
            self._hover_at(event.position().toPoint())

    def dragMoveEvent(self, event: QDragMoveEvent) -> None:  # noqa: N802 - Qt's name
        z = self._hover_at(event.position().toPoint())
        if z is not None and event.mimeData().hasFormat(MIME):
            event.acceptProposedAction()
        else:
            event.ignore()

    def dragLeaveEvent(self, _event: QDragLeaveEvent) -> None:  # noqa: N802 - Qt's name
        self._set_hover("")

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        z = self.zone_at(event.position().toPoint())
        self._set_hover("")
        if z is None or not z.accepts or not event.mimeData().hasFormat(MIME):
            event.ignore()
            return
        figure = bytes(event.mimeData().data(MIME).data()).decode("utf-8")
        event.acceptProposedAction()
        self.owner.moveRequested.emit(figure, z.target)

    def _hover_at(self, pos: QPoint) -> Zone | None:
        z = self.zone_at(pos)
        z = z if z is not None and z.accepts else None
        self._set_hover(z.key if z else "")
        return z

    def _set_hover(self, key: str) -> None:
        if key != self.hover:
            self.hover = key
            self.update()


def paint_chip(painter: QPainter, chip: Chip, font: QFont) -> None:
    """A chip: the current exam's ringed, an unplaced one dashed."""
    rect = chip.rect.adjusted(0, 0, -1, -1)
    if chip.current:
        pen = QPen(theme.qcolour("hover_border"), 2)
        fill, text = theme.qcolour("chip_current"), theme.qcolour("text")
        rect = rect.adjusted(1, 1, 0, 0)
    elif not chip.placed:
        pen = QPen(theme.qcolour("tray_border"), 1, Qt.PenStyle.DashLine)
        fill, text = QColor(Qt.GlobalColor.transparent), theme.qcolour("tray_text")
    else:
        pen = QPen(theme.qcolour("chip_border"), 1)
        fill, text = theme.qcolour("chip"), theme.qcolour("text")
    painter.setPen(pen)
    painter.setBrush(fill)
    painter.drawRoundedRect(rect, 4, 4)
    painter.setFont(font)
    painter.setPen(text)
    painter.drawText(chip.rect.adjusted(CHIP_PAD_X + 1, 0, -CHIP_PAD_X, 0),
                     Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter, chip.text)


def describe(board: Board) -> str:
    """The board in words, for screen readers (the keys 1-9, T and 0 change it)."""
    parts = [f"stage {n}: {', '.join(column)}" for n, column in enumerate(board.columns, 1)]
    if board.unranked:
        parts.append(f"unranked: {', '.join(board.unranked)}")
    if board.unplaced:
        parts.append(f"not placed yet: {', '.join(board.unplaced)}")
    return "; ".join(parts) or "no exams"


class OrderBoard(QScrollArea):
    """Draws a Board; emits ``moveRequested`` for drops and ``examClicked`` for clicks."""

    moveRequested = Signal(str, object)
    """A chip was dropped on a zone: (figure, Move)."""
    examClicked = Signal(str)
    """A chip was clicked: (figure)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWidgetResizable(True)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setFrameShape(QFrame.Shape.NoFrame)
        self.canvas = BoardCanvas(self)
        self.setWidget(self.canvas)
        self.zones: dict[str, Zone] = {}  # "stage 1", "new 2", "unranked", "tray"
        self.drag_active = False
        self._pending: tuple[Board, str, dict[str, str]] | None = None
        self.show_board(Board([], [], [], {}), "", {})

    def _dragging(self, active: bool) -> None:
        self.drag_active = active
        if not active and self._pending is not None:
            QTimer.singleShot(0, self._rebuild_pending)

    def _rebuild_pending(self) -> None:
        if self._pending is not None and not self.drag_active:
            board, current, short = self._pending
            self._pending = None
            self.show_board(board, current, short)

    def show_board(self, board: Board, current: str, short: dict[str, str]) -> None:
        """Draw ``board``; ``short`` gives each figure's chip text.

        Never while a chip is being dragged: the zones under the pointer stay where they are
        until the drag is over, then the board is drawn as it is by then.
        """
        if self.drag_active:
            self._pending = (board, current, short)
            return
        self.canvas.lay_out(board, current, short)
        self.zones = {z.key: z for z in self.canvas.zones}
