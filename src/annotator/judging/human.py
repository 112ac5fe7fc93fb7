"""The human reference of one item from its physicians' submitted sheets and adjudications."""

from __future__ import annotations

from typing import Any

from annotator.judging.sheet import Sheet, conflicting, reference


def conflicts(sheets: dict[str, Sheet]) -> dict[str, dict[str, Any]]:
    """Keys whose physicians' values conflict (acceptable vs unacceptable, or labels differ)."""
    keys = sorted({k for sheet in sheets.values() for k in sheet})
    out: dict[str, dict[str, Any]] = {}
    for key in keys:
        by_scorer = {s: sheet[key] for s, sheet in sheets.items() if sheet.get(key) is not None}
        if conflicting(list(by_scorer.values())):
            out[key] = by_scorer
    return out


def human_sheet(sheets: dict[str, Sheet], adjudicated: dict[str, Any]) -> Sheet:
    """The adjudicated value, else the physicians' agreed (or only) value, per key."""
    keys = {k for sheet in sheets.values() for k in sheet} | set(adjudicated)
    out: Sheet = {}
    for key in sorted(keys):
        if key in adjudicated:
            value = adjudicated[key]
        else:
            value = reference([s[key] for s in sheets.values() if s.get(key) is not None])
        if value is not None:
            out[key] = value
    return out
