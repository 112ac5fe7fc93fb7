"""The exams of a case as a strip of cards: thumbnail, metadata, the annotator's labels.

``ExamModel`` adapts plain ``ExamCard`` records (built by the page from the core's data);
it never owns label data. Suggestions are drawn hollow and labelled "suggested", labels
solid, so the two can never be mistaken for each other.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import (
    QAbstractListModel,
    QModelIndex,
    QPersistentModelIndex,
    QPoint,
    QRect,
    QSize,
    Qt,
    QTimer,
)
from PySide6.QtGui import QColor, QFont, QImage, QPainter, QPen, QPixmap, QResizeEvent
from PySide6.QtWidgets import QListView, QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from annotator.domain.vocabulary import is_follow_up, is_prior
from annotator.gui import theme
from annotator.gui.workspace.images import Lru

ROLE_SUMMARY = Qt.ItemDataRole.UserRole + 1
ROLE_IMPORTANCE = Qt.ItemDataRole.UserRole + 2
ROLE_SUGGESTED = Qt.ItemDataRole.UserRole + 3
ROLE_STAGE = Qt.ItemDataRole.UserRole + 4
ROLE_META_OK = Qt.ItemDataRole.UserRole + 5
ROLE_WARN = Qt.ItemDataRole.UserRole + 6
ROLE_FLAG = Qt.ItemDataRole.UserRole + 7
ROLE_LOOK = Qt.ItemDataRole.UserRole + 8  # all that a card's painting depends on

CARD = QSize(214, 84)
Index = QModelIndex | QPersistentModelIndex


@dataclass
class ExamCard:
    """What one card shows (plain data, rebuilt when labels change)."""

    figure: str
    meta: dict[str, Any]
    caption: str = ""
    importance: str | None = None  # the annotator's label
    suggested: str | None = None  # the draft's suggestion (shown only while unlabelled)
    stage: str = ""  # "stage 2", "unranked" or "" (not placed)
    meta_ok: bool | None = None
    warnings: list[str] = field(default_factory=list)
    red_flag: str = ""
    thumbnail: QImage | None = None
    images: int = 0


def meta_summary(meta: dict[str, Any]) -> str:
    """``"MRI · T2 · sagittal"`` and the time context (``prior 6`` / ``follow-up -3``)."""
    parts = [str(meta[k]) for k in ("modality", "acquisition", "view") if meta.get(k)]
    text = " · ".join(parts) or "no metadata"
    time_past = meta.get("time_past")
    if is_prior(time_past):
        text += f"  ·  prior ({time_past})"
    elif is_follow_up(time_past):
        text += f"  ·  follow-up ({time_past})"
    return text


class ExamModel(QAbstractListModel):
    """A flat list model over :class:`ExamCard` records."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.cards: list[ExamCard] = []

    def set_cards(self, cards: list[ExamCard]) -> None:
        """Replace every card (a new case)."""
        self.beginResetModel()
        self.cards = list(cards)
        self.endResetModel()

    def update_card(self, row: int, card: ExamCard) -> None:
        """Replace one card in place (its labels changed)."""
        self.cards[row] = card
        index = self.index(row, 0)
        self.dataChanged.emit(index, index)

    def set_thumbnail(self, figure: str, image: QImage) -> None:
        for row, card in enumerate(self.cards):
            if card.figure == figure:
                card.thumbnail = image
                index = self.index(row, 0)
                self.dataChanged.emit(index, index, [Qt.ItemDataRole.DecorationRole])

    def row_of(self, figure: str) -> int:
        return next((i for i, c in enumerate(self.cards) if c.figure == figure), -1)

    def rowCount(self, parent: Index = QModelIndex()) -> int:  # noqa: B008, N802
        return 0 if parent.isValid() else len(self.cards)

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or not 0 <= index.row() < len(self.cards):
            return None
        card = self.cards[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return card.figure
        if role == Qt.ItemDataRole.DecorationRole:
            return card.thumbnail
        if role == Qt.ItemDataRole.ToolTipRole:
            lines = [card.figure, meta_summary(card.meta)]
            if card.caption:
                lines.append(card.caption)
            lines += [f"warning: {w}" for w in card.warnings]
            if card.red_flag:
                lines.append(f"red flag: {card.red_flag}")
            if card.stage:
                lines.append(f"order: {card.stage}")
            return "\n".join(lines)
        if role == ROLE_LOOK:
            return (card.figure, meta_summary(card.meta), card.importance, card.suggested,
                    card.stage, card.meta_ok, bool(card.warnings), bool(card.red_flag),
                    0 if card.thumbnail is None else card.thumbnail.cacheKey())
        return {
            ROLE_SUMMARY: meta_summary(card.meta),
            ROLE_IMPORTANCE: card.importance,
            ROLE_SUGGESTED: card.suggested,
            ROLE_STAGE: card.stage,
            ROLE_META_OK: card.meta_ok,
            ROLE_WARN: bool(card.warnings),
            ROLE_FLAG: bool(card.red_flag),
        }.get(role)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable


class ExamCardDelegate(QStyledItemDelegate):
    """Paints a card: thumbnail, figure, metadata line, importance and stage badges."""

    card_width = CARD.width()  # the strip narrows cards so that more exams fit
    KEPT_THUMBS = 64
    KEPT_CARDS = 64

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        # Thumbnails as painted, by (image, box size): smooth scaling on every paint of the
        # strip took about 1 ms a card.
        self._thumbs = Lru(self.KEPT_THUMBS, lambda _image: 1)
        # Cards as painted, by what they show (ROLE_LOOK), size, selection, theme and font:
        # drawing a card (rounded boxes, text, badges, a dozen reads of the model) took
        # 0.5 ms, and the strip is repainted at every switch, label and thumbnail; the
        # busiest turns of a switch spent 3 ms of their 10-20 ms in it (issue 27).
        self._cards = Lru(self.KEPT_CARDS, lambda _pixmap: 1)

    def _thumb(self, image: QImage, box: QSize) -> QImage:
        key = (image.cacheKey(), box.width(), box.height())
        scaled: QImage | None = self._thumbs.get(key)
        if scaled is None:
            scaled = image.scaled(box, Qt.AspectRatioMode.KeepAspectRatio,
                                  Qt.TransformationMode.SmoothTransformation)
            self._thumbs.put(key, scaled)
        return scaled

    def sizeHint(self, _option: QStyleOptionViewItem, _index: Index) -> QSize:  # noqa: N802
        return QSize(self.card_width, CARD.height())

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: Index) -> None:
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        card = self._card(index, option.rect.size(), selected, option.font,
                          painter.device().devicePixelRatioF())
        painter.drawPixmap(option.rect.topLeft(), card)

    def draw_ahead(self, index: Index, size: QSize, selected: bool, font: QFont,
                   ratio: float) -> None:
        """Draw a card into the kept ones before a strip shows it (a case read ahead)."""
        self._card(index, size, selected, font, ratio)

    def _card(self, index: Index, size: QSize, selected: bool, font: QFont, ratio: float
              ) -> QPixmap:
        """The card of ``index`` as painted: kept, or drawn now and kept."""
        key = (index.data(ROLE_LOOK), size.width(), size.height(), selected, theme.name(),
               font.key(), ratio)
        card: QPixmap | None = self._cards.get(key)
        if card is None:
            card = QPixmap(size * ratio)
            card.setDevicePixelRatio(ratio)
            card.fill(Qt.GlobalColor.transparent)
            on_card = QPainter(card)
            try:
                self._draw(on_card, QRect(QPoint(0, 0), size), font, selected, index)
            finally:
                on_card.end()
            self._cards.put(key, card)
        return card

    def _draw(self, painter: QPainter, box: QRect, font: QFont, selected: bool,
              index: Index) -> None:
        """The card of ``index`` in ``box``."""
        painter.save()
        rect = box.adjusted(3, 3, -3, -3)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        border = theme.qcolour("card_border_selected" if selected else "card_border")
        painter.setPen(QPen(border, 2 if selected else 1))
        painter.setBrush(theme.qcolour("card_selected" if selected else "card"))
        painter.drawRoundedRect(rect, 6, 6)
        thumb_box = QRect(rect.left() + 6, rect.top() + 6, 66, rect.height() - 12)
        painter.fillRect(thumb_box, theme.qcolour("viewer"))
        image = index.data(Qt.ItemDataRole.DecorationRole)
        if isinstance(image, QImage) and not image.isNull():
            scaled = self._thumb(image, thumb_box.size())
            x = thumb_box.left() + (thumb_box.width() - scaled.width()) // 2
            y = thumb_box.top() + (thumb_box.height() - scaled.height()) // 2
            painter.drawImage(x, y, scaled)
        text_left = thumb_box.right() + 8
        width = rect.right() - text_left - 4
        bold = QFont(font)
        bold.setBold(True)
        painter.setFont(bold)
        painter.setPen(theme.qcolour("card_text"))
        painter.drawText(QRect(text_left, rect.top() + 4, width, 18),
                         Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter,
                         str(index.data(Qt.ItemDataRole.DisplayRole)))
        small = QFont(font)
        small.setPointSizeF(max(8.0, small.pointSizeF() - 1))
        painter.setFont(small)
        painter.setPen(theme.qcolour("card_text_dim"))
        # Two lines at most: the clip drops a third instead of cutting it in half.
        lines = QRect(text_left, rect.top() + 22, width, 2 * painter.fontMetrics().lineSpacing())
        painter.save()
        painter.setClipRect(lines)
        painter.drawText(lines, Qt.AlignmentFlag.AlignLeft | Qt.TextFlag.TextWordWrap,
                         str(index.data(ROLE_SUMMARY)))
        painter.restore()
        painter.save()
        painter.setClipRect(rect.adjusted(0, 0, -3, 0))  # badges never spill off the card
        self._badges(painter, index, text_left, rect.bottom() - 20, width)
        painter.restore()
        painter.restore()

    def _badges(self, painter: QPainter, index: Index, left: int, top: int, width: int) -> None:
        importance = index.data(ROLE_IMPORTANCE)
        suggested = index.data(ROLE_SUGGESTED)
        x = left
        if index.data(ROLE_FLAG):  # a red flag is safety information: shown first
            x = _badge(painter, x, top, "⚑", "flag", solid=True)
        if importance:
            x = _badge(painter, x, top, importance, _known(importance), solid=True)
        elif suggested:
            x = _badge(painter, x, top, f"{suggested}?", _known(suggested), solid=False)
        stage = index.data(ROLE_STAGE)
        if stage:
            short = "unr." if stage == "unranked" else "S" + stage.removeprefix("stage ")
            x = _badge(painter, x, top, short, "stage", solid=True)
        if index.data(ROLE_WARN):
            x = _badge(painter, x, top, "!", "flag", solid=True)
        elif index.data(ROLE_META_OK) is True:
            _badge(painter, x, top, "✓", "meta_ok", solid=False)


def _known(importance: str) -> str:
    """The theme's colour role of an importance value (grey for one it does not know)."""
    return importance if importance in ("essential", "optional", "unnecessary") else "unnecessary"


def _badge(painter: QPainter, x: int, y: int, text: str, role: str, *, solid: bool) -> int:
    """A solid badge (white on the role's colour) or a dashed hint (text in the colour)."""
    colour = theme.qcolour(role if solid else f"{role}_text")
    metrics = painter.fontMetrics()
    w = metrics.horizontalAdvance(text) + 10
    box = QRect(x, y, w, 17)
    painter.setPen(QPen(colour, 1, Qt.PenStyle.SolidLine if solid else Qt.PenStyle.DashLine))
    painter.setBrush(colour if solid else QColor(0, 0, 0, 0))
    painter.drawRoundedRect(box, 4, 4)
    painter.setPen(theme.qcolour("on_chip") if solid else colour)
    painter.drawText(box, Qt.AlignmentFlag.AlignCenter, text)
    return x + w + 4


class ExamStrip(QListView):
    """A horizontal, single-row list of exam cards."""

    def __init__(self, model: ExamModel, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setModel(model)
        self.cards = ExamCardDelegate(self)
        self.setItemDelegate(self.cards)
        self.setFlow(QListView.Flow.LeftToRight)
        self.setWrapping(False)
        self.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAsNeeded)
        self.setVerticalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.setSelectionMode(QListView.SelectionMode.SingleSelection)
        self.setFixedHeight(CARD.height() + 8 + self.horizontalScrollBar().sizeHint().height())
        self.setFocusPolicy(Qt.FocusPolicy.NoFocus)  # the page's keys act on the current exam
        self.setStyleSheet(theme.css("QListView { background: $window; border: none; }"))
        # Cards of a case read ahead still to draw: (its model, row, selected).
        self._ahead: list[tuple[ExamModel, int, bool]] = []

    def fit_cards(self) -> None:
        """Card width so that all exams fit when possible (160 to 230 pixels)."""
        self.cards.card_width = self._width_for(self.model().rowCount())
        self.scheduleDelayedItemsLayout()

    def _width_for(self, count: int) -> int:
        return max(160, min(230, (self.viewport().width() - 4) // max(1, count)))

    def _size_for(self, count: int) -> QSize:
        """The size the strip paints each of ``count`` cards at: the width they share, the
        viewport's height (less the scroll bar's when the cards overflow the width)."""
        width = self._width_for(count)
        bar = self.horizontalScrollBar()
        height = self.viewport().height() + (bar.height() if bar.isVisible() else 0)
        if count * width > self.viewport().width():
            height -= bar.sizeHint().height()
        return QSize(width, height)

    def draw_ahead(self, cards: list[ExamCard], selected: int) -> None:
        """Draw the cards of a case about to be shown (read ahead), one per turn of the
        event loop, as the strip will paint them (card ``selected`` selected), so that
        showing the case paints kept cards: drawing 4-6 new cards took 2-3 ms of the
        busiest turn of a case switch (issue 27)."""
        model = ExamModel()
        model.cards = list(cards)
        started = bool(self._ahead)
        self._ahead = [(model, row, row == selected) for row in range(len(cards))]
        if not started:
            QTimer.singleShot(0, self, self._draw_next_ahead)

    def drawing_ahead(self) -> bool:
        """True while cards of a case read ahead are still to be drawn."""
        return bool(self._ahead)

    def _draw_next_ahead(self) -> None:
        if not self._ahead:
            return
        model, row, selected = self._ahead.pop(0)
        self.cards.draw_ahead(model.index(row, 0), self._size_for(len(model.cards)), selected,
                              self.font(),
                              self.viewport().devicePixelRatioF())
        if self._ahead:
            QTimer.singleShot(0, self, self._draw_next_ahead)

    def resizeEvent(self, event: QResizeEvent) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self.fit_cards()
