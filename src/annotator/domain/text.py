"""Text that every store can keep: bounded length, no NUL or other control characters.

SQLite stores anything, PostgreSQL refuses a NUL byte in text and a value longer than its
column; the same limits apply on both, in the models that read files, so a file that would
crash the team store is refused with a reason on a laptop too.
"""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import AfterValidator, StringConstraints

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def printable(value: str) -> str:
    """``value`` unchanged, or ValueError when it holds a NUL or another control character."""
    found = _CONTROL.search(value)
    if found:
        raise ValueError(f"contains the control character U+{ord(found.group()):04X}")
    return value


# Column widths of the store (store/schema.py): ids and names 200, label keys 300.
Name = Annotated[str, StringConstraints(max_length=200), AfterValidator(printable)]
LabelKey = Annotated[str, StringConstraints(max_length=300), AfterValidator(printable)]
Word = Annotated[str, StringConstraints(max_length=50), AfterValidator(printable)]
