"""Text that every store can keep: bounded length, no NUL or other control characters.

SQLite stores anything, PostgreSQL refuses a NUL byte in text and a value longer than its
column; the same limits apply on both, in the models that read files, so a file that would
crash the team store is refused with a reason on a laptop too. The pydantic field types
that apply these limits are in :mod:`annotator.domain.text_fields` (this module is read
at every start; pydantic is not needed there).
"""

from __future__ import annotations

import re

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def printable(value: str) -> str:
    """``value`` unchanged, or ValueError when it holds a NUL or another control character."""
    return _refused(_CONTROL, value)


# In a name or id a TAB or a line break is as bad as any control character: it breaks the
# tab-separated and one-line outputs that name people and cases.
_NAME_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029]")


def one_line(value: str) -> str:
    """``value`` unchanged, or ValueError when it holds any control character or line break."""
    return _refused(_NAME_CONTROL, value)


def _refused(characters: re.Pattern[str], value: str) -> str:
    """``value`` unchanged, or ValueError naming the first of ``characters`` it holds."""
    found = characters.search(value)
    if found:
        raise ValueError(f"contains the control character U+{ord(found.group()):04X}")
    return value



def clipped(value: object, limit: int = 60) -> str:
    """``repr(value)`` for a message, cut to about ``limit`` characters: a refused 10 MB
    value is named, not printed."""
    return clip(repr(value), limit)


def clip(text: str, limit: int = 60) -> str:
    """``text`` cut to about ``limit`` characters for a message, saying how long it was."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text):,} characters)"


def error_location(loc: tuple[int | str, ...]) -> str:
    """A pydantic error's location as ``a.b.0.c``, each part clipped (a key can be huge)."""
    return ".".join(clip(str(part), 40) for part in loc)
