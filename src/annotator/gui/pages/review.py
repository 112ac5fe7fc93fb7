"""The meta-review page (adjudication); see ``annotator.gui.adjudication``."""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QVBoxLayout, QWidget

from annotator.gui.context import GuiContext


def _message(text: str) -> QWidget:
    page = QWidget()
    layout = QVBoxLayout(page)
    label = QLabel(text)
    label.setWordWrap(True)
    layout.addWidget(label)
    layout.addStretch(1)
    return page


def Page(context: GuiContext) -> QWidget:  # noqa: N802 - the page protocol's name
    """The review page for ``context.user``, or a sentence saying why there is none."""
    if context.project is None:
        return _message("<h2>Meta-review</h2>Open a project with --project to review it.")
    from annotator.gui.adjudication.page import ReviewPage

    return ReviewPage(context)
