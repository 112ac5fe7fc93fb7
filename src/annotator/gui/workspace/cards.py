"""What the strip shows for an exam, and how an exam's images become viewer slices.

Plain functions over a case's view (no widgets), so the page stays a composition.
"""

from __future__ import annotations

from typing import Any

from PySide6.QtGui import QImage

from annotator.domain.labels import label_key
from annotator.gui.workspace.exam_strip import ExamCard
from annotator.gui.workspace.viewer import Slice
from annotator.imaging.render import default_frame_index
from annotator.services import draft_fixes, order_board
from annotator.services.annotating import AnnotationView
from annotator.store.image_record import ImageRecord


def series_of(images: list[ImageRecord]) -> tuple[list[Slice], int]:
    """An exam's slices (every frame of every image) and the slice to start on."""
    slices: list[Slice] = [(ref, frame) for ref in images for frame in range(ref.frames)]
    if not images:
        return slices, 0
    if len(images) > 2 and all(r.frames == 1 and r.media_type == "application/dicom"
                               for r in images):
        return slices, len(slices) // 2  # a DICOM series: start in the middle, like PACS
    return slices, default_frame_index(images[0].frames)


def view_card(
    view: AnnotationView | None, labels: dict[str, Any], figure: str, refs: list[ImageRecord],
    thumbnail: QImage | None,
) -> ExamCard:
    """The card of one exam of ``view`` with ``labels`` (a case open, or read ahead)."""
    suggestions = view.suggestions if view else {}
    content = view.content if view else {}
    entry = labels.get(label_key("importance", figure))
    importance = entry.get("value") if isinstance(entry, dict) else None
    board = order_board.board(labels, view.figures if view else [], suggestions)
    stage = board.stage_of(figure)
    placed = "unranked" if figure in board.unranked else (f"stage {stage}" if stage else "")
    caption = draft_fixes.effective(content, labels, label_key("caption", figure))
    return ExamCard(
        figure=figure,
        meta=draft_fixes.effective_meta(content, labels, figure),
        caption=str(caption or ""),
        importance=importance,
        suggested=None if importance else suggestions.get(label_key("importance", figure)),
        stage=placed,
        meta_ok=labels.get(label_key("meta_ok", figure)),
        warnings=draft_fixes.meta_warnings(content, labels, figure),
        red_flag=str(labels.get(label_key("red_flag", figure), "")),
        thumbnail=thumbnail,
        images=len(refs),
    )
