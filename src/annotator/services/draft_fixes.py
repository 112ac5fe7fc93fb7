"""A physician's fixes to the draft, as label edits: metadata, captions, steps, rubrics.

A fix is the annotator's proposal, kept in their own labels (visible only to them until
review). These builders hold the rules the editors share, so widgets stay free of them:

- writing back the draft's own value removes the fix instead of storing a copy;
- fixing an exam's metadata records that the draft's metadata was not correct
  (``meta_ok`` false) in the same edit;
- the Diagnosis reference answer *is* the final diagnosis (the release writes one into the
  other), so both editors call :func:`final_diagnosis_edits`.
"""

from __future__ import annotations

import copy
from typing import Any

from annotator.domain.checks import check_case
from annotator.domain.labels import (
    FIX_FAMILIES,
    LOCALISATION_FIELDS,
    META_FIELDS,
    RUBRIC_LEVELS,
    RUBRIC_PARTS,
    STEP_FIELDS,
    LabelEdit,
    label_key,
)
from annotator.domain.vocabulary import metadata_warnings, normalise_for_compare
from annotator.errors import ValidationError
from annotator.review.final import release_content
from annotator.review.items import draft_value

DIAGNOSIS_KEY = "rubric:Diagnosis/reference_answer"


def effective(content: dict[str, Any], labels: dict[str, Any], key: str) -> Any:
    """The value the annotator currently proposes: their fix, else the draft's value."""
    if key in labels:
        return labels[key]
    if key == DIAGNOSIS_KEY:
        return final_diagnosis(content, labels)
    return draft_value(content, key)


def _same(field: str, a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        return " ".join(a.split()) == " ".join(b.split())
    return bool(normalise_for_compare(field, a) == normalise_for_compare(field, b)) and (
        type(a) is type(b)
    )


def _fix(content: dict[str, Any], key: str, value: Any, field: str = "") -> LabelEdit:
    """Set ``key`` to ``value``, or remove the fix when it equals the draft's value."""
    return LabelEdit(key, None if _same(field, value, draft_value(content, key)) else value)


def parse_time_past(text: str) -> int | float | str | None:
    """Typed ``time_past``: ``"6"`` -> 6, ``"-1.5"`` -> -1.5, ``""`` -> None, else text."""
    stripped = text.strip()
    if not stripped:
        return None
    try:
        return int(stripped)
    except ValueError:
        pass
    try:
        return float(stripped)
    except ValueError:
        return stripped


def meta_edits(
    content: dict[str, Any], labels: dict[str, Any], figure: str, field: str, value: Any
) -> list[LabelEdit]:
    """Edits that set one metadata field of an exam (``time_past`` may come as text)."""
    if field not in META_FIELDS:
        raise ValidationError(f"unknown metadata field {field!r}")
    if field == "time_past" and isinstance(value, str):
        value = parse_time_past(value)
    elif isinstance(value, str):
        value = value.strip()
    edits = [_fix(content, label_key("meta", f"{figure}/{field}"), value, field)]
    fixed = edits[0].value is not None
    if fixed and labels.get(label_key("meta_ok", figure)) is not False:
        edits.append(LabelEdit(label_key("meta_ok", figure), False))
    return edits


def effective_meta(content: dict[str, Any], labels: dict[str, Any], figure: str) -> dict[str, Any]:
    """An exam's metadata with the annotator's fixes applied."""
    return {
        field: effective(content, labels, label_key("meta", f"{figure}/{field}"))
        for field in META_FIELDS
    }


def meta_warnings(content: dict[str, Any], labels: dict[str, Any], figure: str) -> list[str]:
    """What the scoring core's matcher would misread in the exam's effective metadata."""
    return metadata_warnings(effective_meta(content, labels, figure))


def caption_edits(content: dict[str, Any], figure: str, text: str) -> list[LabelEdit]:
    """Edits that set an exam's image caption (the matcher reads it)."""
    return [_fix(content, label_key("caption", figure), text)]


def step_edits(content: dict[str, Any], index: int, field: str, text: str) -> list[LabelEdit]:
    """Edits that repair one field (source, step, reason) of diagnostic step ``index``."""
    steps = content.get("diagnostic_steps") or []
    if field not in STEP_FIELDS or not 0 <= index < len(steps):
        raise ValidationError(f"no diagnostic step {index} field {field!r}")
    return [_fix(content, label_key("step", f"{index}/{field}"), text)]


def rubric_key(part: str, level: str) -> str:
    """``rubric:Diagnosis/3``; ``level`` may also be ``reference_answer`` or
    ``reference_answer/Laterality`` (Localisation)."""
    if part not in RUBRIC_PARTS:
        raise ValidationError(f"unknown rubric part {part!r}")
    allowed = {*RUBRIC_LEVELS, "reference_answer"} | {
        f"reference_answer/{f}" for f in LOCALISATION_FIELDS
    }
    if level not in allowed or (part == "Localisation" and level == "reference_answer"):
        raise ValidationError(f"{part} has no rubric entry {level!r}")
    if part == "Diagnosis" and level.startswith("reference_answer/"):
        raise ValidationError("the Diagnosis reference is one text (the final diagnosis)")
    return label_key("rubric", f"{part}/{level}")


def rubric_edits(
    content: dict[str, Any], labels: dict[str, Any], part: str, level: str, text: str
) -> list[LabelEdit]:
    """Edits that change one rubric text; the Diagnosis reference edits the final diagnosis."""
    key = rubric_key(part, level)
    if key == DIAGNOSIS_KEY:
        return final_diagnosis_edits(content, text)
    return [_fix(content, key, text)]


def final_diagnosis(content: dict[str, Any], labels: dict[str, Any]) -> str:
    """The final diagnosis the annotator proposes (= the Diagnosis rubric's reference)."""
    if DIAGNOSIS_KEY in labels:
        return str(labels[DIAGNOSIS_KEY])
    return str(content.get("final_diagnosis") or draft_value(content, DIAGNOSIS_KEY) or "")


def final_diagnosis_edits(content: dict[str, Any], text: str) -> list[LabelEdit]:
    """One edit for both the final diagnosis and the Diagnosis reference (they are equal).

    Writing back the draft's final diagnosis removes the fix, unless the draft's rubric
    reference differs from it (then the equal value is stored to repair the rubric).
    """
    text = text.strip()
    draft_final = str(content.get("final_diagnosis") or "")
    draft_reference = draft_value(content, DIAGNOSIS_KEY)
    if text == draft_final and draft_reference == draft_final:
        return [LabelEdit(DIAGNOSIS_KEY, None)]
    return [LabelEdit(DIAGNOSIS_KEY, text)]


def apply_fixes(content: dict[str, Any], labels: dict[str, Any]) -> dict[str, Any]:
    """The draft with this annotator's fixes written in (steps keep their own structure)."""
    fixes = {k: v for k, v in labels.items() if k.partition(":")[0] in FIX_FAMILIES}
    steps = {k: v for k, v in fixes.items() if k.startswith("step:")}
    others = {k: v for k, v in fixes.items() if not k.startswith("step:")}
    fixed = release_content(content, others)
    # release_content rebuilds one step per exam; a repair view needs the draft's own steps.
    fixed["diagnostic_steps"] = copy.deepcopy(content.get("diagnostic_steps"))
    for key, value in steps.items():
        index, _, field = key.partition(":")[2].partition("/")
        listed = fixed.get("diagnostic_steps")
        if isinstance(listed, list) and index.isdigit() and int(index) < len(listed):
            if isinstance(listed[int(index)], dict):
                listed[int(index)][field] = value
    return fixed


def remaining_problems(content: dict[str, Any], labels: dict[str, Any]) -> list[dict[str, str]]:
    """The draft's ``needs_fix`` problems re-checked with this annotator's fixes applied."""
    return [
        {"code": p.code, "field": p.field, "message": p.message}
        for p in check_case(apply_fixes(content, labels))
    ]
