"""Helpers of the review tests: annotators submit labels through the real services."""

from __future__ import annotations

from typing import Any

from annotator.domain.labels import LabelEdit
from annotator.services import annotating, kinds


def submit(project: Any, name: str, case_id: str, labels: dict[str, Any] | None = None) -> str:
    """Accept the draft's suggestions, set ``labels`` (key -> raw label value), submit."""
    annotating.accept_suggestions(project, name, case_id)
    edits = [LabelEdit(key, value) for key, value in (labels or {}).items()]
    if edits:
        kinds.CASES.set_fields(project, name, case_id, edits)
    return kinds.CASES.submit(project, name, case_id)


def chose(value: Any) -> dict[str, Any]:
    """A label value the annotator set themselves."""
    return {"value": value, "how": "set"}
