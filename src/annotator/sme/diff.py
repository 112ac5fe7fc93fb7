"""Pretty text and a field-level difference of the ground truth and the output (JSON)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

_MISSING = object()


@dataclass(frozen=True)
class FieldDiff:
    """One JSON path where the ground truth and the output differ.

    ``kind``: ``changed`` (both have it), ``missing`` (only the ground truth has it),
    ``extra`` (only the output has it). Absent values are None.
    """

    path: str
    kind: str
    ground_truth: Any
    output: Any


def is_json(value: Any) -> bool:
    """Structured (an object or a list), as opposed to free text or a number."""
    return isinstance(value, dict | list)


def pretty(value: Any) -> str:
    """Text as it is; JSON indented with keys in their original order."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    return json.dumps(value, indent=2, ensure_ascii=False)


def _join(path: str, key: str | int) -> str:
    return f"{path}[{key}]" if isinstance(key, int) else (f"{path}.{key}" if path else str(key))


def field_diff(ground_truth: Any, output: Any, path: str = "") -> list[FieldDiff]:
    """Leaf-level differences, depth first, in the ground truth's key order then extras."""
    if isinstance(ground_truth, dict) and isinstance(output, dict):
        out: list[FieldDiff] = []
        for key in list(ground_truth) + [k for k in output if k not in ground_truth]:
            a, b = ground_truth.get(key, _MISSING), output.get(key, _MISSING)
            out += _pair(a, b, _join(path, key))
        return out
    if isinstance(ground_truth, list) and isinstance(output, list):
        out = []
        for i in range(max(len(ground_truth), len(output))):
            a = ground_truth[i] if i < len(ground_truth) else _MISSING
            b = output[i] if i < len(output) else _MISSING
            out += _pair(a, b, _join(path, i))
        return out
    if ground_truth == output:
        return []
    return [FieldDiff(path or "$", "changed", ground_truth, output)]


def _pair(a: Any, b: Any, path: str) -> list[FieldDiff]:
    if a is _MISSING:
        return [FieldDiff(path, "extra", None, b)]
    if b is _MISSING:
        return [FieldDiff(path, "missing", a, None)]
    return field_diff(a, b, path)
