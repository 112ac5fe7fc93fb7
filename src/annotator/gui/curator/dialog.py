"""One dialog for every curator command: its fields, the command it runs, progress, result.

A :class:`CommandDialog` shows a :class:`~annotator.gui.curator.catalogue.CuratorCommand`:
what it does, an optional table read from the store (the users, the balance an assignment
would make, the states a repair would move), the command's fields, the command line that
does the same (to copy), and a Run button. The work runs off the GUI thread through the
one long-work helper (:func:`annotator.gui.tasks.run_task_in_background`) with progress
and Cancel, and its lines (the command's own words) fill the result box. The dialog is not
modal: the window stays usable and a test drives it without a nested event loop.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QDesktopServices, QFontDatabase, QGuiApplication
from PySide6.QtWidgets import (
    QDialog,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.errors import AnnotatorError
from annotator.gui import theme
from annotator.gui.context import GuiContext
from annotator.gui.curator.catalogue import (
    CuratorCommand,
    Outcome,
    acting_user,
    refusal,
    user_names,
)
from annotator.gui.curator.command_line import command_line
from annotator.gui.curator.fields import Field
from annotator.gui.tasks import TaskProgress, run_task_in_background
from annotator.tasks import Cancelled, TaskState

ERROR_STYLE = "color: $refused;"


class CommandDialog(QDialog):
    """The dialog of one curator command (see the module docstring)."""

    finished_work = Signal(bool)
    """The work ended: True when it succeeded (the result box holds its lines)."""

    def __init__(self, context: GuiContext, spec: CuratorCommand,
                 parent: QWidget | None = None) -> None:
        super().__init__(parent)
        assert context.project is not None
        self.context, self.spec, self.project = context, spec, context.project
        self.running = False
        self.task: TaskProgress | None = None
        self.outcome: Outcome | None = None
        self.setObjectName(spec.id)
        self.setWindowTitle(spec.title)
        self.resize(820, 620)
        layout = QVBoxLayout(self)
        intro = QLabel(f"<h3>{spec.title}</h3>{spec.intro}")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.table: QTableWidget | None = None
        self.table_note = QLabel("")
        if spec.table is not None:
            layout.addWidget(QLabel(f"<b>{spec.table_title}</b>"))
            self.table = QTableWidget()
            self.table.setEditTriggers(QTableWidget.EditTrigger.NoEditTriggers)
            self.table.verticalHeader().setVisible(False)
            self.table.setMinimumHeight(120)
            self.table.setSelectionMode(QTableWidget.SelectionMode.NoSelection)
            self.table.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            layout.addWidget(self.table, 3)
            self.table_note.setWordWrap(True)
            layout.addWidget(self.table_note)
        form = QFormLayout()
        names = user_names(self.project)
        self.fields = {f.key: Field(f, self._changed, lambda: names) for f in spec.fields}
        for f in spec.fields:
            form.addRow(f.label if f.kind != "check" else "", self.fields[f.key].widget)
        layout.addLayout(form)
        layout.addLayout(self._command_row())
        buttons = QHBoxLayout()
        self.run_button = QPushButton(spec.button)
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.run)
        self.open_button = QPushButton("Open")
        self.open_button.setVisible(False)
        self.open_button.clicked.connect(self.open_result)
        close = QPushButton("Close")
        close.clicked.connect(self.close)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        buttons.addWidget(self.run_button)
        buttons.addWidget(self.status, 1)
        buttons.addWidget(self.open_button)
        buttons.addWidget(close)
        layout.addLayout(buttons)
        self.result = QPlainTextEdit()
        self.result.setReadOnly(True)
        self.result.setObjectName("result")
        self.result.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self.result.setPlaceholderText("What the command says appears here.")
        self.result.setLineWrapMode(QPlainTextEdit.LineWrapMode.NoWrap)
        layout.addWidget(self.result, 2)
        self._changed()
        self.refresh_permission()

    def refresh_permission(self) -> None:
        """Enable Run when the window's user may take the command's action, else say who may."""
        reason = refusal(self.context, self.spec.action)
        self._show_command(self.values())
        self.run_button.setEnabled(reason is None and not self.running)
        self.run_button.setToolTip(reason or "")
        if reason is not None:
            self.status.setText(reason)
        elif self.outcome is None:
            self.status.setText("")

    def _command_row(self) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel("Command"))
        self.command = QLineEdit()
        self.command.setObjectName("command")
        self.command.setReadOnly(True)
        self.command.setToolTip("The same action on the command line (copy it for a script)")
        self.command.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        row.addWidget(self.command, 1)
        copy = QPushButton("Copy")
        copy.setToolTip("Copy the command to the clipboard")
        copy.clicked.connect(lambda: QGuiApplication.clipboard().setText(self.command.text()))
        row.addWidget(copy)
        return row

    # -- values ---------------------------------------------------------------------------

    def values(self) -> dict[str, Any]:
        return {key: field.value() for key, field in self.fields.items()}

    def fill(self, **values: Any) -> None:
        """Set fields by key, as a user types them."""
        for key, value in values.items():
            self.fields[key].set_value(value)

    def _changed(self) -> None:
        values = self.values()
        self._show_command(values)
        self.refresh_table()

    def _show_command(self, values: dict[str, Any]) -> None:
        text = command_line(self.context, self.spec.argv(values))
        self.command.setText(text)
        self.command.setCursorPosition(0)  # the start: which project, who, which command
        self.command.setToolTip(text)

    def refresh_table(self) -> None:
        """Read the command's table from the store now (a quick read: the users, a plan)."""
        if self.spec.table is None or self.table is None:
            return
        try:
            headers, rows, note = self.spec.table(self.project, acting_user(self.context),
                                                 self.values())
        except AnnotatorError as exc:
            headers, rows, note = (), [], str(exc)
        self.table.clear()
        self.table.setColumnCount(len(headers))
        self.table.setHorizontalHeaderLabels(list(headers))
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, cell in enumerate(row):
                item = QTableWidgetItem(str(cell))
                if c and (str(cell).isdigit() or str(cell) == "-"):
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight
                                          | Qt.AlignmentFlag.AlignVCenter)
                self.table.setItem(r, c, item)
        header = self.table.horizontalHeader()
        header.setStretchLastSection(False)
        header.setSectionResizeMode(QHeaderView.ResizeMode.ResizeToContents)
        if headers:  # the first column (who, which case) takes the room left
            header.setSectionResizeMode(0, QHeaderView.ResizeMode.Stretch)
        self.table_note.setText(note)
        self.table_note.setVisible(bool(note))

    def table_rows(self) -> list[list[str]]:
        """What the table shows (tests compare it with the command line's)."""
        table = self.table
        if table is None:
            return []
        return [[table.item(r, c).text() for c in range(table.columnCount())]
                for r in range(table.rowCount())]

    # -- running --------------------------------------------------------------------------

    def run(self) -> None:
        """Run the command off the GUI thread with progress and Cancel."""
        if self.running or not self.run_button.isEnabled():
            return
        values = self.values()
        problem = self.spec.check(values) if self.spec.check is not None else None
        if problem:
            self._show(Outcome([problem], error=True))
            return
        try:
            actor = acting_user(self.context)
        except AnnotatorError as exc:
            self._show(Outcome([str(exc)], error=True))
            return
        self.running = True
        self.run_button.setEnabled(False)
        self.open_button.setVisible(False)
        self.status.setStyleSheet("")
        self.status.setText("Working...")
        project, spec = self.project, self.spec

        def work(state: TaskState) -> Outcome:
            return spec.run(project, actor, values, state)

        self.task = run_task_in_background(self, self.spec.title, work, self._done, self._failed)

    def _done(self, outcome: Outcome) -> None:
        self._show(outcome)

    def _failed(self, exc: BaseException) -> None:
        if isinstance(exc, Cancelled):
            lines = self.spec.cancelled(exc) if self.spec.cancelled is not None else []
            self._show(Outcome([*lines, str(exc)], error=True, cancelled=True))
        elif isinstance(exc, AnnotatorError):
            self._show(Outcome(getattr(exc, "lines", None) or [str(exc)], error=True))
        else:
            self._show(Outcome([f"internal error: {type(exc).__name__}: {exc}"], error=True))

    def _show(self, outcome: Outcome) -> None:
        self.running = False
        self.task = None
        self.outcome = outcome
        self.refresh_permission()
        self.result.setPlainText("\n".join(outcome.lines))
        self.status.setStyleSheet(theme.css(ERROR_STYLE) if outcome.error else "")
        self.status.setText(outcome.lines[-1] if outcome.error and outcome.lines
                            else ("Cancelled." if outcome.cancelled else "Done."))
        self.open_button.setVisible(outcome.opens is not None)
        for field in self.fields.values():
            field.set_users(user_names(self.project))
        self.refresh_table()
        self.finished_work.emit(not outcome.error)

    def open_result(self) -> None:
        """Open the file the command wrote (the agreement report) with the desktop's viewer."""
        from PySide6.QtCore import QUrl

        if self.outcome is not None and self.outcome.opens is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.outcome.opens)))
