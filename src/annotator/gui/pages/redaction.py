"""The Redaction page (curators): each image flagged for burned-in text, its proposed boxes
over the image, and the curator's decision.

Left: the flagged images (and the ones already reviewed), next and previous by key. Middle:
the frame with its boxes (:class:`~annotator.gui.redaction.canvas.BoxCanvas`): draw a box by
dragging on the image, move one by dragging it, resize it by its bottom-right corner, or
use the keys (F1 lists them). Box edits are undoable steps (``gui.undo.SetCommand``); they
stay on the page until applied. Right: where the boxes go (this frame, every frame, or
every image of the case in the same series with the same geometry), applying them (burned
into the stored pixels through ``services.pixel_review``: this cannot be undone), or "no
patient data here" with a reason; after a redaction, the project's backups made before it
are offered for deletion.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QUndoStack
from PySide6.QtWidgets import (
    QComboBox,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from annotator.domain.permissions import Action
from annotator.errors import AnnotatorError
from annotator.gui import theme
from annotator.gui.context import GuiContext
from annotator.gui.permits import guard
from annotator.gui.redaction.canvas import BoxCanvas
from annotator.gui.redaction.keymap import REDACTION_ACTIONS, STEP
from annotator.gui.undo import SetCommand
from annotator.gui.workers import run_in_background
from annotator.services import pixel_review
from annotator.services.pixel_review import ReviewImage
from annotator.services.pixel_status import ImageStatus

PAGE_ID = "redaction"
FrameBox = tuple[int, int, int, int, int]  # frame, x, y, w, h
SCOPES = ("frame", "image", "series")


class Page(QWidget):
    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        self.context = context
        self.rows: list[ImageStatus] = []
        self.image: ReviewImage | None = None
        self.boxes: tuple[FrameBox, ...] = ()  # every frame's boxes, as edited
        self.frame = 0
        self._loading = False
        self.undo = QUndoStack(self)
        layout = QHBoxLayout(self)
        layout.addWidget(self._list_box(), 3)
        self.canvas = BoxCanvas()
        self.canvas.edited.connect(self._edited)
        layout.addWidget(self.canvas, 7)
        layout.addWidget(self._decision_box(), 3)
        self._register_actions()
        if context.project is None or context.user is None:
            self.status.setText("Open a project to review images for burned-in text.")
            return
        guard(context, Action.REVIEW_IMAGES, self.apply_button, self.no_phi_button,
              self.reason)
        self.reload()

    # --- the list of flagged images ------------------------------------------------------

    def _list_box(self) -> QGroupBox:
        box, v, self.summary = _group("Images to review")
        self.list = QListWidget()
        self.list.currentRowChanged.connect(self._row_changed)
        v.addWidget(self.list, 1)
        return box

    def reload(self, keep: tuple[str, str] | None = None) -> None:
        """Read the flagged and reviewed images again; open ``keep`` or the first to do."""
        assert self.context.project is not None and self.context.user is not None
        self.rows = pixel_review.list_images(self.context.project, self.context.user)
        self.list.blockSignals(True)
        self.list.clear()
        for row in self.rows:
            mark = {"flagged": "●", "unchecked": "?", "redacted": "■", "no_phi": "✓"}
            item = QListWidgetItem(f"{mark.get(row.status, ' ')} {row.case_id} · "
                                   f"{row.draft_path}\n   {row.status.replace('_', ' ')}")
            if row.unresolved:
                item.setForeground(theme.qcolour("warning"))
            self.list.addItem(item)
        self.list.blockSignals(False)
        todo = sum(r.unresolved for r in self.rows)
        self.summary.setText(f"<b>{todo}</b> image(s) to review, {len(self.rows) - todo}"
                             " reviewed.")
        if not self.rows:
            self.status.setText("No image is flagged for burned-in text.")
            return
        wanted = next((i for i, r in enumerate(self.rows)
                       if keep is not None and (r.case_id, r.draft_path) == keep), None)
        if wanted is None:
            wanted = next((i for i, r in enumerate(self.rows) if r.unresolved), 0)
        self.list.setCurrentRow(wanted)
        self._row_changed(wanted)

    def step_image(self, step: int) -> None:
        if self.rows:
            self.list.setCurrentRow(min(max(self.list.currentRow() + step, 0),
                                        len(self.rows) - 1))

    def _row_changed(self, row: int) -> None:
        if not 0 <= row < len(self.rows):
            return
        project, user = self.context.project, self.context.user
        assert project is not None and user is not None
        wanted = self.rows[row]
        self._loading = True
        self.status.setText(f"Opening {wanted.case_id} · {wanted.draft_path}...")
        run_in_background(
            lambda: pixel_review.review_image(project, user, wanted.case_id, wanted.draft_path),
            self._show_image, self._failed)

    def ready(self) -> bool:
        """True once the list and the current image are on screen (screenshots wait)."""
        return not self._loading

    def _show_image(self, image: ReviewImage) -> None:
        self._loading = False
        self.image, self.frame = image, 0
        self.undo.clear()
        self.boxes = tuple(sorted(_proposed(image.status)))
        self.frame_spin.blockSignals(True)
        self.frame_spin.setRange(1, len(image.frames))
        self.frame_spin.setValue(1)
        self.frame_spin.blockSignals(False)
        self.frames_label.setText(f"of {len(image.frames)}")
        series = len(image.series)
        self.scope.setItemText(2, f"Every image of this series ({series + 1})")
        self.scope.model().item(2).setEnabled(series > 0)  # type: ignore[attr-defined]
        self.scope.setCurrentIndex(1 if len(image.frames) == 1 or series == 0 else 2)
        status = image.status
        reasons = "".join(f"<br>• {r}" for r in status.reasons) or "<br>• none recorded"
        review = (f"<br><b>Reviewed:</b> {status.status.replace('_', ' ')}"
                  + (f" ({status.review_reason})" if status.review_reason else "")
                  if not status.unresolved else "")
        self.status.setText(f"<b>{status.case_id}</b> · {status.draft_path}<br>"
                            f"{', '.join(status.figures) or 'no figure'}<br>"
                            f"<b>Why flagged:</b>{reasons}{review}")
        self.canvas.set_frame(image.frames[0])
        self._show_boxes()

    def _failed(self, exc: BaseException) -> None:
        self._loading = False
        self.status.setText(str(exc) if isinstance(exc, AnnotatorError)
                            else f"The image could not be opened: {exc}")

    # --- boxes: edits are undoable steps ------------------------------------------------

    def _show_boxes(self) -> None:
        self.canvas.set_boxes([b[1:] for b in self.boxes if b[0] == self.frame])
        count = sum(b[0] == self.frame for b in self.boxes)
        self.box_count.setText(f"{count} box(es) on this frame, {len(self.boxes)} in all")

    def _edited(self, frame_boxes: list[tuple[int, int, int, int]]) -> None:
        """The canvas's new list for the shown frame becomes one undoable step."""
        frame = self.frame
        value = tuple(sorted([*(b for b in self.boxes if b[0] != frame),
                              *((frame, *box) for box in frame_boxes)]))
        self.undo.push(SetCommand("edit boxes", self._write_boxes, value, self._refused))

    def _write_boxes(self, value: tuple[FrameBox, ...], _text: str) -> tuple[FrameBox, ...]:
        replaced, self.boxes = self.boxes, tuple(value)
        self._show_boxes()
        return replaced

    def _refused(self, exc: AnnotatorError) -> None:
        self.status.setText(str(exc))

    def set_frame(self, frame: int) -> None:
        if self.image is None:
            return
        self.frame = min(max(frame, 0), len(self.image.frames) - 1)
        self.frame_spin.setValue(self.frame + 1)
        self.canvas.set_frame(self.image.frames[self.frame])
        self._show_boxes()

    # --- the decision -------------------------------------------------------------------

    def _decision_box(self) -> QGroupBox:
        box, v, self.status = _group("Decision")
        self.status.setTextFormat(Qt.TextFormat.RichText)
        frames = QHBoxLayout()
        frames.addWidget(QLabel("Frame"))
        self.frame_spin = QSpinBox()
        self.frame_spin.setRange(1, 1)
        self.frame_spin.valueChanged.connect(lambda n: self.set_frame(n - 1))
        self.frames_label = QLabel("of 1")
        frames.addWidget(self.frame_spin)
        frames.addWidget(self.frames_label)
        frames.addStretch(1)
        v.addLayout(frames)
        self.box_count = QLabel("")
        v.addWidget(self.box_count)
        buttons = QHBoxLayout()
        add, delete = QPushButton("Add box"), QPushButton("Delete box")
        add.clicked.connect(self.canvas_add)
        delete.clicked.connect(self.canvas_delete)
        buttons.addWidget(add)
        buttons.addWidget(delete)
        v.addLayout(buttons)
        v.addWidget(QLabel("Black out the boxes on:"))
        self.scope = QComboBox()
        self.scope.addItems(["This frame only", "Every frame of this image",
                             "Every image of this series"])
        v.addWidget(self.scope)
        self.apply_button = QPushButton("Black out the boxes")
        self.apply_button.setToolTip("Burns the boxes into the stored pixels; the unredacted"
                                     " pixels leave the project (cannot be undone).")
        self.apply_button.clicked.connect(self.apply)
        v.addWidget(self.apply_button)
        v.addSpacing(8)
        v.addWidget(QLabel("Or, no patient data here:"))
        self.reason = QLineEdit()
        self.reason.setPlaceholderText("why (e.g. only a scale bar)")
        self.no_phi_button = QPushButton("No patient data here")
        self.no_phi_button.clicked.connect(self.mark_no_phi)
        v.addWidget(self.reason)
        v.addWidget(self.no_phi_button)
        v.addSpacing(8)
        self.backups = QLabel("")
        self.backups.setWordWrap(True)
        self.backups.setStyleSheet(theme.css("color: $warning;"))
        self.drop_backups = QPushButton("Delete those backups")
        self.drop_backups.clicked.connect(self.drop_old_backups)
        self.backups.hide()
        self.drop_backups.hide()
        v.addWidget(self.backups)
        v.addWidget(self.drop_backups)
        v.addStretch(1)
        return box

    def canvas_add(self) -> None:
        self.canvas.add_box()

    def canvas_delete(self) -> None:
        self.canvas.delete_box()

    def apply(self) -> None:
        """Burn the boxes into the stored pixels, as the scope says."""
        if self.image is None or self.context.project is None or self.context.user is None:
            return
        scope = SCOPES[self.scope.currentIndex()]
        frame = self.frame if scope == "frame" else None
        chosen = [b for b in self.boxes if scope != "frame" or b[0] == self.frame]
        boxes = sorted({b[1:] for b in chosen})
        if not boxes:
            self.status.setText("Draw at least one box to black out, or say the image"
                                " holds no patient data.")
            return
        status = self.image.status
        try:
            done = pixel_review.apply_redaction(
                self.context.project, self.context.user, status.case_id, status.draft_path,
                boxes, frame=frame, series=scope == "series")
        except AnnotatorError as exc:
            self.status.setText(str(exc))
            return
        self.reload(keep=None)
        self.status.setText(f"Blacked out {len(boxes)} box(es) in {len(done)} image(s).")
        self._offer_backups()

    def mark_no_phi(self) -> None:
        if self.image is None or self.context.project is None or self.context.user is None:
            return
        status = self.image.status
        try:
            pixel_review.no_phi(self.context.project, self.context.user, status.case_id,
                                status.draft_path, self.reason.text())
        except AnnotatorError as exc:
            self.status.setText(str(exc))
            return
        self.reason.clear()
        self.reload()

    def _offer_backups(self) -> None:
        assert self.context.project is not None and self.context.user is not None
        old = pixel_review.backups_before_redaction(self.context.project, self.context.user)
        self.backups.setVisible(bool(old))
        self.drop_backups.setVisible(bool(old))
        self.backups.setText(f"{len(old)} backup(s) in the project's backups folder were made"
                             " before this redaction: they copy the database as it was"
                             " before. Delete them so no copy from before it remains?")

    def drop_old_backups(self) -> None:
        assert self.context.project is not None and self.context.user is not None
        dropped = pixel_review.drop_backups_before_redaction(self.context.project,
                                                             self.context.user)
        self.backups.setText(f"Deleted {len(dropped)} backup(s) made before the redaction.")
        self.drop_backups.hide()

    # --- keys ---------------------------------------------------------------------------

    def _handlers(self) -> dict[str, Any]:
        nudge = self.canvas.nudge
        return {
            "redaction.image.next": lambda: self.step_image(1),
            "redaction.image.previous": lambda: self.step_image(-1),
            "redaction.frame.next": lambda: self.set_frame(self.frame + 1),
            "redaction.frame.previous": lambda: self.set_frame(self.frame - 1),
            "redaction.box.add": self.canvas.add_box,
            "redaction.box.delete": self.canvas.delete_box,
            "redaction.box.select_next": self.canvas.select_next,
            "redaction.box.left": lambda: nudge(-STEP, 0, 0, 0),
            "redaction.box.right": lambda: nudge(STEP, 0, 0, 0),
            "redaction.box.up": lambda: nudge(0, -STEP, 0, 0),
            "redaction.box.down": lambda: nudge(0, STEP, 0, 0),
            "redaction.box.narrower": lambda: nudge(0, 0, -STEP, 0),
            "redaction.box.wider": lambda: nudge(0, 0, STEP, 0),
            "redaction.box.shorter": lambda: nudge(0, 0, 0, -STEP),
            "redaction.box.taller": lambda: nudge(0, 0, 0, STEP),
            "redaction.undo": self.undo.undo,
            "redaction.redo": self.undo.redo,
            "redaction.apply": self.apply,
        }

    def _register_actions(self) -> None:
        registry = self.context.registry_for(self)
        table = self._handlers()
        for spec in REDACTION_ACTIONS:
            registry.register(spec, table[spec.id], self, page=PAGE_ID)


def _group(title: str) -> tuple[QGroupBox, QVBoxLayout, QLabel]:
    """A titled box of the page, its column, and the wrapped message at the column's top."""
    box = QGroupBox(title)
    column = QVBoxLayout(box)
    note = QLabel("")
    note.setWordWrap(True)
    column.addWidget(note)
    return box, column, note


def _proposed(status: ImageStatus) -> list[FrameBox]:
    """The check's proposed boxes (or those a review burned in), each on its frame."""
    out: list[FrameBox] = []
    for entry in status.boxes:
        x, y, w, h = (int(v) for v in entry["box"])
        out.append((int(entry.get("frame", 0)), x, y, w, h))
    return out
