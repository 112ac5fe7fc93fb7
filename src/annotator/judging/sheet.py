"""One rater's scores on one item as a flat map of keys, like the app's label maps.

``diagnosis``, ``localization``, ``differential_list`` hold 0-3; every unique trajectory
diagnosis has ``trajectory/<diagnosis>/score`` (0-3) and ``trajectory/<diagnosis>/label``
(E/A/U). Every edit is "set one key", so undo, history and conflicts work per key.
"""

from __future__ import annotations

from typing import Any

from annotator.errors import ValidationError
from annotator.judging.runfile import LABELS, TARGETS, ModeResult

Sheet = dict[str, Any]


def trajectory_key(diagnosis: str, part: str) -> str:
    return f"trajectory/{diagnosis}/{part}"


def split_key(key: str) -> tuple[str, str | None, str]:
    """``(target, diagnosis or None, "score" or "label")``."""
    if key.startswith("trajectory/"):
        diagnosis, _, part = key[len("trajectory/") :].rpartition("/")
        return "trajectory", diagnosis, part
    return key, None, "score"


def check_value(key: str, value: Any, diagnoses: list[str]) -> None:
    """Refuse a key or value the item does not have (one line)."""
    target, diagnosis, part = split_key(key)
    if target == "trajectory":
        if diagnosis not in diagnoses:
            raise ValidationError(f"{diagnosis!r} is not a trajectory diagnosis of this output")
        if part not in ("score", "label"):
            raise ValidationError(f"unknown trajectory field {part!r}")
    elif target not in TARGETS:
        raise ValidationError(f"unknown target {target!r}")
    if value is None:
        return
    if part == "label":
        if value not in LABELS:
            raise ValidationError(f"label must be E, A or U, not {value!r}")
    elif isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 3:
        raise ValidationError(f"score must be 0, 1, 2 or 3, not {value!r}")


def from_mode(result: ModeResult) -> tuple[Sheet, dict[str, str]]:
    """A judge mode's scores as a sheet, and its reasons by key."""
    sheet: Sheet = {}
    reasons: dict[str, str] = {}
    for target in TARGETS:
        score = getattr(result.final_scores, target)
        sheet[target] = score.score
        reasons[target] = score.reason
    for entry in result.trajectory_scores:
        key = trajectory_key(entry.diagnosis, "score")
        sheet[key], reasons[key] = entry.score, entry.reason
    for label in result.trajectory_labels:
        key = trajectory_key(label.diagnosis, "label")
        sheet[key], reasons[key] = label.label, label.reason
    return sheet, reasons


def acceptable(score: int) -> bool:
    """The paper's binarisation: 0-1 clinically unacceptable, 2-3 acceptable."""
    return score >= 2


def conflicting(values: list[Any]) -> bool:
    """Physicians' values of one key that need a senior: acceptable vs unacceptable, or labels."""
    if len(values) < 2:
        return False
    if all(isinstance(v, int) for v in values):
        return len({acceptable(v) for v in values}) > 1
    return len(set(values)) > 1


def reference(values: list[Any]) -> Any:
    """The physicians' value of one key without adjudication, or None when they conflict.

    Scores in the same acceptability band (2 and 3) are not a conflict; the lower one is
    taken, conservative as the paper's judge instructions.
    """
    if not values or conflicting(values):
        return None
    if all(isinstance(v, int) for v in values):
        return min(values)
    return values[0]
