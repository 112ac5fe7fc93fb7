"""Errors of the release export (each one line or a list the user can act on)."""

from __future__ import annotations

from annotator.errors import AnnotatorError


class ExportError(AnnotatorError):
    """The export cannot be written; the message names the case, file or field."""
