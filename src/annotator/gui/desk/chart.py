"""A small bar chart of case submissions per day, painted with QPainter (no chart library)."""

from __future__ import annotations

from PySide6.QtCore import QRectF, QSize, Qt
from PySide6.QtGui import QPainter, QPaintEvent
from PySide6.QtWidgets import QSizePolicy, QWidget

from annotator.gui import theme

MAX_DAYS = 60  # the last days shown; older ones are summed into the total only


class SubmissionsChart(QWidget):
    """Bars of submissions per day (the last :data:`MAX_DAYS` days with any), the busiest
    day's count on the axis, first and last dates below."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.days: list[tuple[str, int]] = []
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Preferred)
        self.setToolTip("Case annotations submitted per day")

    def set_days(self, days: list[tuple[str, int]]) -> None:
        self.days = list(days)[-MAX_DAYS:]
        total = sum(n for _d, n in days)
        self.setAccessibleDescription(f"{total} submissions over {len(days)} day(s)")
        self.update()

    def sizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        line = self.fontMetrics().height()
        return QSize(260, line * 7)

    def minimumSizeHint(self) -> QSize:  # noqa: N802 - Qt's name
        line = self.fontMetrics().height()
        return QSize(160, line * 5)

    def paintEvent(self, event: QPaintEvent) -> None:  # noqa: N802 - Qt's name
        painter = QPainter(self)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        metrics = self.fontMetrics()
        line = metrics.height()
        area = QRectF(self.rect()).adjusted(4, 4, -4, -4)
        painter.setPen(theme.qcolour("text_dim"))
        if not self.days:
            painter.drawText(area, Qt.AlignmentFlag.AlignCenter, "No submissions yet")
            return
        peak = max(n for _d, n in self.days) or 1
        axis = metrics.horizontalAdvance(str(peak)) + 6
        plot = area.adjusted(axis, 2, 0, -line - 4)
        painter.drawText(QRectF(area.left(), plot.top() - line / 2, axis - 4, line),
                         Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, str(peak))
        painter.drawText(QRectF(area.left(), plot.bottom() - line / 2, axis - 4, line),
                         Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter, "0")
        below = QRectF(plot.left(), plot.bottom() + 2, plot.width(), line)
        painter.drawText(below, Qt.AlignmentFlag.AlignLeft, self.days[0][0])
        if len(self.days) > 1:
            painter.drawText(below, Qt.AlignmentFlag.AlignRight, self.days[-1][0])
        painter.setPen(theme.qcolour("border"))
        painter.drawLine(plot.bottomLeft(), plot.bottomRight())
        slot = plot.width() / len(self.days)
        width = max(1.0, min(slot * 0.7, 3 * line))
        painter.setPen(Qt.PenStyle.NoPen)
        painter.setBrush(theme.qcolour("highlight"))
        for i, (_day, n) in enumerate(self.days):
            height = plot.height() * n / peak
            left = plot.left() + i * slot + (slot - width) / 2
            painter.drawRect(QRectF(left, plot.bottom() - height, width, height))
