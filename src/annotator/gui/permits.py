"""Widgets for actions a role may not take: disabled, with a tooltip naming the role.

The rule itself is the core's (:mod:`annotator.domain.permissions`); this module only shows
its answer, so an annotator never types work that the service would refuse afterwards.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLineEdit, QPlainTextEdit, QWidget

from annotator.domain.permissions import Action, may, refusal
from annotator.gui.context import GuiContext


def roles(context: GuiContext) -> list[str]:
    """The user's roles, read from the project once if the window did not say them."""
    if context.roles is None:
        from annotator.services.users import roles_of

        project = context.project
        context.roles = roles_of(project, context.user) if project is not None else []
    return context.roles


def why_not(context: GuiContext, action: Action) -> str | None:
    """None when the user may take ``action``, else the sentence that says which role it needs."""
    if may(roles(context), action):
        return None
    text = refusal(action, context.user or "nobody")
    return text[:1].upper() + text[1:] + "."


def guard(context: GuiContext, action: Action, *widgets: QWidget) -> bool:
    """Disable ``widgets`` (editors become read-only) when the user may not take ``action``."""
    reason = why_not(context, action)
    for widget in widgets:
        if reason is None:
            continue
        if isinstance(widget, QLineEdit | QPlainTextEdit):
            widget.setReadOnly(True)
        else:
            widget.setEnabled(False)
        widget.setToolTip(reason)
    return reason is None
