"""The labels of the current exam and of the case, with their one-key shortcuts shown.

Suggestions are printed beside each label as "draft suggests ..." and never pre-fill a
control: a label exists only when the annotator sets it or accepts the suggestion.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QButtonGroup,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from annotator.domain.labels import DIFFICULTY, DISCARD_REASONS, IMPORTANCE, RARITY, label_key
from annotator.gui import theme
from annotator.gui.workspace.autosave import TextBinding, set_widget_text
from annotator.gui.workspace.session import CaseSession
from annotator.services import workspace
from annotator.services.order_board import board as make_board

REASON_TEXT = {
    "image_quality": "Image quality too poor",
    "missing_images": "Images missing",
    "diagnosis_not_imaging_based": "Diagnosis not imaging-based",
    "leakage": "Answer leaks into the text",
    "duplicate": "Duplicate case",
    "not_neuroradiology": "Not neuroradiology",
    "other": "Other (say why)",
}
KEYS = {"essential": "E", "optional": "O", "unnecessary": "U"}


def _words(value: str) -> str:
    return value.replace("_", " ")


def choice_row(values: tuple[str, ...], keys: dict[str, str]) -> tuple[QWidget, QButtonGroup]:
    """Exclusive toggle buttons, one per value, each showing its key."""
    box = QWidget()
    row = QHBoxLayout(box)
    row.setContentsMargins(0, 0, 0, 0)
    row.setSpacing(4)
    group = QButtonGroup(box)
    group.setExclusive(True)
    for value in values:
        button = QToolButton()
        key = keys.get(value)
        button.setText(_words(value))
        if key:
            button.setToolTip(f"{_words(value)} ({key})")
        button.setCheckable(True)
        button.setProperty("value", value)
        button.setObjectName(f"choice_{value}")
        row.addWidget(button)
        group.addButton(button)
    row.addStretch(1)
    return box, group


def row_title(title: str, keys: str) -> QLabel:
    """A form row's title with its keys under it in small grey text."""
    dim = theme.colour("text_dim")
    label = QLabel(f"{title}<br><span style='color:{dim};font-size:8pt'>{keys}</span>")
    return label


def show_choice(group: QButtonGroup, value: str | None) -> None:
    """Check the button of ``value`` (none for None) without emitting."""
    group.setExclusive(False)
    for button in group.buttons():
        blocked = button.blockSignals(True)
        button.setChecked(button.property("value") == value)
        button.blockSignals(blocked)
    group.setExclusive(True)


class LabelsPanel(QWidget):
    """Exam labels (importance, order, metadata OK, red flag, comment) and case labels."""

    acceptExam = Signal()
    """The annotator asked to accept the current exam's suggestions."""
    acceptAll = Signal()
    """The annotator asked to accept every suggestion of the case."""

    def __init__(
        self, session: CaseSession, exam: Callable[[], str], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.exam = exam  # the current exam's figure
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        layout.setSpacing(8)

        self.exam_box = QGroupBox("Exam")
        form = QFormLayout(self.exam_box)
        form.setContentsMargins(8, 6, 8, 6)
        importance_box, self.importance = choice_row(IMPORTANCE, KEYS)
        form.addRow(row_title("Importance", "E · O · U"), importance_box)
        self.exam_suggestion, sugg_row = _suggestion_row(
            "Accept", "Accept the draft's importance and stage for this exam (A)", "acceptExam",
            self.acceptExam,
        )
        form.addRow(row_title("Draft", "A accepts"), sugg_row)
        self.stage = QLabel()
        self.stage.setWordWrap(True)
        form.addRow(row_title("Order", "1-9 · T · 0"), self.stage)
        self.meta_ok = QCheckBox("Metadata correct (M)")
        form.addRow("", self.meta_ok)
        self.red_flag = QLineEdit()
        self.red_flag.setPlaceholderText("unsafe / should not be done: why")
        form.addRow(row_title("Red flag", "X"), self.red_flag)
        self.exam_comment = QLineEdit()
        self.exam_comment.setPlaceholderText("comment on this exam")
        form.addRow("Comment", self.exam_comment)
        layout.addWidget(self.exam_box)

        case_box = QGroupBox("Case")
        self.case_box = case_box
        cform = QFormLayout(case_box)
        cform.setContentsMargins(8, 6, 8, 6)
        diff_box, self.difficulty = choice_row(DIFFICULTY, {})
        cform.addRow(row_title("Difficulty", "D cycles"), diff_box)
        rar_box, self.rarity = choice_row(RARITY, {})
        cform.addRow(row_title("Rarity", "R cycles"), rar_box)
        self.case_suggestion, row = _suggestion_row(
            "Accept all", "Accept every suggestion of the case not yet decided (Shift+A)",
            "acceptAll", self.acceptAll,
        )
        cform.addRow(row_title("Draft", "Shift+A"), row)
        self.discard = QComboBox()
        self.discard.addItem("Keep this case", None)
        for code in DISCARD_REASONS:
            self.discard.addItem(f"Discard: {REASON_TEXT.get(code, code)}", code)
        cform.addRow(row_title("Discard", "Ctrl+D"), self.discard)
        self.discard_text = QLineEdit()
        self.discard_text.setPlaceholderText("why discard (shown to the senior)")
        cform.addRow("", self.discard_text)
        self.comment = QPlainTextEdit()
        self.comment.setPlaceholderText("comment on the case")
        self.comment.setFixedHeight(54)
        cform.addRow(row_title("Comment", "C"), self.comment)
        self.demography = QLineEdit()
        self.demography.setPlaceholderText("age/sex problems in the history")
        cform.addRow("Demography", self.demography)
        self.active = QLabel()
        cform.addRow("Active time", self.active)
        layout.addWidget(case_box)
        self.missing = QLabel()
        self.missing.setObjectName("missing")
        self.missing.setWordWrap(True)
        layout.addWidget(self.missing)
        layout.addStretch(1)
        self._connect()

    # -- wiring ---------------------------------------------------------------------------

    def _connect(self) -> None:
        s = self.session
        self.importance.buttonClicked.connect(
            lambda b: self.set_label("importance", self.exam(), b.property("value"))
        )
        self.difficulty.buttonClicked.connect(
            lambda b: self.set_label("difficulty", "", b.property("value"))
        )
        self.rarity.buttonClicked.connect(
            lambda b: self.set_label("rarity", "", b.property("value"))
        )
        self.meta_ok.clicked.connect(lambda on: self.set_label("meta_ok", self.exam(), bool(on)))
        self.discard.activated.connect(lambda _i: self._discard_changed())
        fig = self.exam
        self.bindings = [
            TextBinding(s, self.red_flag, lambda: label_key("red_flag", fig()),
                        lambda t: workspace.label_edits("red_flag", fig(), t.strip() or None),
                        lambda: str(s.labels.get(label_key("red_flag", fig()), "")),
                        lambda: f"red flag of {fig()}"),
            TextBinding(s, self.exam_comment, lambda: label_key("exam_comment", fig()),
                        lambda t: workspace.label_edits("exam_comment", fig(), t.strip() or None),
                        lambda: str(s.labels.get(label_key("exam_comment", fig()), "")),
                        lambda: f"comment on {fig()}"),
            TextBinding(s, self.comment, lambda: "comment",
                        lambda t: workspace.label_edits("comment", "", t.strip() or None),
                        lambda: str(s.labels.get("comment", "")), lambda: "case comment"),
            TextBinding(s, self.demography, lambda: "demography_note",
                        lambda t: workspace.label_edits("demography_note", "", t.strip() or None),
                        lambda: str(s.labels.get("demography_note", "")),
                        lambda: "demography note"),
            TextBinding(s, self.discard_text, lambda: "discard", self._discard_edits,
                        lambda: str((s.labels.get("discard") or {}).get("text", "")),
                        lambda: "discard reason"),
        ]

    def focus_discard(self) -> None:
        self.discard.setFocus()
        self.discard.showPopup()

    def set_label(self, family: str, item: str, value: Any) -> None:
        text = f"{family.replace('_', ' ')}{' of ' + item if item else ''} → {value}"
        self.session.apply(workspace.label_edits(family, item, value), text)

    def _discard_edits(self, text: str) -> list[Any]:
        code = self.discard.currentData()
        if code is None:
            return []
        return workspace.label_edits("discard", "", {"reason_code": code, "text": text.strip()})

    def _discard_changed(self) -> None:
        code = self.discard.currentData()
        if code is None:
            self.session.apply(workspace.label_edits("discard", "", None), "keep the case")
        else:
            edits = self._discard_edits(self.discard_text.text())
            self.session.apply(edits, f"discard the case ({code})")

    # -- showing --------------------------------------------------------------------------

    def refresh(self, active_seconds: float = 0.0) -> None:
        """Show the stored labels and the draft's suggestions for the current exam and case."""
        s = self.session
        labels, figure = s.labels, self.exam()
        suggestions = s.view.suggestions if s.view is not None else {}
        self.exam_box.setTitle(f"Exam: {figure}" if figure else "Exam")
        show_choice(self.importance, _chosen(labels, label_key("importance", figure)))
        show_choice(self.difficulty, _chosen(labels, "difficulty"))
        show_choice(self.rarity, _chosen(labels, "rarity"))
        sugg_imp = suggestions.get(label_key("importance", figure))
        sugg_stage = suggestions.get(label_key("stage", figure))
        stage_text = f"stage {sugg_stage}" if sugg_stage else "unranked"
        self.exam_suggestion.setText(f"suggests {sugg_imp or 'no importance'}, {stage_text}")
        sugg_case = [f"{k} {_words(str(suggestions[k]))}" for k in ("difficulty", "rarity")
                     if k in suggestions]
        self.case_suggestion.setText("suggests " + (", ".join(sugg_case) or "nothing"))
        self.stage.setText(self._stage_text(figure))
        blocked = self.meta_ok.blockSignals(True)
        self.meta_ok.setChecked(labels.get(label_key("meta_ok", figure)) is True)
        self.meta_ok.blockSignals(blocked)
        discard = labels.get("discard")
        code = discard.get("reason_code") if isinstance(discard, dict) else None
        blocked = self.discard.blockSignals(True)
        self.discard.setCurrentIndex(max(0, self.discard.findData(code)) if code else 0)
        self.discard.blockSignals(blocked)
        self.discard_text.setEnabled(code is not None)
        for binding in self.bindings:
            binding.refresh()
        minutes, seconds = divmod(int(labels.get("active_seconds", 0) + active_seconds), 60)
        self.active.setText(f"{minutes} min {seconds:02d} s (measured)")
        missing = s.missing()
        if s.state == "submitted":
            self.missing.setText("<b>Submitted.</b> Reopen (Ctrl+Shift+R) to change it.")
        elif missing:
            shown = "<br>".join(f"• {m}" for m in missing[:4])
            extra = len(missing) - 4
            more = f"<br>• ... {extra} more (hover to see all)" if extra > 0 else ""
            self.missing.setText(f"<b>Before submitting:</b><br>{shown}{more}")
            self.missing.setToolTip("\n".join(missing))
        else:
            self.missing.setText("<b>Ready to submit</b> (Ctrl+Enter).")
        self.exam_box.setEnabled(s.editable)
        self.case_box.setEnabled(s.editable)

    def _stage_text(self, figure: str) -> str:
        s = self.session
        b = make_board(s.labels, s.figures, s.view.suggestions if s.view else {})
        if figure in b.unplaced:
            return "not placed yet: 1-9 sets the stage, T ties with the previous exam, 0 unranks"
        if figure in b.unranked:
            return "unranked (explicitly)"
        stage = b.stage_of(figure)
        tied = [f for f in b.columns[(stage or 1) - 1] if f != figure]
        return f"stage {stage}" + (f", tied with {', '.join(tied)}" if tied else "")


def _chosen(labels: dict[str, Any], key: str) -> str | None:
    entry = labels.get(key)
    return str(entry["value"]) if isinstance(entry, dict) and entry.get("value") else None


__all__ = ["LabelsPanel", "choice_row", "set_widget_text", "show_choice"]


def _suggestion_row(
    button_text: str, tooltip: str, name: str, accept: Any
) -> tuple[QLabel, QWidget]:
    """The draft's suggestion (shown apart from labels) with its explicit accept button.

    The row is a widget of its own: a form lays out a nested layout at the button's height,
    which clipped a suggestion wrapped onto two lines; a widget passes the wrapped label's
    height for its width on to the form."""
    label = QLabel()
    label.setObjectName("suggestion")
    label.setWordWrap(True)
    button = QPushButton(button_text)
    button.setToolTip(tooltip)
    button.setObjectName(name)
    button.clicked.connect(accept)
    row = QWidget()
    line = QHBoxLayout(row)
    line.setContentsMargins(0, 0, 0, 0)
    line.addWidget(label, 1)
    line.addWidget(button)
    return label, row
