"""What every page receives: the open project and who is using the app."""

from __future__ import annotations

from dataclasses import dataclass

from annotator.services.project import Project


@dataclass
class GuiContext:
    project: Project | None
    user: str | None
