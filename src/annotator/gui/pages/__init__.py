"""One module per page of the main window, each exposing ``Page(context)``."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget


class MessagePage(QWidget):
    """A page that says, in a heading and a sentence, why it has nothing else to show."""

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        heading = QLabel(f"<h2>{title}</h2>")
        body = QLabel(text)
        body.setWordWrap(True)
        layout.addWidget(heading)
        layout.addWidget(body)
        layout.addStretch(1)
