"""Small building blocks of the annotate page: the case header, the viewer bar, the style.

Panel widths follow the window: the viewer gets every pixel the side panels do not need,
so the image stays the largest thing on screen from 1280 pixels wide upwards.
"""

from __future__ import annotations

import time
from typing import Any

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QFrame,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QScrollArea,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from annotator.gui import theme
from annotator.gui.workspace.exam_strip import meta_summary
from annotator.gui.workspace.session import CaseSession
from annotator.gui.workspace.viewer import ImageViewer
from annotator.imaging.window import CT_PRESETS

VERTICAL = Qt.Orientation.Vertical
BOARD_HEIGHT = 136  # the order board pane's first height (its title and three rows of chips)
BOARD_MIN_HEIGHT = 64  # below this it scrolls
STATE_TEXT = {"assigned": "not started", "in_progress": "in progress", "submitted": "submitted"}

STYLE = """
QLabel#suggestion { color: $suggestion; font-style: italic; }
QLabel#missing { background: $missing; border: 1px solid $missing_border; border-radius: 4px;
    padding: 4px; }
QLabel#warning { color: $danger; }
QLabel#dim { color: $text_dim; }
QLabel#boardTitle { background: $board; color: $board_title; padding: 3px 0; font-weight: bold; }
QLabel#caseTitle { font-size: 11pt; font-weight: bold; }
QLabel#stateChip { border-radius: 8px; padding: 1px 8px; color: $on_chip;
    background: $chip_assigned; }
QLabel#stateChip[state="in_progress"] { background: $chip_in_progress; }
QLabel#stateChip[state="submitted"] { background: $chip_submitted; }
QLabel#savedNote { color: $success; }
QLabel#errorNote { color: $on_danger; background: $danger_bg; border-radius: 4px;
    padding: 2px 6px; }
QComboBox[fixed="true"] { background: $fixed; }
QToolButton[value] { border: 1px solid $value_border; border-radius: 3px; padding: 2px 7px;
    background: $value; }
QToolButton[value]:hover { border-color: $hover_border; }
QToolButton[value]:checked { background: $value_on; color: $on_choice;
    border-color: $value_on_border; }
QLabel#problems { background: $problems; border: 1px solid $problems_border; border-radius: 4px;
    padding: 4px; }
QLabel#problems[fixed="true"] { background: $problems_fixed; border-color: $problems_fixed_border; }
QProgressBar { border: 1px solid $value_border; border-radius: 4px; background: $progress;
    text-align: center; min-height: 18px; }
QProgressBar::chunk { background: $progress_chunk; border-radius: 3px; }
"""


def stacked(*widgets: QWidget) -> QWidget:
    """``widgets`` one above the other, no margins; the last one takes the spare height."""
    holder = QWidget()
    column = QVBoxLayout(holder)
    column.setContentsMargins(0, 0, 0, 0)
    column.setSpacing(0)
    for widget in widgets:
        column.addWidget(widget, 1 if widget is widgets[-1] else 0)
    return holder


def split_sizes(width: int) -> list[int]:
    """Widths of (case list + text, centre, labels) for a page ``width`` pixels wide."""
    # The case list gets room for its titles from a laptop screen (1366 px) up; below that
    # the image keeps the room (it stays the largest thing on screen).
    left = 240 if width < 1366 else 264 if width < 1500 else 320
    right = 380 if width < 1500 else 440
    return [left, max(300, width - left - right), right]


def summary(meta: dict[str, Any]) -> str:
    return meta_summary(meta)


def short_meta(meta: dict[str, Any]) -> str:
    parts = [str(meta[k]) for k in ("modality", "acquisition") if meta.get(k)]
    text = " ".join(dict.fromkeys(parts))  # "CTA CTA" -> "CTA"
    return text if len(text) <= 20 else text[:19] + "…"


class ElidedLabel(QLabel):
    """A one-line label that shortens its text with "…" instead of clipping it."""

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.full = text
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def set_full_text(self, text: str) -> None:
        self.full = text
        self.setToolTip(text)
        self._elide()

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        metrics = self.fontMetrics()
        self.setText(metrics.elidedText(self.full, Qt.TextElideMode.ElideRight, self.width()))


PROBLEM_PARTS = {  # tab -> field prefixes of the draft problems it can fix
    "Metadata": ("imaging_examinations",),
    "Steps": ("diagnostic_steps",),
    "Rubric": ("rubric_0_to_3",),
}


class ProblemNote(QLabel):
    """The draft's problems a tab can fix, re-checked on the annotator's fixes."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("problems")
        self.setWordWrap(True)
        self.hide()

    def show_problems(self, found: list[dict[str, str]], had: list[dict[str, str]]) -> None:
        if found:
            items = "".join(f"<br>• {p['message']}" for p in found)
            shown = (f"<b>Draft problems to fix ({len(found)}):</b>{items}", False, True)
        elif had:
            shown = ("<b>✓ The draft's problems here are fixed</b> (your proposal until "
                     "review).", True, True)
        else:
            shown = (self.text(), bool(self.property("fixed")), False)
        if shown == (self.text(), bool(self.property("fixed")), not self.isHidden()):
            return  # unchanged: a re-polish would lay out and repaint it for nothing
        text, fixed, visible = shown
        self.setText(text)
        self.setProperty("fixed", fixed)
        self.setVisible(visible)
        self.style().unpolish(self)
        self.style().polish(self)


def with_note(widget: QWidget) -> tuple[QWidget, ProblemNote]:
    """``widget`` under a problem note, as one widget."""
    box = QWidget()
    column = QVBoxLayout(box)
    column.setContentsMargins(6, 6, 6, 0)
    column.setSpacing(0)
    note = ProblemNote()
    column.addWidget(note)
    column.addWidget(widget, 1)
    return box, note


def scrolled(widget: QWidget) -> QScrollArea:
    area = QScrollArea()
    area.setWidgetResizable(True)
    area.setFrameShape(QFrame.Shape.NoFrame)
    area.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
    area.setWidget(widget)
    return area


class CaseHeader(QWidget):
    """Case title and state, the last save, messages, and submit/reopen."""

    submitClicked = Signal()
    """The annotator pressed Submit."""
    reopenClicked = Signal()
    """The annotator pressed Reopen."""

    def __init__(self, session: CaseSession, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.session = session
        row = QHBoxLayout(self)
        row.setContentsMargins(8, 4, 8, 4)
        self.title = ElidedLabel()
        self.title.setObjectName("caseTitle")
        self.state = QLabel()
        self.state.setObjectName("stateChip")
        self.saved = QLabel()
        self.saved.setObjectName("savedNote")
        self.error = QLabel()
        self.error.setObjectName("errorNote")
        self.error.setWordWrap(True)
        self.error.hide()
        self.undo = QToolButton()
        self.undo.setText("Undo")
        self.redo = QToolButton()
        self.redo.setText("Redo")
        self.reopen = QPushButton("Reopen")
        self.submit = QPushButton("Submit")
        self.submit.setDefault(True)
        self.submit.setToolTip("Submit the case (Ctrl+Enter)")
        self.reopen.setToolTip("Reopen the submitted case (Ctrl+Shift+R)")
        for widget in (self.title, self.state, self.saved, self.error):
            row.addWidget(widget)
        row.setStretch(0, 1)
        row.setStretch(3, 2)
        row.addWidget(self.undo)
        row.addWidget(self.redo)
        row.addWidget(self.reopen)
        row.addWidget(self.submit)
        self.submit.clicked.connect(self.submitClicked)
        self.reopen.clicked.connect(self.reopenClicked)
        self._hide_error = QTimer(self)
        self._hide_error.setSingleShot(True)
        self._hide_error.setInterval(9000)
        self._hide_error.timeout.connect(self.error.hide)

    def show_case(self, session: CaseSession) -> None:
        content = session.content
        title = content.get("case_title") or ""
        self.title.set_full_text(f"{session.case_id}  {title}")
        self.state.setText(STATE_TEXT.get(session.state, session.state))
        self.state.setProperty("state", session.state)
        self.state.style().unpolish(self.state)
        self.state.style().polish(self.state)
        submitted = session.state == "submitted"
        self.submit.setEnabled(not submitted)
        self.reopen.setVisible(submitted)

    def show_saved(self, what: str) -> None:
        self.saved.setText(f"saved {time.strftime('%H:%M:%S')}")
        self.saved.setToolTip(what)

    def show_error(self, message: str) -> None:
        """Show a refusal inline (never a modal dialog); it hides after a few seconds."""
        self.error.setText(message)
        self.error.setToolTip(message)
        self.error.show()
        self._hide_error.start()


class ViewerBar(QWidget):
    """Fit, 1:1, invert, reset window, CT presets, slice position."""

    def __init__(self, viewer: ImageViewer, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.viewer = viewer
        self.setObjectName("viewerBar")
        self.setStyleSheet(theme.css("QWidget#viewerBar { background: $viewer_bar; } "
                                     "QToolButton, QLabel { color: $viewer_text; } "
                                     "QToolButton { padding: 2px 6px; }"))
        self.setAttribute(Qt.WidgetAttribute.WA_StyledBackground, True)
        row = QHBoxLayout(self)
        row.setContentsMargins(6, 2, 6, 2)
        for text, tip, slot in (("Fit", "F", viewer.fit), ("1:1", "=", viewer.actual_size),
                                ("Invert", "I", viewer.toggle_invert),
                                ("Reset W/L", "W", viewer.reset_window)):
            button = QToolButton()
            button.setText(text)
            button.setToolTip(f"{text} ({tip})")
            button.setAutoRaise(True)
            button.clicked.connect(slot)
            row.addWidget(button)
        self.presets = QComboBox()
        self.presets.addItem("CT window...", None)
        for i, p in enumerate(CT_PRESETS, start=1):
            self.presets.addItem(f"{p.label}  (Alt+{i})", p.key)
        self.presets.activated.connect(self._preset)
        row.addWidget(self.presets)
        row.addStretch(1)
        self.hint = ElidedLabel()
        self.hint.set_full_text("drag: W/L · right-drag: pan · wheel: slices · Ctrl+wheel: zoom")
        self.hint.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
        self.hint.setToolTip("drag: window/level · right or middle drag: pan · wheel or ↑↓: "
                             "slices · Ctrl+wheel: zoom · double-click: fit")
        row.addWidget(self.hint, 1)
        viewer.sliceShown.connect(lambda _i: self.refresh())

    def _preset(self, index: int) -> None:
        key = self.presets.itemData(index)
        if key:
            self.viewer.apply_preset(key)
        self.presets.setCurrentIndex(0)

    def refresh(self) -> None:
        self.presets.setEnabled(self.viewer.is_ct())
