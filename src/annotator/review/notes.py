"""What each reviewer wrote beside their labels: comments, red flags, discard reasons, notes.

The adjudicator sees all of it on every case, whether or not anything conflicts.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotator.domain.labels import split_key


@dataclass(frozen=True)
class Note:
    kind: str  # comment, red flag, discard, exam comment, demography note, rubric comment, ...
    where: str  # "case", a figure, or a rubric part
    text: str


_KINDS = {
    "comment": "comment",
    "red_flag": "red flag",
    "exam_comment": "exam comment",
    "demography_note": "demography note",
    "rubric_comment": "rubric comment",
}


def notes_of(labels: dict[str, Any]) -> list[Note]:
    """Notes in one reviewer's submitted labels, discard first, then in label-key order."""
    notes: list[Note] = []
    discard = labels.get("discard")
    if isinstance(discard, dict):
        reason = str(discard.get("reason_code", "")).replace("_", " ")
        text = str(discard.get("text") or "").strip()
        notes.append(Note("discard", "case", f"{reason}: {text}" if text else reason))
    for key in sorted(labels):
        family, item = split_key(key)
        value = labels[key]
        if family in _KINDS and isinstance(value, str) and value.strip():
            notes.append(Note(_KINDS[family], item or "case", value.strip()))
        elif family == "meta_ok" and value is False:
            notes.append(Note("metadata flagged", item, "metadata marked as wrong"))
        elif family == "rubric_ok" and value is False:
            notes.append(Note("rubric flagged", item, "rubric marked as needing work"))
    return notes
