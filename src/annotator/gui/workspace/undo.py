"""How a case's label edits merge into one undo step (the command is ``gui.undo.SetCommand``).

A burst (typing in one field, or moving exams on the board within a few seconds) is one
command: its edits are collapsed to one per key, and its inverse keeps the earliest old
value of each key, so one undo goes back to before the burst.
"""

from __future__ import annotations

from annotator.domain.labels import LabelEdit

MERGE_WINDOW_SECONDS = 8.0


def collapse(first: list[LabelEdit], later: list[LabelEdit]) -> list[LabelEdit]:
    """One edit per key with the last value, in the order keys first appear."""
    last: dict[str, LabelEdit] = {}
    for edit in [*first, *later]:
        last[edit.key] = edit  # a dict keeps the place where the key first appeared
    return list(last.values())


def same_values(edits: list[LabelEdit], inverse: list[LabelEdit]) -> bool:
    """The edits leave every key as it was (nothing to undo)."""
    return {e.key: e.value for e in edits} == {e.key: e.value for e in inverse}
