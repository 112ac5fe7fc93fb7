"""The user's app preferences that are not colours or sizes (see ``theme`` for those),
kept in the user's settings on this machine."""

from __future__ import annotations

from PySide6.QtCore import QSettings

NEXT_AFTER_SUBMIT = "annotate/next_after_submit"


def next_after_submit() -> bool:
    """After a submit, go on to the next open case (on unless the user turned it off)."""
    value = QSettings().value(NEXT_AFTER_SUBMIT, True)
    return value not in (False, "false", "0", 0)


def set_next_after_submit(on: bool) -> None:
    QSettings().setValue(NEXT_AFTER_SUBMIT, on)
