"""What every page receives: the open project, who is using the app, the shared actions."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from annotator.store.project import Project

if TYPE_CHECKING:
    from annotator.gui.actions import ActionRegistry


@dataclass
class GuiContext:
    project: Project | None
    user: str | None
    actions: ActionRegistry | None = field(default=None)
    case_id: str | None = None  # a case to open first (command line --case)
    # The user's roles: set by the main window; None until known (read from the project
    # when a page asks, see ``permits.roles``).
    roles: list[str] | None = None
