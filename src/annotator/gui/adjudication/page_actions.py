"""Connecting the review page's actions (``keymap``) to what they do.

Every action goes through the shared ActionRegistry, so the shortcut sheet, conflict
detection and rebinding see all of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from PySide6.QtGui import QAction

from annotator.gui.adjudication.decision_panel import DecisionPanel, ItemsTable
from annotator.gui.adjudication.keymap import PICK_LETTERS, REASON_KEYS, REVIEW_ACTIONS
from annotator.gui.adjudication.queue_panel import QueuePanel
from annotator.gui.context import GuiContext


class ReviewPage(Protocol):
    """What the actions reach on the review page (a QWidget: the actions are created on it).

    A protocol, not the page class, so this module does not import the page that imports it.
    """

    context: GuiContext
    panel: DecisionPanel
    table: ItemsTable
    queue: QueuePanel

    def addAction(self, action: QAction) -> None: ...  # noqa: N802 - Qt's name
    def pick(self, letter: str) -> None: ...
    def edit(self) -> None: ...
    def confirm(self) -> None: ...
    def reopen(self) -> None: ...
    def green_light(self) -> None: ...
    def exclude(self) -> None: ...
    def refresh(self, keep: str | None = None, keep_key: str | None = None) -> None: ...
    def bulk_green(self) -> None: ...
    def bulk_optional(self) -> None: ...


def register_actions(page: ReviewPage) -> None:
    """Create the page's actions in the registry (page context: they fire on this page)."""
    registry = page.context.registry_for(page)
    table: dict[str, Callable[[], None]] = {
        # *_ swallows QAction.triggered's "checked" argument.
        **{f"review.pick.{x}": (lambda *_, x=x: page.pick(x)) for x in PICK_LETTERS},
        **{
            f"review.reason.{n}": (lambda *_, n=n: page.panel.choose_reason(n - 1))
            for n in range(1, REASON_KEYS + 1)
        },
        "review.edit": page.edit,
        "review.text": lambda: page.panel.text.setFocus(),
        "review.confirm": page.confirm,
        "review.confirm.keypad": page.confirm,
        "review.reopen": page.reopen,
        "review.green_light": page.green_light,
        "review.exclude": page.exclude,
        "review.history": page.show_history,
        "review.item.next": lambda: page.table.step(1),
        "review.item.previous": lambda: page.table.step(-1),
        "review.case.next": lambda: page.queue.step(1),
        "review.case.previous": lambda: page.queue.step(-1),
        "review.focus.queue": lambda: page.queue.list.setFocus(),
        "review.refresh": lambda: page.refresh(),
        "review.bulk.green_light": page.bulk_green,
        "review.bulk.optional": page.bulk_optional,
    }
    for spec in REVIEW_ACTIONS:
        registry.register(spec, table[spec.id], page, page="review")
