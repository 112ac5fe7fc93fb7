"""Who is at the keyboard: chosen at start on a shared laptop, remembered per machine.

Shown inside the main window (not as a modal dialog) whenever no identity is known; the
choice is remembered by ``workspace_state.remember_identity``.
"""

from __future__ import annotations

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from annotator.services.users import list_users
from annotator.store.project import Project


class IdentityChooser(QWidget):
    """A list of the project's people; Enter or the button continues as the selected one."""

    chosen = Signal(str)
    """The person at the keyboard chose themselves (their name)."""

    def __init__(self, project: Project, preselect: str | None = None,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        outer = QVBoxLayout(self)
        outer.addStretch(1)
        box = QWidget()
        box.setMaximumWidth(520)
        layout = QVBoxLayout(box)
        title = QLabel("<h2>Who is annotating?</h2>")
        hint = QLabel("Choose yourself. This laptop remembers the choice for this project; you "
                      "see only your own work. Switch later with Ctrl+Shift+U.")
        hint.setWordWrap(True)
        self.people = QListWidget()
        self.people.setObjectName("people")
        for user in list_users(project):
            item = QListWidgetItem(f"{user.name}    ({', '.join(user.roles)})")
            item.setData(Qt.ItemDataRole.UserRole, user.name)
            self.people.addItem(item)
            if user.name == preselect:
                self.people.setCurrentItem(item)
        if self.people.currentRow() < 0 and self.people.count():
            self.people.setCurrentRow(0)
        self.go = QPushButton("Continue")
        self.go.setDefault(True)
        self.go.clicked.connect(self._go)
        self.people.itemActivated.connect(lambda _item: self._go())
        layout.addWidget(title)
        layout.addWidget(hint)
        layout.addWidget(self.people)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.go)
        layout.addLayout(row)
        centred = QHBoxLayout()
        centred.addStretch(1)
        centred.addWidget(box, 2)
        centred.addStretch(1)
        outer.addLayout(centred)
        outer.addStretch(2)
        self.people.setFocus()

    def _go(self) -> None:
        item = self.people.currentItem()
        if item is not None:
            self.chosen.emit(str(item.data(Qt.ItemDataRole.UserRole)))
