"""Small figure widgets of the desk: a card with one number, a labelled progress bar."""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QVBoxLayout, QWidget

from annotator.gui import theme

CARD_STYLE = ("QFrame#deskCard { background: $card; border: 1px solid $card_border; "
              "border-radius: 6px; } QFrame#deskCard QLabel { color: $card_text; } "
              "QFrame#deskCard QLabel#caption { color: $card_text_dim; }")
BAR_STYLE = ("QProgressBar { background: $progress; border: 1px solid $border; "
             "border-radius: 3px; color: $text; text-align: center; } "
             "QProgressBar::chunk { background: $progress_chunk; }")


class FigureCard(QFrame):
    """One headline figure: a title, the number, a line saying what it counts."""

    def __init__(self, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("deskCard")
        self.setStyleSheet(theme.css(CARD_STYLE))
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 6, 10, 6)
        layout.setSpacing(0)
        self.title = QLabel(title)
        self.value = QLabel("–")
        font = self.value.font()
        font.setPointSizeF(font.pointSizeF() * 1.8)
        font.setBold(True)
        self.value.setFont(font)
        self.caption = QLabel("")
        self.caption.setObjectName("caption")
        self.caption.setWordWrap(True)
        for label in (self.title, self.value, self.caption):
            layout.addWidget(label)

    def set(self, value: str, caption: str = "") -> None:
        self.value.setText(value)
        self.caption.setText(caption)
        self.setToolTip(f"{self.title.text()}: {value}" + (f" ({caption})" if caption else ""))


class ProgressRow(QWidget):
    """``label  [=====     ]  12 of 40`` on one line."""

    def __init__(self, label: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.label = QLabel(label)
        self.bar = QProgressBar()
        self.bar.setStyleSheet(theme.css(BAR_STYLE))
        self.bar.setTextVisible(True)
        self.count = QLabel("")
        self.count.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        layout.addWidget(self.label)
        layout.addWidget(self.bar, 1)
        layout.addWidget(self.count)

    def set(self, done: int, total: int, what: str = "") -> None:
        self.bar.setRange(0, max(total, 1))
        self.bar.setValue(min(done, max(total, 1)) if total else 0)
        self.bar.setFormat(f"{100 * done / total:.0f}%" if total else "none")
        self.count.setText(f"{done} of {total}" + (f" {what}" if what else ""))


def align(rows: list[ProgressRow]) -> None:
    """Give the rows' labels one width and their counts another, so that their bars start
    and end in one column."""
    if rows:
        label = max(r.label.sizeHint().width() for r in rows)
        count = max(r.count.sizeHint().width() for r in rows)
        for row in rows:
            row.label.setFixedWidth(label)
            row.count.setFixedWidth(count)
