"""Which values an adjudicator may decide for an item, and reading them from text.

A decision must be a value the release can hold: importance, difficulty and rarity from their
vocabularies, the order as a valid board, a discard as null (keep the case) or a reason, and
text for metadata, captions, steps and rubric parts.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from annotator.domain.labels import DISCARD_REASONS, META_FIELDS, split_key
from annotator.errors import ValidationError
from annotator.review.disagreement import SCALES
from annotator.review.order_board import validate_board


def validate_decision(key: str, value: Any, figures: Sequence[str]) -> Any:
    """Return the value to store for ``key`` (boards renumbered), or raise ValidationError."""
    family, item = split_key(key)
    if family in SCALES:
        allowed = SCALES[family]
        if value not in allowed:
            raise ValidationError(f"{key}: {value!r} is not one of {', '.join(allowed)}")
        return value
    if family == "order":
        return validate_board(value, figures)
    if family == "discard":
        if value is None:
            return None
        if isinstance(value, str) and value in DISCARD_REASONS:
            return {"reason_code": value, "text": ""}
        if not isinstance(value, dict) or value.get("reason_code") not in DISCARD_REASONS:
            raise ValidationError(
                "discard: decide null (keep the case) or a reason code, one of "
                + ", ".join(DISCARD_REASONS)
            )
        return {"reason_code": value["reason_code"], "text": str(value.get("text") or "")}
    if family == "meta":
        field = item.rpartition("/")[2]
        if field not in META_FIELDS:
            raise ValidationError(f"{key}: unknown metadata field {field!r}")
        if field == "time_past":
            if (
                value is None
                or isinstance(value, (int, float, str))
                and not isinstance(value, bool)
            ):
                return value
            raise ValidationError(f"{key}: time_past is a number, a text or null")
    if family in ("meta", "caption", "step", "rubric"):
        if not isinstance(value, str) or not value.strip():
            raise ValidationError(f"{key}: expected a non-empty text")
        return value
    raise ValidationError(f"{key}: not an item an adjudicator decides")


def parse_value(text: str, letters: dict[str, Any]) -> Any:
    """Read a ``--value``: a reviewer letter (take their value), JSON, or a bare word.

    ``letters`` maps the case's reviewer letters to their values for the item. A letter wins
    over JSON, so ``B`` always means "Reviewer B's value".
    """
    stripped = text.strip()
    if stripped.upper() in letters and len(stripped) <= 2:
        return letters[stripped.upper()]
    if len(stripped) == 1 and stripped.isalpha() and stripped.isupper():
        raise ValidationError(
            f"no Reviewer {stripped} on this case (reviewers: {', '.join(sorted(letters))})"
        )
    try:
        return json.loads(stripped)
    except ValueError:
        return stripped  # a bare word such as essential or a sentence of rubric text
