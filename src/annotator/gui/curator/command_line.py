"""The command line that does what a curator's dialog does, shown in the dialog to copy.

Text only: the dialog and the command call the same service, so the command is the
dialog's values written as ``annotator`` arguments (a password in a URL is left out).
"""

from __future__ import annotations

import shlex
from urllib.parse import urlsplit, urlunsplit

from annotator.gui.context import GuiContext


def shown_location(location: str) -> str:
    """A project folder as it is; a database URL without its password."""
    parts = urlsplit(location)
    if not parts.scheme.startswith("postgresql") or parts.password is None:
        return location
    netloc = parts.netloc.replace(f":{parts.password}@", "@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


def command_line(context: GuiContext, argv: list[str], location: str | None = None) -> str:
    """``annotator --project P [--as USER] ARGV...``, quoted for a POSIX shell."""
    where = location if location is not None else (
        context.project.location if context.project is not None else "PROJECT")
    words = ["annotator", "--project", shown_location(where)]
    if context.user:
        words += ["--as", context.user]
    return shlex.join(words + argv)
