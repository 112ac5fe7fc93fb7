"""Which side of the round trip a project is: the curator's, or an annotator's offline copy.

An offline project carries the curator's project id (so its packages are recognised) and a
marker setting naming its annotator, the bundle it came from and its own ``source_id``
(which orders the packages it writes). Bundling and importing packages are refused there;
packaging is refused in the curator's project.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from annotator.errors import StateError
from annotator.store.project import Project
from annotator.store.settings import OFFLINE_PROJECT


@dataclass(frozen=True)
class OfflineInfo:
    """The marker of an annotator's offline project (written by unbundle)."""

    annotator: str
    bundle_id: uuid.UUID
    source_id: uuid.UUID
    bundle_created_at: datetime
    unbundled_at: datetime

    def to_json(self) -> dict[str, str]:
        return {
            "annotator": self.annotator,
            "bundle_id": str(self.bundle_id),
            "source_id": str(self.source_id),
            "bundle_created_at": self.bundle_created_at.isoformat(),
            "unbundled_at": self.unbundled_at.isoformat(),
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> OfflineInfo:
        return cls(
            annotator=str(data["annotator"]),
            bundle_id=uuid.UUID(str(data["bundle_id"])),
            source_id=uuid.UUID(str(data["source_id"])),
            bundle_created_at=datetime.fromisoformat(str(data["bundle_created_at"])),
            unbundled_at=datetime.fromisoformat(str(data["unbundled_at"])),
        )


def offline_info(project: Project) -> OfflineInfo | None:
    """The offline marker, or None for a curator's (or team) project."""
    data = project.setting(OFFLINE_PROJECT)
    return OfflineInfo.from_json(data) if isinstance(data, dict) else None


def is_offline_project(project: Project) -> bool:
    """True for a project made by ``unbundle`` (the annotation workspace's "Send my work")."""
    return offline_info(project) is not None


def require_curator_side(project: Project, doing: str) -> None:
    """Refuse ``doing`` in an annotator's offline project."""
    info = offline_info(project)
    if info is not None:
        raise StateError(
            f"{doing} is done in the curator's project; this is {info.annotator}'s offline "
            "project (made from a work bundle)"
        )


def require_offline_side(project: Project) -> OfflineInfo:
    """The marker, or StateError when the project is not an annotator's offline project."""
    info = offline_info(project)
    if info is None:
        raise StateError(
            "packages are written from an annotator's offline project (made by 'unbundle'); "
            "this is not one"
        )
    return info
