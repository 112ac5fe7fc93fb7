"""What the round trip needs from the window around it and from its controller.

Protocols, not the classes: the main window builds the round-trip controller and the
controller builds "Send my work", so naming the concrete classes here would make each
module import the one that imports it (an import cycle, if only for type checking).
"""

from __future__ import annotations

from typing import Protocol

from PySide6.QtGui import QAction
from PySide6.QtWidgets import QStatusBar, QWidget

from annotator.gui.actions import ActionRegistry
from annotator.gui.context import GuiContext
from annotator.store.project import Project


class RoundTripWindow(Protocol):
    """The main window (a QWidget: dialogs open over it)."""

    context: GuiContext
    registry: ActionRegistry

    @property
    def pages(self) -> list[QWidget]: ...
    def statusBar(self) -> QStatusBar: ...  # noqa: N802 - Qt's name
    def isVisible(self) -> bool: ...  # noqa: N802 - Qt's name
    def switch_project(self, project: Project, user: str | None, page_id: str = ...) -> None: ...


class RoundTripOwner(Protocol):
    """The round-trip controller, as "Send my work" uses it."""

    window: RoundTripWindow
    actions: dict[str, QAction]

    def say(self, text: str, error: bool = False) -> None: ...
