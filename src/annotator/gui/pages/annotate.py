"""The annotate page (the physician's workspace); see ``annotator.gui.workspace``."""

from __future__ import annotations

from PySide6.QtWidgets import QWidget

from annotator.gui.context import GuiContext
from annotator.gui.pages import MessagePage
from annotator.services import workspace
from annotator.services.users import list_users


def Page(context: GuiContext) -> QWidget:  # noqa: N802 - the page protocol's name
    """The workspace for ``context.user``, or a sentence saying why there is none."""
    if context.project is None:
        return MessagePage("Annotate", "Open a project with --project to annotate.")
    if not context.user:
        return MessagePage("Annotate", "Choose who you are first.")
    known = {u.name for u in list_users(context.project)}
    if context.user not in known:
        return MessagePage("Annotate", f"{context.user} is not a user of this project.")
    if not workspace.has_cases(context.project, context.user):
        return MessagePage("Annotate", f"{context.user} has no cases assigned to annotate. "
                        "A curator assigns cases with <tt>annotator assign</tt>.")
    from annotator.gui.workspace.page import AnnotatePage

    return AnnotatePage(context)
