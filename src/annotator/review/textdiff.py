"""Word diffs of free-text conflicts (rubric levels, step text, captions) with difflib."""

from __future__ import annotations

import difflib
import html
import re
from dataclasses import dataclass
from typing import Literal

_TOKENS = re.compile(r"\s+|[^\s]+")


@dataclass(frozen=True)
class DiffPart:
    """A run of text that both versions share, or only the first / only the second has."""

    op: Literal["equal", "delete", "insert"]
    text: str


def word_diff(first: str, second: str) -> list[DiffPart]:
    """Word-level differences turning ``first`` into ``second`` (whitespace kept verbatim)."""
    a, b = _TOKENS.findall(first or ""), _TOKENS.findall(second or "")
    parts: list[DiffPart] = []
    matcher = difflib.SequenceMatcher(None, a, b, autojunk=False)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag == "equal":
            parts.append(DiffPart("equal", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            parts.append(DiffPart("delete", "".join(a[i1:i2])))
        if j2 > j1:
            parts.append(DiffPart("insert", "".join(b[j1:j2])))
    return parts


def diff_html(first: str, second: str) -> str:
    """The diff as HTML: removed words struck through in red, added words in green."""
    out: list[str] = []
    for part in word_diff(first, second):
        text = html.escape(part.text)
        if part.op == "delete":
            out.append(f'<s style="color:#b3261e;background:#fde7e7">{text}</s>')
        elif part.op == "insert":
            out.append(f'<b style="color:#1b6e20;background:#e3f4e4">{text}</b>')
        else:
            out.append(text)
    return "".join(out)


def diff_text(first: str, second: str) -> str:
    """The diff as plain text for the command line: ``[-removed-]{+added+}``."""
    marks = {"delete": "[-{}-]", "insert": "{{+{}+}}", "equal": "{}"}
    return "".join(marks[p.op].format(p.text) for p in word_diff(first, second))
