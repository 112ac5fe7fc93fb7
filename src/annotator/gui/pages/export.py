"""The Export page (curators): pre-flight, the benchmark card's prose, and the release.

Left: what an export would release now and what it holds back, with the reason for each
case. Middle: the card fields (project settings, saved through ``services.export``).
Right: the export options, a progress bar while the release is written off the GUI
thread, and the result with a button that opens the folder.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, QUrl
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QScrollArea,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from annotator.domain.permissions import Action
from annotator.export.settings import FIELDS
from annotator.gui import theme
from annotator.gui.context import GuiContext
from annotator.gui.permits import guard
from annotator.gui.tasks import TaskProgress, run_task_in_background
from annotator.gui.workers import run_in_background
from annotator.services import export as service


class Page(QWidget):
    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        self.context = context
        self.result: Any = None
        self.task: TaskProgress | None = None  # the export under way
        layout = QHBoxLayout(self)
        layout.addWidget(self._preflight_box(), 4)
        layout.addWidget(self._card_box(), 4)
        layout.addWidget(self._export_box(), 3)
        if context.project is None:
            self.summary.setText("Open a project to export a release.")
            self.export_button.setEnabled(False)
            self.save_button.setEnabled(False)
        else:
            self._load_card()
            self.refresh()
            # Asked before anything is typed, not refused after (the core's table decides).
            guard(context, Action.EDIT_CARD, self.save_button, *self.fields.values())
            guard(context, Action.EXPORT, self.export_button)

    # --- pre-flight --------------------------------------------------------------------

    def _preflight_box(self) -> QGroupBox:
        box = QGroupBox("Pre-flight: what this release holds")
        v = QVBoxLayout(box)
        self.summary = QLabel("Checking the project...")
        self.summary.setWordWrap(True)
        self.table = QTableWidget(0, 3)
        self.table.setHorizontalHeaderLabels(["Case", "Release", "Why"])
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.warnings = QLabel("")
        self.warnings.setWordWrap(True)
        self.warnings.setStyleSheet(theme.css("color: $warning;"))
        refresh = QPushButton("Check again")
        refresh.clicked.connect(self.refresh)
        v.addWidget(self.summary)
        v.addWidget(self.table, 1)
        v.addWidget(self.warnings)
        v.addWidget(refresh, 0, Qt.AlignmentFlag.AlignLeft)
        return box

    def refresh(self) -> None:
        """Recompute the pre-flight list off the GUI thread."""
        project = self.context.project
        if project is None:
            return
        self.summary.setText("Checking the project...")
        self._checking = True
        run_in_background(lambda: service.preflight(project), self._show_preflight,
                          self._show_error)

    def ready(self) -> bool:
        """True once the pre-flight list is on screen (screenshots wait for it)."""
        return not getattr(self, "_checking", False)

    def _show_preflight(self, check: service.Preflight) -> None:
        self._checking = False
        rows = [(c, "released", "green-lit") for c in check.released]
        rows += [(h.case_id, "excluded", f"{h.reason_code}: {h.reason}") for h in check.excluded]
        rows += [(h.case_id, "held back", h.reason) for h in check.held_back]
        rows.sort()
        self.table.setRowCount(len(rows))
        for r, row in enumerate(rows):
            for c, text in enumerate(row):
                self.table.setItem(r, c, QTableWidgetItem(text))
        self.table.resizeColumnsToContents()
        self.table.horizontalHeader().setSectionResizeMode(2, QHeaderView.ResizeMode.Stretch)
        self.summary.setText(
            f"<b>{len(check.released)}</b> case(s) will be released with {check.images}"
            f" image(s); <b>{len(check.excluded)}</b> excluded; <b>{len(check.held_back)}</b>"
            " held back (not green-lit)."
        )
        self.warnings.setText("\n".join(f"Warning: {w}" for w in check.warnings))

    # --- card --------------------------------------------------------------------------

    def _card_box(self) -> QGroupBox:
        box = QGroupBox("Benchmark card (saved in the project)")
        outer = QVBoxLayout(box)
        form_widget = QWidget()
        form = QFormLayout(form_widget)
        form.setRowWrapPolicy(QFormLayout.RowWrapPolicy.WrapAllRows)  # wide editors
        self.fields: dict[str, QLineEdit | QPlainTextEdit] = {}
        for f in FIELDS:
            editor: QLineEdit | QPlainTextEdit
            if f.multiline:
                editor = QPlainTextEdit()
                editor.setFixedHeight(64)
            else:
                editor = QLineEdit()
            editor.setObjectName(f"card.{f.key}")
            self.fields[f.key] = editor
            form.addRow(f.label, editor)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(form_widget)
        self.save_button = QPushButton("Save card")
        self.save_button.clicked.connect(self.save_card)
        self.card_status = QLabel("")
        outer.addWidget(scroll, 1)
        row = QHBoxLayout()
        row.addWidget(self.save_button)
        row.addWidget(self.card_status, 1)
        outer.addLayout(row)
        return box

    def _load_card(self) -> None:
        assert self.context.project is not None
        settings = service.card_settings(self.context.project)
        for key, editor in self.fields.items():
            value = str(getattr(settings, key))
            if isinstance(editor, QLineEdit):
                editor.setText(value)
            else:
                editor.setPlainText(value)
        self.version.setText(settings.version)

    def _card_values(self) -> dict[str, str]:
        return {key: (e.text() if isinstance(e, QLineEdit) else e.toPlainText())
                for key, e in self.fields.items()}

    def save_card(self) -> None:
        """Save the card fields as project settings (curators only)."""
        project = self.context.project
        if project is None:
            return
        try:
            service.save_card_settings(project, self.context.user or "", **self._card_values())
        except Exception as exc:  # noqa: BLE001 - shown to the user, not raised
            self.card_status.setText(f"Not saved: {exc}")
            return
        self.card_status.setText("Saved.")
        self.version.setText(self._card_values()["version"])

    # --- export ------------------------------------------------------------------------

    def _export_box(self) -> QGroupBox:
        box = QGroupBox("Export")
        v = QVBoxLayout(box)
        form = QFormLayout()
        self.out = QLineEdit()
        self.out.setPlaceholderText("a new, empty folder")
        form.addRow("Folder", self._with_browse(self.out))
        self.version = QLineEdit()
        form.addRow("Version", self.version)
        self.date = QLineEdit()
        self.date.setPlaceholderText("YYYY-MM-DD (default: today, UTC)")
        form.addRow("Release date", self.date)
        self.previous = QLineEdit()
        self.previous.setPlaceholderText("previous release folder (optional)")
        form.addRow("Compare with", self._with_browse(self.previous))
        self.comments = QCheckBox("Include reviewers' free-text comments")
        self.dicom = QCheckBox("Also ship the de-identified DICOM files")
        v.addLayout(form)
        v.addWidget(self.comments)
        v.addWidget(self.dicom)
        self.export_button = QPushButton("Export release")
        self.export_button.clicked.connect(self.start_export)
        self.progress = QProgressBar()
        self.progress.setValue(0)
        self.status = QLabel("")
        self.status.setWordWrap(True)
        self.status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.open_button = QPushButton("Open release folder")
        self.open_button.setEnabled(False)
        self.open_button.clicked.connect(self.open_folder)
        for widget in (self.export_button, self.progress, self.status, self.open_button):
            v.addWidget(widget)
        v.addStretch(1)
        return box

    def _with_browse(self, edit: QLineEdit) -> QWidget:
        holder = QWidget()
        row = QHBoxLayout(holder)
        row.setContentsMargins(0, 0, 0, 0)
        button = QPushButton("Browse...")

        def browse() -> None:
            chosen = QFileDialog.getExistingDirectory(self, "Choose a folder")
            if chosen:
                edit.setText(chosen)

        button.clicked.connect(browse)
        row.addWidget(edit, 1)
        row.addWidget(button)
        return holder

    def start_export(self) -> None:
        """Write the release off the GUI thread, with progress and Cancel (``gui.tasks``)."""
        project = self.context.project
        if project is None or not self.out.text().strip():
            self.status.setText("Choose a new, empty folder for the release.")
            return
        out, previous = Path(self.out.text().strip()), self.previous.text().strip()
        actor = self.context.user or ""
        options = {"version": self.version.text().strip() or None,
                   "date": self.date.text().strip() or None,
                   "previous": Path(previous) if previous else None,
                   "include_comments": self.comments.isChecked(),
                   "include_dicom": self.dicom.isChecked()}
        self.export_button.setEnabled(False)
        self.open_button.setEnabled(False)
        self.progress.setValue(0)
        self.status.setText("Exporting...")
        self.task = run_task_in_background(
            self, "Exporting the release",
            lambda task: service.export_release(project, actor, out, task=task, **options),
            self._on_done, self._on_failed)
        self.task.progressed.connect(self._on_progress)

    def _on_progress(self, fraction: float, message: str) -> None:
        if self.task is None:
            return  # a report that arrives after the end: the bar says done (or failed)
        self.progress.setMaximum(1000)
        self.progress.setValue(round(fraction * 1000))
        self.progress.setFormat(f"%p%  {message}")

    def _on_done(self, result: Any) -> None:
        self.task = None
        self.result = result
        self.progress.setValue(self.progress.maximum())  # done, whatever the last step said
        self.export_button.setEnabled(True)  # only a curator gets here
        self.open_button.setEnabled(True)
        lines = [f"Release written to {result.folder}", f"{result.cases} case(s),"
                 f" {result.images} image(s), {len(result.files)} file(s)."]
        lines += [f"Note: {n}" for n in result.notes]
        self.status.setText("\n".join(lines))

    def _on_failed(self, exc: BaseException) -> None:
        self.task = None
        self.export_button.setEnabled(True)
        self.progress.setValue(0)
        self.status.setText(f"Export stopped: {exc}")

    def _show_error(self, exc: BaseException) -> None:
        self._checking = False
        self.summary.setText(f"Cannot check the project: {exc}")

    def open_folder(self) -> None:
        """Open the written release in the system's file manager."""
        if self.result is not None:
            QDesktopServices.openUrl(QUrl.fromLocalFile(str(self.result.folder)))
