"""The edit dialog for an item: a board, a choice, or a text with the reviewers' word diff."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QDialog, QWidget

from annotator.domain.labels import DISCARD_REASONS, split_key
from annotator.domain.vocabulary import suggestions
from annotator.gui.adjudication.editors import BoardDialog, ChoiceDialog, TextDialog
from annotator.gui.adjudication.format import is_board
from annotator.review.disagreement import SCALES
from annotator.review.order_board import merge_boards
from annotator.review.textdiff import diff_html
from annotator.services.review.queue import QueueItem
from annotator.services.review.view import CaseDetail


def edit_dialog(
    item: QueueItem, detail: CaseDetail, start: Any, parent: QWidget | None
) -> tuple[QDialog, Callable[[], Any]]:
    """The dialog that edits ``item`` starting from ``start``, and how to read its value.

    An order starts from the merge of the reviewers' boards (the pairs they agree on), a
    label from the current choice, a text from Reviewer A's text.
    """
    values = [item.values[x] for x in detail.letters if x in item.values]
    family, rest = split_key(item.key)
    dialog: Any
    if family == "order":
        boards = {x: v for x, v in item.values.items() if is_board(v)}
        begin = start if is_board(start) else merge_boards(list(boards.values()))
        dialog = BoardDialog(detail.figures, boards, begin, parent)
    elif family in SCALES:
        options = [(v.replace("_", " "), v) for v in SCALES[family]]
        dialog = ChoiceDialog(f"Decide {item.label}", options, start or values[0], parent)
    elif family == "discard":
        options = [("keep the case (not discarded)", None)] + [
            (f"discard: {r.replace('_', ' ')}", {"reason_code": r, "text": ""})
            for r in DISCARD_REASONS
        ]
        dialog = ChoiceDialog("Decide the discard", options, start, parent)
    else:
        texts = [v for v in values if isinstance(v, str)]
        diff = diff_html(texts[0], texts[1]) if len(texts) > 1 else ""
        field = rest.rpartition("/")[2]
        choices = suggestions(field) if family == "meta" else None
        text = start if isinstance(start, str) else (texts[0] if texts else "")
        dialog = TextDialog(f"Edit {item.label}", text, parent, diff, choices)
    if isinstance(dialog, BoardDialog):
        board = dialog
        return dialog, lambda: board.board
    return dialog, lambda: dialog.value
