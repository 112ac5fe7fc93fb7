"""What every page receives: the open project, who is using the app, the shared actions."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtWidgets import QWidget

from annotator.gui.actions import ActionRegistry
from annotator.store.project import Project


@dataclass
class GuiContext:
    project: Project | None
    user: str | None
    actions: ActionRegistry | None = field(default=None)
    case_id: str | None = None  # a case to open first (command line --case)
    # The user's roles: set by the main window; None until known (read from the project
    # when a page asks, see ``permits.roles``).
    roles: list[str] | None = None

    def registry_for(self, page: QWidget) -> ActionRegistry:
        """The window's action registry; a page built on its own (tests) gets one of its own."""
        if self.actions is None:
            self.actions = ActionRegistry(page)
        return self.actions
