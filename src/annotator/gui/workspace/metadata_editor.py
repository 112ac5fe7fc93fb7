"""Fixing an exam's metadata and caption, with the DICOM header's values beside the draft's.

Each field offers the spellings the scoring core's matcher understands; what the matcher
would misread in the current values is listed in red under the fields. Rules (removing a
fix equal to the draft, marking the metadata as not correct) live in ``draft_fixes``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)

from annotator.domain.labels import META_FIELDS, LabelEdit, label_key
from annotator.domain.vocabulary import suggestions
from annotator.gui.workspace.autosave import TextBinding
from annotator.gui.workspace.session import CaseSession
from annotator.review.items import draft_value
from annotator.services import draft_fixes
from annotator.store.image_record import ImageRecord

FIELD_TEXT = {
    "modality": "Modality",
    "acquisition": "Acquisition",
    "view": "View",
    "imaged_region": "Imaged region",
    "contrast": "Contrast",
    "time_past": "Time past",
}


def _shown(value: Any) -> str:
    return "" if value is None else str(value)


class MetadataEditor(QWidget):
    """Metadata fields and caption of the current exam."""

    def __init__(
        self,
        session: CaseSession,
        exam: Callable[[], str],
        images: Callable[[str], list[ImageRecord]],
        header: Callable[[str], dict[str, str] | None],
        parent: QWidget | None = None,
    ) -> None:
        super().__init__(parent)
        self.session = session
        self.exam = exam
        self.images = images  # figure -> its images
        self.header = header  # sha256 -> DICOM header values (None while being read)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(6, 6, 6, 6)
        self.heading = QLabel()
        self.heading.setWordWrap(True)
        layout.addWidget(self.heading)
        self.meta_ok = QCheckBox("The draft's metadata is correct (M)")
        self.meta_ok.clicked.connect(self._meta_ok)
        layout.addWidget(self.meta_ok)
        grid = QGridLayout()
        grid.setHorizontalSpacing(8)
        grid.setVerticalSpacing(4)
        for column, title in enumerate(("", "Your value", "Draft", "DICOM")):
            label = QLabel(f"<b>{title}</b>")
            grid.addWidget(label, 0, column)
        self.fields: dict[str, QComboBox] = {}
        self.draft_labels: dict[str, QLabel] = {}
        self.header_labels: dict[str, QLabel] = {}
        self.bindings: list[TextBinding] = []
        for row, field in enumerate(META_FIELDS, start=1):
            grid.addWidget(QLabel(FIELD_TEXT[field]), row, 0)
            combo = QComboBox()
            combo.setEditable(True)
            combo.setInsertPolicy(QComboBox.InsertPolicy.NoInsert)
            combo.addItems(suggestions(field))
            combo.setObjectName(f"meta_{field}")
            combo.setToolTip(
                "spellings the scoring core's matcher understands: "
                + (", ".join(suggestions(field)) or "a number: >0 prior, <0 follow-up")
            )
            combo.setMinimumContentsLength(6)
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            self.fields[field] = combo
            grid.addWidget(combo, row, 1)
            self.draft_labels[field] = QLabel()
            self.header_labels[field] = QLabel()
            for label in (self.draft_labels[field], self.header_labels[field]):
                label.setObjectName("dim")
                label.setWordWrap(True)
                label.setMaximumWidth(110)
            grid.addWidget(self.draft_labels[field], row, 2)
            grid.addWidget(self.header_labels[field], row, 3)
            self.bindings.append(self._bind(combo, field))
        grid.setColumnStretch(1, 1)
        layout.addLayout(grid)
        self.warnings = QLabel()
        self.warnings.setObjectName("warning")
        self.warnings.setWordWrap(True)
        layout.addWidget(self.warnings)
        layout.addWidget(QLabel("<b>Image caption</b> (the matcher reads it)"))
        self.caption = QPlainTextEdit()
        self.caption.setObjectName("caption")
        self.caption.setFixedHeight(70)
        layout.addWidget(self.caption)
        self.caption_draft = QLabel()
        self.caption_draft.setObjectName("dim")
        self.caption_draft.setWordWrap(True)
        layout.addWidget(self.caption_draft)
        s = session
        self.bindings.append(TextBinding(
            s, self.caption, lambda: label_key("caption", exam()),
            lambda t: draft_fixes.caption_edits(s.content, exam(), t),
            lambda: _shown(
                draft_fixes.effective(s.content, s.labels, label_key("caption", exam()))
            ),
            lambda: f"caption of {exam()}",
        ))
        layout.addStretch(1)

    def _bind(self, combo: QComboBox, field: str) -> TextBinding:
        s, exam = self.session, self.exam

        def key() -> str:
            return label_key("meta", f"{exam()}/{field}")

        return TextBinding(
            s, combo, key,
            lambda t: draft_fixes.meta_edits(s.content, s.labels, exam(), field, t),
            lambda: _shown(draft_fixes.effective(s.content, s.labels, key())),
            lambda: f"{FIELD_TEXT[field].lower()} of {exam()}",
        )

    def _meta_ok(self, on: bool) -> None:
        figure = self.exam()
        self.session.apply(
            [LabelEdit(label_key("meta_ok", figure), bool(on))],
            f"metadata of {figure} {'correct' if on else 'not correct'}",
        )

    def header_values(self, figure: str) -> dict[str, Any] | None:
        """Header values of the exam's first DICOM image: {} for PNG/JPEG exams, None while
        the header is being read."""
        for ref in self.images(figure):
            if ref.media_type == "application/dicom":
                return self.header(ref.sha256)
        return {}

    def refresh(self) -> None:
        s, figure = self.session, self.exam()
        self.heading.setText(f"<b>{figure}</b>: fix what the draft got wrong; a fix is your "
                             "proposal until review.")
        header = self.header_values(figure)
        for field in META_FIELDS:
            draft = draft_value(s.content, label_key("meta", f"{figure}/{field}"))
            self.draft_labels[field].setText(_shown(draft) or "—")
            shown = "reading..." if header is None else _shown(header.get(field)) or "—"
            self.header_labels[field].setText(shown)
            fixed = label_key("meta", f"{figure}/{field}") in s.labels
            self.fields[field].setProperty("fixed", fixed)
            self.fields[field].style().unpolish(self.fields[field])
            self.fields[field].style().polish(self.fields[field])
        for binding in self.bindings:
            binding.refresh()
        blocked = self.meta_ok.blockSignals(True)
        self.meta_ok.setChecked(s.labels.get(label_key("meta_ok", figure)) is True)
        self.meta_ok.blockSignals(blocked)
        warnings = draft_fixes.meta_warnings(s.content, s.labels, figure)
        self.warnings.setText("".join(f"⚠ {w}<br>" for w in warnings))
        draft_caption = draft_value(s.content, label_key("caption", figure))
        self.caption_draft.setText(f"Draft: {_shown(draft_caption) or '—'}")
        self.setEnabled(s.editable)
