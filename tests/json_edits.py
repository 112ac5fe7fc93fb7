"""The places of a JSON value, for fuzz tests that replace one of them (shared by every
reader's fuzz test and by ``fuzz_readers.py``, which also runs as a script from this folder)."""

from __future__ import annotations

from typing import Any


def json_paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every path into ``data`` (keys and list indices), the whole value's ``()`` first."""
    found = [prefix]
    if isinstance(data, dict):
        for k, v in data.items():
            found += json_paths(v, (*prefix, k))
    elif isinstance(data, list):
        for i, v in enumerate(data):
            found += json_paths(v, (*prefix, i))
    return found
