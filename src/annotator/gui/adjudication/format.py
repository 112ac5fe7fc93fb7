"""How review values read on the page: one-line texts, value cards, states and colours."""

from __future__ import annotations

import html
from typing import Any

from annotator.gui import theme
from annotator.review.conflicts import item_label
from annotator.review.order_board import board_text
from annotator.review.textdiff import diff_html
from annotator.services.review.view import CaseDetail

STATE_TEXT = {
    "open": "open",
    "decided": "decided",
    "overridden": "overridden",
    "moot": "moot",
    "auto_resolved": "agreed",
}
STATE_COLOUR = {  # the theme's colour role of each state
    "open": "open",
    "decided": "decided",
    "overridden": "overridden",
    "moot": "moot",
    "auto_resolved": "agreed",
}
CASE_MARK = {"in_review": "●", "green_lit": "★", "excluded": "✕", "annotating": "…"}


def is_board(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and bool(value)
        and all(v is None or type(v) is int for v in value.values())
    )


def one_line(value: Any, width: int = 48) -> str:
    """A value in one line for tables and the queue."""
    if value is None:
        return "—"
    if is_board(value):
        text = board_text(value)
    elif isinstance(value, dict) and "reason_code" in value:
        text = f"discard: {str(value['reason_code']).replace('_', ' ')}"
    else:
        text = str(value).replace("_", " ") if not isinstance(value, str) else value
    text = " ".join(text.split())
    return text if len(text) <= width else text[: width - 1] + "…"


def board_html(board: dict[str, int | None], reference: dict[str, int | None] | None) -> str:
    """A board as a small table of stages; stages that differ from ``reference`` in bold."""
    rows = sorted(board.items(), key=lambda kv: (kv[1] is None, kv[1] or 0, kv[0]))
    cells = []
    for figure, stage in rows:
        shown = "unranked" if stage is None else f"stage {stage}"
        differs = reference is not None and reference.get(figure) != stage
        style = f' style="color:{theme.colour("open")};font-weight:bold"' if differs else ""
        cells.append(f"<tr><td>{html.escape(figure)}</td><td{style}>{shown}</td></tr>")
    return f"<p>{html.escape(board_text(board))}</p><table>{''.join(cells)}</table>"


def value_html(value: Any, reference: Any = None) -> str:
    """A value card's body; text shows a word diff against ``reference`` (Reviewer A)."""
    if value is None:
        return "<i>not set / keep the case</i>"
    if is_board(value):
        return board_html(value, reference if is_board(reference) else None)
    if isinstance(value, dict) and "reason_code" in value:
        text = str(value.get("text") or "")
        reason = html.escape(str(value["reason_code"]).replace("_", " "))
        return f"<b>discard</b>: {reason}" + (f"<br>{html.escape(text)}" if text else "")
    if isinstance(value, str) and isinstance(reference, str) and reference != value:
        return diff_html(reference, value)
    text = html.escape(str(value).replace("_", " "))
    return f"<b>{text}</b>" if len(text) <= 40 else text  # a label stands out; prose reads


def banner_html(detail: CaseDetail) -> str:
    """Why the case is not green yet (every blocker), or that it is ready or decided."""
    if detail.state == "green_lit":
        return theme.span("success", f"★ Green-lit by {detail.green_lit_by}.")
    if detail.state == "excluded":
        return theme.span("text_dim", f"Excluded: {detail.state_reason}")
    if not detail.blockers:
        return theme.span("success", "Ready for the green light (G).")
    prefix = "open conflict: "
    readable = [
        prefix + item_label(b[len(prefix) :]) if b.startswith(prefix) else b
        for b in detail.blockers
    ]
    shown = "; ".join(readable[:4])
    more = f" (+{len(detail.blockers) - 4} more)" if len(detail.blockers) > 4 else ""
    return theme.span("warning", f"Not green yet: {shown}{more}")
