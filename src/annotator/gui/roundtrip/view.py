"""The curator's round-trip window: per annotator what went out and what came back.

A non-modal window beside the main one (like the shortcut sheet). The table is
``services.sync_status.roundtrip_status``; "Make bundle for..." writes one annotator's work
bundle and "Import packages..." imports annotators' packages and lists what happened to every case
(added, unchanged, stale, refused) or why a package was refused whole. Both run off the GUI
thread; the methods taking paths (``make_bundle_to``, ``import_files``) are what the buttons
and the tests call after the choosers.
"""

from __future__ import annotations

import html
from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QAction
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPushButton,
    QTableView,
    QVBoxLayout,
    QWidget,
)

from annotator.gui import theme
from annotator.gui.context import GuiContext
from annotator.gui.curator.command_line import command_line
from annotator.gui.roundtrip import choosers
from annotator.gui.roundtrip.keymap import IMPORT_PACKAGES, MAKE_BUNDLE
from annotator.gui.roundtrip.models import ImportReportModel, RoundTripModel
from annotator.gui.tasks import run_task_in_background
from annotator.gui.workers import run_in_background
from annotator.sync.formats import SyncFileError
from annotator.sync.import_report import STATUSES, PackageImportReport
from annotator.tasks import Cancelled

ERROR_STYLE = "color: $refused;"


def _table(model: Any) -> QTableView:
    table = QTableView()
    table.setModel(model)
    table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
    table.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
    table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
    table.verticalHeader().hide()
    table.setAlternatingRowColors(True)
    return table


def import_summary(results: list[PackageImportReport | SyncFileError]) -> list[tuple[str, bool]]:
    """One line per package for the message, each with whether it was refused whole."""
    lines = []
    for r in results:
        if isinstance(r, SyncFileError):
            lines.append((f"Refused whole, nothing applied: {Path(r.path).name}: {r.reason}",
                          True))
        elif r.note:
            lines.append((f"{r.annotator}, package {r.sequence}: {r.note}", False))
        else:
            counts = ", ".join(f"{r.count(s)} {s}" for s in STATUSES if r.count(s))
            lines.append((f"{r.annotator}, package {r.sequence}: {counts or 'no cases'}", False))
    return lines


def summary_html(lines: list[tuple[str, bool]]) -> str:
    """The summary for the message label: refused packages in red, the others plain."""
    return "<br>".join(
        f'<span style="{theme.css(ERROR_STYLE)}">{html.escape(text)}</span>' if refused
        else html.escape(text)
        for text, refused in lines
    )


class RoundTripView(QWidget):
    """The round-trip table, the bundle and import actions, and the last import's report."""

    refreshed = Signal()
    """The table shows the store as it is now."""
    finished = Signal(str)
    """A bundle or an import finished (the message shown)."""

    def __init__(self, context: GuiContext, actions: dict[str, QAction],
                 parent: QWidget | None = None) -> None:
        super().__init__(parent, Qt.WindowType.Window)
        assert context.project is not None
        self.context = context
        self.project = context.project
        self.busy = False
        self.setWindowTitle(f"Round trip - {self.project.location}")
        self.resize(1000, 640)
        self.model = RoundTripModel(self)
        self.report = ImportReportModel(self)
        layout = QVBoxLayout(self)
        intro = QLabel("<h3>Round trip: work bundles out, annotation packages back</h3>"
                       "Counts are over the cases assigned to each annotator now. "
                       "<i>Returned</i> counts cases whose work came back in a package.")
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.table = _table(self.model)
        self.table.horizontalHeader().setStretchLastSection(True)
        self.table.clicked.connect(self._row_chosen)
        layout.addWidget(self.table, 3)
        layout.addLayout(self._controls(actions))
        commands = QFormLayout()
        self.command = QLineEdit()
        self.command.setObjectName("command")
        self.command.setReadOnly(True)
        commands.addRow("Command, bundle", self.command)
        self.import_command = QLineEdit(command_line(
            context, ["package-import", "FILE.annotator-package", "..."]))
        self.import_command.setReadOnly(True)
        self.import_command.setCursorPosition(0)
        commands.addRow("Command, import", self.import_command)
        layout.addLayout(commands)
        self.annotator.currentTextChanged.connect(self._show_command)
        self._show_command()
        self.message = QLabel("")
        self.message.setObjectName("roundtripMessage")
        self.message.setWordWrap(True)
        self.message.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        layout.addWidget(self.message)
        layout.addWidget(QLabel("<b>Last import, case by case</b>"))
        self.report_table = _table(self.report)
        self.report_table.horizontalHeader().setSectionResizeMode(
            3, QHeaderView.ResizeMode.Stretch)
        layout.addWidget(self.report_table, 2)
        self.refresh()

    def _controls(self, actions: dict[str, QAction]) -> QHBoxLayout:
        row = QHBoxLayout()
        row.addWidget(QLabel("Bundle for"))
        self.annotator = QComboBox()
        self.annotator.setMinimumWidth(180)
        row.addWidget(self.annotator)
        self.bundle_button = self._button("Make bundle...", actions[MAKE_BUNDLE])
        self.import_button = self._button("Import packages...", actions[IMPORT_PACKAGES])
        refresh = QPushButton("Refresh")
        refresh.clicked.connect(self.refresh)
        row.addWidget(self.bundle_button)
        row.addSpacing(24)
        row.addWidget(self.import_button)
        row.addStretch(1)
        row.addWidget(refresh)
        return row

    def _show_command(self, *_: object) -> None:
        name = self.annotator.currentText() or "NAME"
        bundle = command_line(self.context, ["bundle", "--annotator", name, "--out",
                                             choosers.suggested_name(name,
                                                                     choosers.BUNDLE_SUFFIX)])
        self.command.setText(bundle)
        self.command.setCursorPosition(0)

    def _button(self, text: str, action: QAction) -> QPushButton:
        button = QPushButton(text)
        key = action.shortcut().toString()
        button.setToolTip(f"{action.text()} ({key})" if key else action.text())
        button.clicked.connect(action.trigger)
        return button

    # -- the table ------------------------------------------------------------------------

    def refresh(self) -> None:
        """Read the round-trip status off the GUI thread."""
        from annotator.services.sync.status import roundtrip_status

        project = self.project
        run_in_background(lambda: roundtrip_status(project), self._show_rows,
                          lambda exc: self.say(f"Cannot read the round trip: {exc}", error=True))

    def _show_rows(self, rows: list[Any]) -> None:
        chosen = self.annotator.currentText()
        self.model.set_rows(rows)
        self.table.resizeColumnsToContents()
        self.annotator.clear()
        self.annotator.addItems([r.annotator for r in rows])
        if chosen:
            self.annotator.setCurrentText(chosen)
        self.refreshed.emit()

    def _row_chosen(self, index: Any) -> None:
        if index.isValid():
            self.annotator.setCurrentText(self.model.rows[index.row()].annotator)

    def say(self, text: str, error: bool = False, rich: str = "") -> None:
        """Show a result (``rich``: the same as HTML) or, in red, a reason."""
        self.message.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
        self.message.setStyleSheet(theme.css(ERROR_STYLE) if error else "")
        self.message.setText(rich or text)

    def _working(self, text: str) -> None:
        self.busy = True
        self.bundle_button.setEnabled(False)
        self.import_button.setEnabled(False)
        self.say(text)

    def _finish(self, text: str, error: bool = False, rich: str = "") -> None:
        self.busy = False
        self.bundle_button.setEnabled(True)
        self.import_button.setEnabled(True)
        self.say(text, error, rich)
        self.refresh()
        self.finished.emit(text)

    # -- bundles --------------------------------------------------------------------------

    def choose_and_make_bundle(self) -> None:
        """Ask for the bundle file of the chosen annotator, then write it."""
        annotator = self.annotator.currentText()
        if not annotator:
            self.say("There is no annotator to bundle for.", error=True)
            return
        path = choosers.save_file(
            self, f"Work bundle for {annotator}",
            Path.home() / choosers.suggested_name(annotator, choosers.BUNDLE_SUFFIX),
            choosers.BUNDLE_FILTER)
        if path is not None:
            self.make_bundle_to(annotator, path)

    def make_bundle_to(self, annotator: str, path: Path) -> None:
        """Write ``annotator``'s work bundle to ``path`` off the GUI thread."""
        from annotator.services.sync.bundle import make_bundle

        if self.busy:
            return
        project, actor = self.project, self.context.user or ""
        self._working(f"Writing the work bundle for {annotator}...")

        def done(result: Any) -> None:
            self._finish(f"Work bundle for {result.annotator}: {len(result.case_ids)} case(s), "
                         f"{result.images} image(s), written to {result.path}")

        run_task_in_background(
            self, f"Work bundle for {annotator}",
            lambda task: make_bundle(project, actor, annotator, path, task), done,
            lambda exc: self._finish(f"No bundle written: {exc}", error=True))

    # -- packages -------------------------------------------------------------------------

    def choose_and_import(self) -> None:
        """Ask for package files, then import them."""
        paths = choosers.package_files(self)
        if paths:
            self.import_files(paths)

    def import_files(self, paths: list[Path]) -> None:
        """Import packages off the GUI thread; the report lists every case."""
        from annotator.services.sync.package_import import import_packages

        if self.busy:
            return
        project, actor = self.project, self.context.user or ""
        self._working(f"Importing {len(paths)} package(s)...")

        def done(results: list[PackageImportReport | SyncFileError]) -> None:
            self.report.set_results(results)
            self.report_table.resizeColumnsToContents()
            self.report_table.horizontalHeader().setSectionResizeMode(
                3, QHeaderView.ResizeMode.Stretch)
            lines = import_summary(results)
            self._finish("\n".join(t for t, _ in lines), rich=summary_html(lines))

        def fail(exc: BaseException) -> None:
            if isinstance(exc, Cancelled) and exc.partial:
                done(exc.partial)  # the packages imported before the cancel, each whole
                self.say(f"Import cancelled after {len(exc.partial)} package(s).")
                return
            self._finish(f"Import stopped: {exc}", error=True)

        run_task_in_background(
            self, f"Importing {len(paths)} package(s)",
            lambda task: import_packages(project, actor, list(paths), task), done, fail)
