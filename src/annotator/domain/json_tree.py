"""JSON values (lists, dicts and scalars) rewritten leaf by leaf."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def map_leaves(value: Any, leaf: Callable[[Any], Any]) -> Any:
    """``value`` with ``leaf`` applied to every scalar in it; lists and dict keys are kept."""
    if isinstance(value, list):
        return [map_leaves(v, leaf) for v in value]
    if isinstance(value, dict):
        return {k: map_leaves(v, leaf) for k, v in value.items()}
    return leaf(value)
