"""The input widgets of the curator's dialogs, one kind per value a command takes.

Every field reads and writes one value (text, a number, a list of roles or paths, a
yes/no) so a dialog is described as data (:mod:`annotator.gui.curator.catalogue`) and a test
fills it the way a user types. The only file dialogs are behind the "Browse..." buttons.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFileDialog,
    QHBoxLayout,
    QLineEdit,
    QPushButton,
    QSpinBox,
    QWidget,
)

from annotator.domain.states import ROLES

# Kinds of field: what the value is and how it is chosen.
TEXT, PASSWORD, NUMBER, CHECK, ROLES_KIND, USER = (
    "text", "password", "number", "check", "roles", "user")
# Paths: a folder, a file or files to read; a file to write.
FOLDER, FILE, FILES, SAVE = "folder", "file", "files", "save"


@dataclass(frozen=True)
class FieldSpec:
    key: str
    label: str
    kind: str = TEXT
    default: Any = ""
    pattern: str = ""  # file dialog filter ("Benchmarks (*.yaml *.yml)")
    tip: str = ""


class Field:
    """One field's widget and its value; ``changed`` is called on every edit."""

    def __init__(self, spec: FieldSpec, changed: Callable[[], None],
                 users: Callable[[], list[str]]) -> None:
        self.spec = spec
        self.widget: QWidget
        self._boxes: dict[str, QCheckBox] = {}
        kind = spec.kind
        if kind == NUMBER:
            spin = self.spin = QSpinBox()
            spin.setRange(1, 99)
            spin.setValue(int(spec.default or 1))
            spin.valueChanged.connect(lambda _v: changed())
            self.widget = spin
        elif kind == CHECK:
            box = self.check = QCheckBox(spec.tip or spec.label)
            box.setChecked(bool(spec.default))
            box.toggled.connect(lambda _v: changed())
            self.widget = box
        elif kind == ROLES_KIND:
            self.widget = QWidget()
            row = QHBoxLayout(self.widget)
            row.setContentsMargins(0, 0, 0, 0)
            for role in ROLES:
                box = QCheckBox(role)
                box.setChecked(role in (spec.default or []))
                box.toggled.connect(lambda _v: changed())
                row.addWidget(box)
                self._boxes[role] = box
            row.addStretch(1)
        elif kind == USER:
            combo = self.combo = QComboBox()
            combo.setEditable(True)
            combo.setMinimumWidth(220)
            combo.addItems(users())
            combo.setCurrentIndex(-1)
            combo.currentTextChanged.connect(lambda _t: changed())
            self.widget = combo
        else:
            edit = self.edit = QLineEdit(str(spec.default or ""))
            edit.setMinimumWidth(360)
            if kind == PASSWORD:
                edit.setEchoMode(QLineEdit.EchoMode.Password)
            if kind == FILES:
                edit.setPlaceholderText("one or more files; separate them with ;")
            edit.textChanged.connect(lambda _t: changed())
            self.widget = edit
            if kind in (FOLDER, FILE, FILES, SAVE):
                self.widget = self._with_browse(edit)
        if spec.tip and kind != CHECK:
            self.widget.setToolTip(spec.tip)

    def _with_browse(self, edit: QLineEdit) -> QWidget:
        holder = QWidget()
        row = QHBoxLayout(holder)
        row.setContentsMargins(0, 0, 0, 0)
        row.addWidget(edit, 1)
        browse = QPushButton("Browse...")
        browse.clicked.connect(self.browse)
        row.addWidget(browse)
        return holder

    def browse(self) -> None:
        """Choose the path(s) with the desktop's file dialog."""
        kind, title, start = self.spec.kind, self.spec.label, str(Path.home())
        if kind == FOLDER:
            chosen = QFileDialog.getExistingDirectory(self.widget, title, start)
        elif kind == FILE:
            chosen = QFileDialog.getOpenFileName(self.widget, title, start, self.spec.pattern)[0]
        elif kind == FILES:
            chosen = ";".join(QFileDialog.getOpenFileNames(self.widget, title, start,
                                                           self.spec.pattern)[0])
        else:
            chosen = QFileDialog.getSaveFileName(self.widget, title, start, self.spec.pattern)[0]
        if chosen:
            self.edit.setText(chosen)

    def value(self) -> Any:
        kind = self.spec.kind
        if kind == NUMBER:
            return self.spin.value()
        if kind == CHECK:
            return self.check.isChecked()
        if kind == ROLES_KIND:
            return [role for role, box in self._boxes.items() if box.isChecked()]
        if kind == USER:
            return self.combo.currentText().strip()
        text = self.edit.text()
        if kind == FILES:
            return [p.strip() for p in text.split(";") if p.strip()]
        return text if kind == PASSWORD else text.strip()

    def set_value(self, value: Any) -> None:
        """Fill the field as a user would (tests, and a dialog opened with a suggestion)."""
        kind = self.spec.kind
        if kind == NUMBER:
            self.spin.setValue(int(value))
        elif kind == CHECK:
            self.check.setChecked(bool(value))
        elif kind == ROLES_KIND:
            for role, box in self._boxes.items():
                box.setChecked(role in value)
        elif kind == USER:
            self.combo.setCurrentText(str(value))
        elif kind == FILES and not isinstance(value, str):
            self.edit.setText(";".join(str(v) for v in value))
        else:
            self.edit.setText(str(value))

    def set_users(self, names: list[str]) -> None:
        """The names a user field offers (after a user was added)."""
        if self.spec.kind == USER:
            current = self.combo.currentText()
            self.combo.blockSignals(True)
            self.combo.clear()
            self.combo.addItems(names)
            self.combo.setCurrentText(current)
            self.combo.blockSignals(False)
