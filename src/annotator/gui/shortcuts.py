"""The shortcut sheet (F1 or ?): every action with its key, and rebinding with conflicts.

A non-modal window: the annotator can keep it open beside the work. Changing a key goes
through ``ActionRegistry.rebind``, which refuses a key another action already uses and
says which one.
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QHBoxLayout,
    QHeaderView,
    QKeySequenceEdit,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.gui import theme
from annotator.gui.actions import ActionRegistry


class ShortcutSheet(QDialog):
    """Lists every action; select one and type a new key to rebind it."""

    def __init__(self, registry: ActionRegistry, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.registry = registry
        self.setWindowTitle("Keyboard shortcuts")
        self.setModal(False)
        self.resize(640, 620)
        layout = QVBoxLayout(self)
        self.filter = QLineEdit()
        self.filter.setPlaceholderText("Filter actions")
        self.filter.textChanged.connect(self._filter)
        layout.addWidget(self.filter)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Group", "Action", "Shortcut"])
        self.table.verticalHeader().hide()
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        header = self.table.horizontalHeader()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        layout.addWidget(self.table, 1)
        row = QHBoxLayout()
        row.addWidget(QLabel("New shortcut:"))
        self.editor = QKeySequenceEdit()
        self.editor.setMaximumSequenceLength(1)
        row.addWidget(self.editor, 1)
        self.apply_button = QPushButton("Set")
        self.apply_button.clicked.connect(self._apply)
        self.reset_button = QPushButton("Default")
        self.reset_button.clicked.connect(self._reset)
        row.addWidget(self.apply_button)
        row.addWidget(self.reset_button)
        layout.addLayout(row)
        self.message = QLabel()
        self.message.setWordWrap(True)
        layout.addWidget(self.message)
        self.fill()

    def fill(self) -> None:
        rows = self.registry.rows()
        self.table.setRowCount(len(rows))
        for i, (action_id, group, text, key) in enumerate(rows):
            for j, value in enumerate((group, text, key)):
                item = QTableWidgetItem(value)
                item.setData(Qt.ItemDataRole.UserRole, action_id)
                self.table.setItem(i, j, item)
        self._filter(self.filter.text())

    def _filter(self, text: str) -> None:
        words = text.lower().split()
        for i in range(self.table.rowCount()):
            cells = (self.table.item(i, j) for j in range(3))
            line = " ".join(c.text().lower() for c in cells if c is not None)
            self.table.setRowHidden(i, not all(w in line for w in words))

    def selected_action(self) -> str | None:
        row = self.table.currentRow()
        item = self.table.item(row, 0) if row >= 0 else None
        return str(item.data(Qt.ItemDataRole.UserRole)) if item is not None else None

    def rebind(self, action_id: str, key: str) -> bool:
        """Give ``action_id`` the shortcut ``key``; shows the conflict when refused."""
        clashes = self.registry.rebind(action_id, key)
        if clashes:
            others = {i for c in clashes for i in c[1:]} - {action_id}
            names = ", ".join(self.registry.specs[o].text for o in sorted(others))
            self.message.setText(theme.span("danger", f"{key} is already used by: {names}. "
                                            "Nothing changed."))
            return False
        self.message.setText(f"{self.registry.specs[action_id].text}: now {key or 'no key'}")
        self.fill()
        return True

    def _apply(self) -> None:
        action_id = self.selected_action()
        if action_id is None:
            self.message.setText("Select an action first.")
            return
        key = self.editor.keySequence().toString(QKeySequence.SequenceFormat.PortableText)
        self.rebind(action_id, key)

    def _reset(self) -> None:
        action_id = self.selected_action()
        if action_id is not None:
            self.rebind(action_id, self.registry.default(action_id))
