"""Which work comes next in a queue: after a submit the app goes on to the next open entry."""

from __future__ import annotations

from collections.abc import Sequence


def next_open(done: Sequence[bool], current: int) -> int | None:
    """The index of the first entry after ``current`` that is not done, wrapping round to
    the top; None when every other entry is done."""
    count = len(done)
    for step in range(1, count + 1):
        index = (current + step) % count
        if index != current and not done[index]:
            return index
    return None
