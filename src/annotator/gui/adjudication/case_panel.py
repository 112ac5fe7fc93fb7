"""The case at hand on the right: the exam in question, every exam, notes and the case text.

Images arrive from a worker as PNG thumbnails (``set_images``); the panel never decodes.
"""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import QSize, Qt
from PySide6.QtGui import QIcon, QPixmap
from PySide6.QtWidgets import (
    QLabel,
    QListView,
    QListWidget,
    QListWidgetItem,
    QSizePolicy,
    QSplitter,
    QTabWidget,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from annotator.gui import theme
from annotator.review.notes import Note
from annotator.services.review.view import CaseDetail

STRIP_ICON = 88


def notes_html(notes: dict[str, list[Note]]) -> str:
    """Every reviewer's notes under their letter (shown even when nothing conflicts)."""
    parts = []
    for letter, found in notes.items():
        parts.append(f"<h4>Reviewer {letter}</h4>")
        if not found:
            parts.append(f"<p>{theme.span('text_dim', 'no comments, flags or notes')}</p>")
            continue
        rows = "".join(
            f"<li><b>{html.escape(n.kind)}</b> ({html.escape(n.where)}): {html.escape(n.text)}</li>"
            for n in found
        )
        parts.append(f"<ul>{rows}</ul>")
    return "".join(parts) or "<p>No submitted annotations.</p>"


def case_html(release: dict[str, Any]) -> str:
    """The case as the release would carry it (final values applied)."""
    e = html.escape
    out = [
        f"<h3>{e(str(release.get('case_title') or release.get('case_id')))}</h3>",
        f"<p><b>History.</b> {e(str(release.get('clinical_history') or ''))}</p>",
        f"<p><b>Final diagnosis.</b> {e(str(release.get('final_diagnosis') or ''))}</p>",
        f"<p><b>Difficulty</b> {e(str(release.get('difficulty')))} · "
        f"<b>rarity</b> {e(str(release.get('rarity')))}</p>",
    ]
    steps = {s.get("source"): s for s in release.get("diagnostic_steps") or []}
    for exam in release.get("imaging_examinations") or []:
        figure = str(exam.get("figure"))
        meta = exam.get("meta_info") or {}
        summary = ", ".join(f"{k}: {v}" for k, v in meta.items() if v not in (None, ""))
        importance = (steps.get(figure) or {}).get("essential", "—")
        out.append(
            f"<p><b>{e(figure)}</b> · stage {exam.get('preferred_order')} · {e(str(importance))}"
            f"<br>{e(summary)}<br><i>{e(str(exam.get('image_caption') or ''))}</i></p>"
        )
    for part, rubric in (release.get("rubric_0_to_3") or {}).items():
        if not isinstance(rubric, dict):
            continue
        ref = rubric.get("reference_answer")
        ref_text = "; ".join(f"{k}: {v}" for k, v in ref.items()) if isinstance(ref, dict) else ref
        levels = "".join(
            f"<li>{lv}: {e(str(rubric.get(lv, '')))}</li>" for lv in ("3", "2", "1", "0")
        )
        out.append(f"<p><b>{e(part)} rubric</b> · {e(str(ref_text))}</p><ul>{levels}</ul>")
    return "".join(out)


class CasePanel(QSplitter):
    """Preview of the exam in question, a strip of all exams, and Notes / Case tabs."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(Qt.Orientation.Vertical, parent)
        self.pixmaps: dict[str, QPixmap] = {}  # figure -> first image
        self.captions: dict[str, str] = {}
        top = QWidget()
        box = QVBoxLayout(top)
        box.setContentsMargins(0, 0, 0, 0)
        self.preview = QLabel("Images load…")
        self.preview.setAlignment(Qt.AlignmentFlag.AlignCenter)
        self.preview.setMinimumHeight(160)
        # Ignored: the scaled pixmap must never make the label (and the window) grow.
        self.preview.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Ignored)
        self.preview.setStyleSheet(theme.css("background: $viewer; color: $viewer_text"))
        self.preview_caption = QLabel("")
        self.preview_caption.setWordWrap(True)
        self.strip = QListWidget()
        self.strip.setViewMode(QListView.ViewMode.IconMode)
        self.strip.setFlow(QListView.Flow.LeftToRight)
        self.strip.setWrapping(False)
        self.strip.setIconSize(QSize(STRIP_ICON, STRIP_ICON))
        self.strip.setGridSize(QSize(STRIP_ICON + 16, STRIP_ICON + 26))
        self.strip.setMovement(QListView.Movement.Static)
        self.strip.setFixedHeight(STRIP_ICON + 46)
        self.strip.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.strip.currentItemChanged.connect(self._strip_changed)
        box.addWidget(self.preview, 1)
        box.addWidget(self.preview_caption)
        box.addWidget(self.strip)
        self.tabs = QTabWidget()
        self.tabs.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        self.notes = QTextBrowser()
        self.case = QTextBrowser()
        self.tabs.addTab(self.notes, "Notes")
        self.tabs.addTab(self.case, "Case")
        self.addWidget(top)
        self.addWidget(self.tabs)
        self.setStretchFactor(0, 3)
        self.setStretchFactor(1, 2)
        self.figure: str | None = None

    def show_case(self, detail: CaseDetail) -> None:
        self.pixmaps, self.captions = {}, {}
        self.strip.clear()
        self.preview.setPixmap(QPixmap())
        self.preview.setText("Images load…")
        self.preview_caption.setText("")
        count = sum(len(n) for n in detail.notes.values())
        self.tabs.setTabText(0, f"Notes ({count})")
        self.notes.setHtml(notes_html(detail.notes))
        self.case.setHtml(case_html(detail.release))
        for exam in detail.release.get("imaging_examinations") or []:
            figure = str(exam.get("figure"))
            item = QListWidgetItem(figure)
            item.setData(Qt.ItemDataRole.UserRole, figure)
            self.strip.addItem(item)
            self.captions[figure] = str(exam.get("image_caption") or "")
        self.figure = None

    def set_images(self, images: list[tuple[str, bytes]]) -> None:
        """First-image PNG thumbnails per figure, from the worker."""
        for figure, png in images:
            if figure in self.pixmaps:
                continue
            pixmap = QPixmap()
            pixmap.loadFromData(png, "PNG")
            self.pixmaps[figure] = pixmap
        for row in range(self.strip.count()):
            item = self.strip.item(row)
            figure = str(item.data(Qt.ItemDataRole.UserRole))
            if figure in self.pixmaps:
                item.setIcon(QIcon(self.pixmaps[figure]))
        self.focus_figure(self.figure or next(iter(self.captions), None))

    def focus_figure(self, figure: str | None) -> None:
        """Show ``figure`` large (the exam the current item is about)."""
        if figure is None:
            return
        self.figure = figure
        for row in range(self.strip.count()):
            item = self.strip.item(row)
            if item.data(Qt.ItemDataRole.UserRole) == figure:
                self.strip.blockSignals(True)
                self.strip.setCurrentRow(row)
                self.strip.blockSignals(False)
        pixmap = self.pixmaps.get(figure)
        if pixmap is not None and not pixmap.isNull():
            size = self.preview.size()
            self.preview.setPixmap(
                pixmap.scaled(
                    size,
                    Qt.AspectRatioMode.KeepAspectRatio,
                    Qt.TransformationMode.SmoothTransformation,
                )
            )
        caption = html.escape(self.captions.get(figure, ""))
        self.preview_caption.setText(f"<b>{html.escape(figure)}</b> {caption}")

    def _strip_changed(self, item: QListWidgetItem | None, _previous: Any) -> None:
        if item is not None:
            self.focus_figure(str(item.data(Qt.ItemDataRole.UserRole)))

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 - Qt's name
        super().resizeEvent(event)
        if self.figure is not None:
            self.focus_figure(self.figure)
