"""The items of a case and the decision being made on the current one.

The table lists every item with each reviewer's value under their letter; the panel below
shows the current item's values side by side as cards, the chosen value, the reason code
buttons and the optional text. The panel only holds the pending decision; the page stores it.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QButtonGroup,
    QFrame,
    QGridLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.gui import theme
from annotator.gui.adjudication.format import STATE_COLOUR, STATE_TEXT, one_line, value_html
from annotator.services.review.queue import QueueItem

_CARD = "QFrame#card {border:1px solid $frame_border; border-radius:6px; background:$card_frame}"
_PICKED = "QFrame#card {border:2px solid $picked_border; border-radius:6px; background:$picked}"


class ItemsTable(QTableWidget):
    """Every item of the case: label, disagreement, one column per reviewer, final, state."""

    item_chosen = Signal(str)
    """The current item changed (its key)."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("review-items")
        self.items: list[QueueItem] = []
        self.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.verticalHeader().setVisible(False)
        self.setWordWrap(False)
        self.currentCellChanged.connect(lambda row, *_: self._changed(row))

    def set_items(self, items: list[QueueItem], letters: list[str], keep: str | None) -> None:
        self.items = items
        self.blockSignals(True)
        self.clear()
        headers = ["Item", "Disagreement", *letters, "Final", "State"]
        self.setColumnCount(len(headers))
        self.setHorizontalHeaderLabels(headers)
        self.setRowCount(len(items))
        for row, item in enumerate(items):
            cells = [item.label, (item.disagreement or "agreed").replace("_", " ")]
            cells += [one_line(item.values.get(x), 28) for x in letters]
            cells += [one_line(item.final, 28), STATE_TEXT[item.state]]
            for col, text in enumerate(cells):
                cell = QTableWidgetItem(text)
                cell.setToolTip(text)
                if col == len(cells) - 1:
                    cell.setForeground(theme.qcolour(STATE_COLOUR[item.state]))
                elif item.kind == "auto_resolved":
                    cell.setForeground(theme.qcolour("agreed"))
                self.setItem(row, col, cell)
        header = self.horizontalHeader()
        fit, stretch = QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch
        for col in range(len(headers)):
            # The item and its state always read in full; values share what is left.
            header.setSectionResizeMode(col, fit if col in (0, 1, len(headers) - 1) else stretch)
        keys = [i.key for i in items]
        row = keys.index(keep) if keep in keys else (0 if items else -1)
        self.setCurrentCell(row, 0)
        self.blockSignals(False)

    def current(self) -> QueueItem | None:
        row = self.currentRow()
        return self.items[row] if 0 <= row < len(self.items) else None

    def step(self, delta: int) -> None:
        row = self.currentRow() + delta
        if 0 <= row < self.rowCount():
            self.setCurrentCell(row, 0)

    def _changed(self, row: int) -> None:
        if 0 <= row < len(self.items):
            self.item_chosen.emit(self.items[row].key)


class DecisionPanel(QFrame):
    """Reviewer cards, the pending value, the reason code and text, and what is missing."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("decision")
        self.setStyleSheet(theme.css("QPushButton:checked {background:$choice; color:$on_choice}"))
        self.item: QueueItem | None = None
        self.pending: Any = None
        self.source: str | None = None  # a reviewer letter or "edit"
        self.codes: tuple[str, ...] = ()
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 0)
        self.title = QLabel("")
        self.title.setTextFormat(Qt.TextFormat.RichText)
        self.title.setWordWrap(True)
        self.cards_row = QHBoxLayout()
        self.cards: dict[str, QFrame] = {}
        self.reasons = QGridLayout()
        self.reasons.setHorizontalSpacing(4)
        self.reasons.setVerticalSpacing(4)
        self.group = QButtonGroup(self)
        self.group.setExclusive(True)
        self.text = QLineEdit()
        self.text.setObjectName("reason-text")
        self.text.setPlaceholderText("Optional reason text (T to write, Enter to confirm)")
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.confirm = QPushButton("Confirm (Enter)")
        self.confirm.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        bottom = QHBoxLayout()
        bottom.addWidget(self.status, 1)
        bottom.addWidget(self.confirm)
        layout.addWidget(self.title)
        layout.addLayout(self.cards_row)
        layout.addLayout(self.reasons)
        layout.addWidget(self.text)
        layout.addLayout(bottom)

    def set_codes(self, codes: tuple[str, ...]) -> None:
        if codes == self.codes:
            return
        self.codes = codes
        for button in self.group.buttons():
            self.group.removeButton(button)
            button.deleteLater()
        per_row = 4
        for i, code in enumerate(codes):
            button = QPushButton(f"{i + 1}  {code.replace('_', ' ')}")
            button.setCheckable(True)
            button.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            self.group.addButton(button, i)
            self.reasons.addWidget(button, i // per_row, i % per_row)

    @property
    def reason_code(self) -> str | None:
        index = self.group.checkedId()
        return self.codes[index] if 0 <= index < len(self.codes) else None

    def show_item(self, item: QueueItem | None, letters: list[str], blocked: str | None) -> None:
        """Show an item's values as cards; ``blocked`` says why no decision can be made."""
        self.item, self.pending, self.source = item, None, None
        self.text.clear()
        checked = self.group.checkedButton()
        if checked is not None:
            self.group.setExclusive(False)
            checked.setChecked(False)
            self.group.setExclusive(True)
        while self.cards_row.count():
            widget = self.cards_row.takeAt(0).widget()
            if widget is not None:
                widget.deleteLater()
        self.cards = {}
        if item is None:
            self.title.setText("<i>No items: the case has no submitted annotations yet.</i>")
            self._enable(False, "")
            return
        kind = (item.disagreement or "agreed: an override replaces the agreed value").replace(
            "_", " "
        )
        self.title.setText(f"<b>{item.label}</b> · {kind} · <i>{STATE_TEXT[item.state]}</i>")
        # Free text shows a word diff against the first reviewer; labels show as they are.
        textual = item.family in ("meta", "caption", "step", "rubric")
        reference = item.values.get(letters[0]) if letters and textual else None
        for letter in letters:
            if letter in item.values:
                ref = None if letter == letters[0] else reference
                self._add_card(letter, f"Reviewer {letter}", item.values[letter], ref)
        if item.decision is not None:
            self._add_card("final", "Decided", item.final, reference)
        if blocked:
            self._enable(False, blocked)
        elif item.state == "moot":
            self._enable(False, "Moot: the case is out of the release.")
        else:
            self._enable(True, "")
            self.refresh_status()

    def _add_card(self, key: str, heading: str, value: Any, reference: Any) -> None:
        card = QFrame()
        card.setObjectName("card")
        card.setStyleSheet(theme.css(_CARD))
        box = QVBoxLayout(card)
        box.setContentsMargins(8, 6, 8, 6)
        head = QLabel(f"<b>{heading}</b>")
        body = QLabel(value_html(value, reference))
        body.setTextFormat(Qt.TextFormat.RichText)
        body.setWordWrap(True)
        body.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        body.setAlignment(Qt.AlignmentFlag.AlignTop | Qt.AlignmentFlag.AlignLeft)
        box.addWidget(head)
        box.addWidget(body)
        box.addStretch(1)
        self.cards[key] = card
        self.cards_row.addWidget(card, 1)

    def _enable(self, on: bool, why: str) -> None:
        for button in self.group.buttons():
            button.setEnabled(on)
        self.text.setEnabled(on)
        self.confirm.setEnabled(on)
        if why:
            self.status.setText(f"<span style='color:{theme.colour('warning')}'>{why}</span>")

    def pick(self, letter: str) -> bool:
        """Choose a reviewer's value; False when that reviewer has none for this item."""
        if self.item is None or letter not in self.item.values or not self.confirm.isEnabled():
            return False
        self.pending, self.source = self.item.values[letter], letter
        self._highlight(letter)
        self.refresh_status()
        return True

    def set_edited(self, value: Any, letters: list[str]) -> None:
        self.pending, self.source = value, "edit"
        old = self.cards.pop("edit", None)
        if old is not None:
            old.deleteLater()
        textual = self.item is not None and self.item.family in ("caption", "step", "rubric")
        reference = self.item.values.get(letters[0]) if self.item and letters and textual else None
        self._add_card("edit", "Edited value", value, reference)
        self._highlight("edit")
        self.refresh_status()

    def choose_reason(self, index: int) -> None:
        button = self.group.button(index)
        if button is not None and button.isEnabled():
            button.setChecked(True)
            self.refresh_status()

    def _highlight(self, key: str) -> None:
        for name, card in self.cards.items():
            card.setStyleSheet(theme.css(_PICKED if name == key else _CARD))

    def refresh_status(self) -> None:
        missing = []
        if self.source is None:
            missing.append("pick a reviewer's value (A, B, ...) or edit (E)")
        if self.reason_code is None:
            missing.append(f"choose a reason (1-{len(self.codes)})")
        if missing:
            self.status.setText("To decide: " + "; ".join(missing) + ".")
        else:
            chosen = "edited value" if self.source == "edit" else f"Reviewer {self.source}"
            self.status.setText(f"Ready: {chosen}, reason {self.reason_code}. Enter confirms.")

    def ready(self) -> tuple[Any, str, str] | None:
        """(value, reason code, text) when a decision is complete, else None."""
        if self.source is None or self.reason_code is None or not self.confirm.isEnabled():
            return None
        return self.pending, self.reason_code, self.text.text().strip()
