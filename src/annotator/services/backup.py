"""Backing up the project: a curator's act (``domain.permissions``), a consistent copy."""

from __future__ import annotations

from pathlib import Path

from annotator.domain.permissions import Action
from annotator.services.users import require
from annotator.store.project import Project, backup_to


def backup_project(project: Project, actor: str, target: Path) -> Path:
    """Write a consistent copy of the project's database to ``target`` (see ``backup_to``)."""
    with project.read() as session:
        require(session, actor, Action.BACKUP)
    return backup_to(project, target)
