"""Small layout builders the pages share."""

from __future__ import annotations

from PySide6.QtWidgets import QVBoxLayout, QWidget

Part = QWidget | tuple[QWidget, int]
"""A widget, or (widget, stretch factor)."""


def column_widget(*parts: Part, margin: int = 0) -> QWidget:
    """A widget holding ``parts`` top to bottom, ``margin`` px inside each edge."""
    holder = QWidget()
    box = QVBoxLayout(holder)
    box.setContentsMargins(margin, margin, margin, margin)
    for part in parts:
        widget, stretch = part if isinstance(part, tuple) else (part, 0)
        box.addWidget(widget, stretch)
    return holder
