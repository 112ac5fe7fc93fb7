"""The preferred order as a board: stage columns, an "unranked" area, a "not placed" tray.

Exams are chips that can be dragged between columns; a drop asks the page to carry out a
``order_board.Move`` (the keyboard does the same), so the board itself decides nothing: it
draws the core's :class:`~annotator.services.order_board.Board` and reports drops.
"""

from __future__ import annotations

from PySide6.QtCore import QMimeData, QPoint, Qt, QTimer, Signal
from PySide6.QtGui import QDrag, QDragEnterEvent, QDragLeaveEvent, QDropEvent, QMouseEvent
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QScrollArea,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from annotator.services.order_board import Board, Move

MIME = "application/x-annotator-exam"


class ExamChip(QLabel):
    """One exam on the board; drag it to another column, click it to show it."""

    clicked = Signal(str)
    """The chip was clicked (its figure)."""
    dragging = Signal(bool)
    """A drag of this chip started (True) or ended (False)."""

    def __init__(self, figure: str, text: str, *, current: bool, placed: bool) -> None:
        super().__init__(text)
        self.figure = figure
        self.setObjectName("chip")
        self.setProperty("current", current)
        self.setProperty("placed", placed)
        self.setToolTip(f"{figure}: drag to a stage, or use 1-9, T (tie) and 0 (unranked)")
        self.setCursor(Qt.CursorShape.OpenHandCursor)
        self._press: QPoint | None = None

    def mousePressEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if event.button() == Qt.MouseButton.LeftButton:
            self._press = event.position().toPoint()

    def mouseMoveEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self._press is None:
            return
        if (event.position().toPoint() - self._press).manhattanLength() < 6:
            return
        self._press = None
        drag = QDrag(self)
        data = QMimeData()
        data.setData(MIME, self.figure.encode("utf-8"))
        drag.setMimeData(data)
        drag.setPixmap(self.grab())
        self.dragging.emit(True)
        drag.exec(Qt.DropAction.MoveAction)  # a nested event loop; the drop happens inside
        self.dragging.emit(False)

    def mouseReleaseEvent(self, event: QMouseEvent) -> None:  # noqa: N802 - Qt's name
        if self._press is not None:
            self._press = None
            self.clicked.emit(self.figure)


class DropZone(QFrame):
    """A column (or the unranked area, or a gap that opens a new column) accepting chips."""

    dropped = Signal(str, object)
    """A chip was dropped here: (figure, the Move this zone stands for)."""

    def __init__(self, title: str, move: Move, *, kind: str) -> None:
        super().__init__()
        self.target = move
        self.setObjectName(kind)  # "column", "unranked", "gap", "tray": styled by the page
        self.setAcceptDrops(True)
        self.layout_ = QVBoxLayout(self)
        self.layout_.setContentsMargins(6, 4, 6, 4)
        self.layout_.setSpacing(3)
        if title:
            heading = QLabel(title)
            heading.setObjectName("zoneTitle")
            self.layout_.addWidget(heading)

    def add_chip(self, chip: ExamChip) -> None:
        self.layout_.addWidget(chip)

    def finish(self) -> None:
        self.layout_.addStretch(1)

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:  # noqa: N802 - Qt's name
        if event.mimeData().hasFormat(MIME):
            self.setProperty("hover", True)
            self._restyle()
            event.acceptProposedAction()

    def dragLeaveEvent(self, _event: QDragLeaveEvent) -> None:  # noqa: N802 - Qt's name
        self.setProperty("hover", False)
        self._restyle()

    def dropEvent(self, event: QDropEvent) -> None:  # noqa: N802 - Qt's name
        self.setProperty("hover", False)
        self._restyle()
        if not event.mimeData().hasFormat(MIME):
            event.ignore()
            return
        figure = bytes(event.mimeData().data(MIME).data()).decode("utf-8")
        event.acceptProposedAction()
        self.dropped.emit(figure, self.target)

    def _restyle(self) -> None:
        self.style().unpolish(self)
        self.style().polish(self)


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
        self.zones: dict[str, DropZone] = {}  # "stage 1", "new 2", "unranked", "tray"
        self.drag_active = False
        self._pending: tuple[Board, str, dict[str, str]] | None = None
        self.show_board(Board([], [], [], {}), "", {})

    def _dragging(self, active: bool) -> None:
        self.drag_active = active
        if not active and self._pending is not None:
            # Rebuild once the chip's own mouse handler has returned (it would be deleted).
            QTimer.singleShot(0, self._rebuild_pending)

    def _rebuild_pending(self) -> None:
        if self._pending is not None and not self.drag_active:
            board, current, short = self._pending
            self._pending = None
            self.show_board(board, current, short)

    def show_board(self, board: Board, current: str, short: dict[str, str]) -> None:
        """Rebuild the columns for ``board``; ``short`` gives each figure's chip text.

        Never while a chip is being dragged: the rebuild waits until the drag is over, and
        old widgets are deleted later, so no widget dies inside its own event handler.
        """
        if self.drag_active:
            self._pending = (board, current, short)
            return
        inner = QWidget()
        inner.setObjectName("boardInner")
        row = QHBoxLayout(inner)
        row.setContentsMargins(4, 4, 4, 4)
        row.setSpacing(4)
        self.zones = {}

        def chip(figure: str, placed: bool, hint: str = "") -> ExamChip:
            text = short.get(figure, figure) + hint
            made = ExamChip(figure, text, current=figure == current, placed=placed)
            made.clicked.connect(self.examClicked)
            made.dragging.connect(self._dragging)
            return made

        tray = DropZone("Not placed yet", Move("unranked"), kind="tray")
        tray.setAcceptDrops(False)
        for figure in board.unplaced:
            stage = board.suggested.get(figure)
            hint = f"  (suggests {stage})" if stage else "  (suggests unranked)"
            tray.add_chip(chip(figure, False, hint))
        tray.finish()
        self.zones["tray"] = tray
        if board.unplaced:
            row.addWidget(tray)
        for number, column in enumerate(board.columns, start=1):
            gap = self._zone(f"new {number}", "", Move("new_stage", number), "gap")
            row.addWidget(gap)
            zone = self._zone(f"stage {number}", f"Stage {number}", Move("stage", number), "column")
            for figure in column:
                zone.add_chip(chip(figure, True))
            zone.finish()
            row.addWidget(zone)
        last = len(board.columns) + 1
        new = self._zone(f"new {last}", f"+ Stage {last}", Move("new_stage", last), "column")
        new.setProperty("empty", True)
        new.finish()
        row.addWidget(new)
        unranked = self._zone("unranked", "Unranked", Move("unranked"), "unranked")
        for figure in board.unranked:
            unranked.add_chip(chip(figure, True))
        unranked.finish()
        row.addWidget(unranked)
        row.addStretch(1)
        old = self.takeWidget()
        self.setWidget(inner)
        if old is not None:
            old.hide()
            old.deleteLater()

    def _zone(self, key: str, title: str, move: Move, kind: str) -> DropZone:
        zone = DropZone(title, move, kind=kind)
        zone.setSizePolicy(QSizePolicy.Policy.Preferred, QSizePolicy.Policy.Expanding)
        if kind == "gap":
            zone.setFixedWidth(10)
            zone.setToolTip("drop here to insert a new stage")
        else:
            zone.setMinimumWidth(112)
        zone.dropped.connect(self.moveRequested)
        self.zones[key] = zone
        return zone
