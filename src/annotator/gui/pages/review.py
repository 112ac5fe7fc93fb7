"""The meta-review page (adjudication); see ``annotator.gui.adjudication``."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from annotator.gui.context import GuiContext
from annotator.gui.pages import MessagePage


def Page(context: GuiContext) -> QWidget:  # noqa: N802 - the page protocol's name
    """The review page for ``context.user``, or a sentence saying why there is none."""
    if context.project is None:
        return MessagePage("Meta-review", "Open a project with --project to review it.")
    from annotator.gui.adjudication.page import ReviewPage

    return ReviewPage(context)
