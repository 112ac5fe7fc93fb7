"""The main window: one page per workflow, chosen from a sidebar.

Pages live in ``annotator.gui.pages.<id>`` and expose ``Page(context: GuiContext)``; a page
whose module is not there yet shows a placeholder that says so.
"""

from __future__ import annotations

import importlib

from PySide6.QtWidgets import (
    QHBoxLayout,
    QLabel,
    QListWidget,
    QMainWindow,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from annotator import __version__
from annotator.gui.actions import ActionRegistry
from annotator.gui.context import GuiContext

PAGES = (
    ("annotate", "Annotate"),
    ("sme", "SME review"),
    ("review", "Meta-review"),
    ("agreement", "Agreement"),
    ("export", "Export"),
)


class PlaceholderPage(QWidget):
    """A page that a later part of the app fills; says so plainly."""

    def __init__(self, title: str, text: str) -> None:
        super().__init__()
        layout = QVBoxLayout(self)
        heading = QLabel(f"<h2>{title}</h2>")
        body = QLabel(text)
        body.setWordWrap(True)
        layout.addWidget(heading)
        layout.addWidget(body)
        layout.addStretch(1)


def make_page(page_id: str, title: str, context: GuiContext) -> QWidget:
    try:
        module = importlib.import_module(f"annotator.gui.pages.{page_id}")
    except ModuleNotFoundError as exc:
        if exc.name != f"annotator.gui.pages.{page_id}":
            raise
        return PlaceholderPage(title, "This page is not built yet.")
    page: QWidget = module.Page(context)
    return page


class MainWindow(QMainWindow):
    def __init__(self, context: GuiContext) -> None:
        super().__init__()
        if context.actions is None:
            context.actions = ActionRegistry(self)
        self.context = context
        where = context.project.location if context.project else "no project"
        self.setWindowTitle(f"annotator {__version__} - {where}")
        central = QWidget()
        layout = QHBoxLayout(central)
        layout.setContentsMargins(0, 0, 0, 0)
        self.nav = QListWidget()
        self.nav.setFixedWidth(150)
        self.stack = QStackedWidget()
        self.page_ids: list[str] = []
        for page_id, title in PAGES:
            self.nav.addItem(title)
            self.stack.addWidget(make_page(page_id, title, context))
            self.page_ids.append(page_id)
        self.nav.currentRowChanged.connect(self.stack.setCurrentIndex)
        self.nav.setCurrentRow(0)
        layout.addWidget(self.nav)
        layout.addWidget(self.stack, 1)
        self.setCentralWidget(central)
        user = context.user or "nobody"
        self.statusBar().showMessage(f"Project: {where}    User: {user}")

    def show_page(self, page_id: str) -> None:
        self.nav.setCurrentRow(self.page_ids.index(page_id))

    def page(self, page_id: str) -> QWidget:
        return self.stack.widget(self.page_ids.index(page_id))
