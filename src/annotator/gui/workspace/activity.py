"""Measured active time on the Annotate page: stored on the case (its ``active_seconds``
label) by :class:`~annotator.gui.workspace.session.CaseSession`."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from annotator.gui.activity import FLUSH_EVERY_MS, ItemActivity
from annotator.gui.workspace.session import CaseSession

__all__ = ["FLUSH_EVERY_MS", "ActivityTracker"]


class ActivityTracker(ItemActivity):
    """Active time per case of the annotator's session."""

    def __init__(self, page: QWidget, session: CaseSession) -> None:
        super().__init__(page, lambda: session.case_id, session.add_active_time)
        self.session = session
