"""After a submit the app goes on to the next open entry of the queue, wrapping round."""

from __future__ import annotations

import pytest

from annotator.domain.queue_order import next_open


@pytest.mark.parametrize(
    ("done", "current", "expected"),
    [
        ([False, False, False], 0, 1),
        ([False, True, False], 0, 2),  # past a done one
        ([False, False, True], 1, 0),  # wraps round to the top
        ([True, False, True], 1, None),  # the current one is the only open one
        ([True, True], 0, None),
        ([], 0, None),
        ([False, False], -1, 0),  # no current entry: the first open one
        ([False], -1, 0),
        ([True, False], -1, 1),
    ],
)
def test_next_open(done: list[bool], current: int, expected: int | None) -> None:
    assert next_open(done, current) == expected
