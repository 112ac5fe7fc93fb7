"""The edit dialogs of the review page: a choice, a text, an order board, a reason.

Each works from the keyboard alone: arrows move, Enter accepts, Escape cancels. The order
board dialog refuses to close on an invalid board and says why.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPlainTextEdit,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.errors import ValidationError
from annotator.gui import theme
from annotator.review.order_board import validate_board


class _Dialog(QDialog):
    def __init__(self, title: str, parent: QWidget | None) -> None:
        super().__init__(parent)
        self.setWindowTitle(title)
        self.layout_ = QVBoxLayout(self)
        self.buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        self.buttons.accepted.connect(self.accept)
        self.buttons.rejected.connect(self.reject)

    def finish_layout(self) -> None:
        self.layout_.addWidget(self.buttons)


class ChoiceDialog(_Dialog):
    """Pick one of a few values with the arrows and Enter."""

    def __init__(
        self, title: str, options: list[tuple[str, Any]], current: Any, parent: QWidget | None
    ) -> None:
        super().__init__(title, parent)
        self.options = options
        self.list = QListWidget()
        for label, _value in options:
            self.list.addItem(QListWidgetItem(label))
        values = [v for _l, v in options]
        self.list.setCurrentRow(values.index(current) if current in values else 0)
        self.list.itemActivated.connect(lambda _item: self.accept())
        self.layout_.addWidget(self.list)
        self.finish_layout()
        self.list.setFocus()

    @property
    def value(self) -> Any:
        return self.options[max(self.list.currentRow(), 0)][1]


class _ReturnAccepts(QPlainTextEdit):
    """A text box where Enter accepts the dialog and Shift+Enter starts a new line."""

    def __init__(self, dialog: QDialog) -> None:
        super().__init__()
        self.dialog = dialog

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter) and not (
            event.modifiers() & Qt.KeyboardModifier.ShiftModifier
        ):
            self.dialog.accept()
            return
        super().keyPressEvent(event)


class TextDialog(_Dialog):
    """Edit a text value; shows the reviewers' word diff above it when there is one."""

    def __init__(
        self,
        title: str,
        text: str,
        parent: QWidget | None,
        diff: str = "",
        suggestions: list[str] | None = None,
    ) -> None:
        super().__init__(title, parent)
        if diff:
            shown = QLabel(f"<p>Reviewers' texts (A → B):</p><p>{diff}</p>")
            shown.setWordWrap(True)
            shown.setTextFormat(Qt.TextFormat.RichText)
            self.layout_.addWidget(shown)
        self.combo: QComboBox | None = None
        self.editor: _ReturnAccepts | None = None
        if suggestions is not None:
            self.combo = QComboBox()
            self.combo.setEditable(True)
            self.combo.addItems(suggestions)
            self.combo.setCurrentText(text)
            self.layout_.addWidget(self.combo)
            self.combo.setFocus()
        else:
            self.editor = _ReturnAccepts(self)
            self.editor.setPlainText(text)
            self.editor.setMinimumSize(520, 120)
            self.layout_.addWidget(self.editor)
            self.editor.setFocus()
        hint = QLabel("Enter accepts · Shift+Enter new line · Esc cancels")
        hint.setStyleSheet(theme.css("color: $text_dim"))
        self.layout_.addWidget(hint)
        self.finish_layout()

    @property
    def value(self) -> str:
        if self.combo is not None:
            return self.combo.currentText().strip()
        assert self.editor is not None
        return self.editor.toPlainText().strip()


class _BoardTable(QTableWidget):
    """Digits set the current exam's stage, 0 or U unranks it, Enter accepts."""

    def __init__(self, dialog: BoardDialog, rows: int, columns: int) -> None:
        super().__init__(rows, columns)
        self.dialog = dialog

    def keyPressEvent(self, event: QKeyEvent) -> None:  # noqa: N802 - Qt's name
        text = event.text().upper()
        if text.isdigit() or text == "U":
            stage = None if text in ("0", "U") else int(text)
            self.dialog.set_stage(self.currentRow(), stage)
            return
        if event.key() in (Qt.Key.Key_Return, Qt.Key.Key_Enter):
            self.dialog.accept()
            return
        super().keyPressEvent(event)


class BoardDialog(_Dialog):
    """The order decided as a whole: every reviewer's board beside the decision being made."""

    def __init__(
        self,
        figures: list[str],
        boards: dict[str, dict[str, int | None]],
        start: dict[str, int | None],
        parent: QWidget | None,
    ) -> None:
        super().__init__("Decide the order board", parent)
        self.figures = figures
        self.board: dict[str, int | None] = {f: start.get(f) for f in figures}
        letters = sorted(boards)
        self.table = _BoardTable(self, len(figures), len(letters) + 2)
        self.table.setHorizontalHeaderLabels(
            ["Exam", *[f"Reviewer {x}" for x in letters], "Decision"]
        )
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        for row, figure in enumerate(figures):
            self.table.setItem(row, 0, QTableWidgetItem(figure))
            for col, letter in enumerate(letters, start=1):
                self.table.setItem(row, col, QTableWidgetItem(_stage(boards[letter].get(figure))))
        self._fill()
        self.table.setCurrentCell(0, len(letters) + 1)
        intro = QLabel(
            "Starts from the pairs the reviewers agree on; disputed pairs start tied. "
            "Digits set the stage of the selected exam, 0 or U unranks it, Enter accepts."
        )
        intro.setWordWrap(True)
        self.error = QLabel("")
        self.error.setStyleSheet(theme.css("color: $danger"))
        self.error.setWordWrap(True)
        self.layout_.addWidget(intro)
        self.layout_.addWidget(self.table)
        self.layout_.addWidget(self.error)
        self.finish_layout()
        self.resize(640, 120 + 34 * len(figures))
        self.table.setFocus()

    def _fill(self) -> None:
        col = self.table.columnCount() - 1
        for row, figure in enumerate(self.figures):
            self.table.setItem(row, col, QTableWidgetItem(_stage(self.board[figure])))

    def set_stage(self, row: int, stage: int | None) -> None:
        if 0 <= row < len(self.figures):
            self.board[self.figures[row]] = stage
            self._fill()
            self.table.setCurrentCell(row, self.table.columnCount() - 1)

    def accept(self) -> None:
        try:
            self.board = validate_board(self.board, self.figures)
        except ValidationError as exc:
            self.error.setText(str(exc))
            return
        super().accept()


def _stage(stage: int | None) -> str:
    return "unranked" if stage is None else str(stage)


class ReasonDialog(_Dialog):
    """One line of text that must not be empty (why a case is excluded, reopened, ...)."""

    def __init__(self, title: str, prompt: str, parent: QWidget | None) -> None:
        super().__init__(title, parent)
        label = QLabel(prompt)
        label.setWordWrap(True)
        self.line = QLineEdit()
        self.line.returnPressed.connect(self.accept)
        self.layout_.addWidget(label)
        self.layout_.addWidget(self.line)
        self.finish_layout()
        self.resize(520, 120)
        self.line.setFocus()

    def accept(self) -> None:
        if self.line.text().strip():
            super().accept()

    @property
    def value(self) -> str:
        return self.line.text().strip()
