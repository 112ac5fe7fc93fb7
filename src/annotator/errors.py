"""Errors the user sees as one clear line (the command line prints ``str(error)``)."""

from __future__ import annotations


class AnnotatorError(Exception):
    """Base of every expected, user-facing error."""


class ProjectError(AnnotatorError):
    """The project cannot be opened or created (path, newer schema, not a project)."""


class LoginRefused(ProjectError):
    """A team store's server refused the login: no password given, or a wrong name or password
    (the server decides; the client never checks a password itself)."""


class PermissionDenied(AnnotatorError):
    """The acting user lacks the role an operation needs."""


class StateError(AnnotatorError):
    """An operation is not allowed in the current state of a case or annotation."""


class NotFound(AnnotatorError):
    """A named case, user or annotation does not exist."""


class StoreUnavailable(AnnotatorError):
    """The project's database cannot be reached (a team store whose server went away)."""


class ConflictError(AnnotatorError):
    """Somebody else changed the row since it was read (optimistic locking)."""


class ValidationError(AnnotatorError):
    """An input value is not acceptable (wrong label, malformed order, ...)."""
