"""One annotator's labels on one case, as a flat map of label keys to values.

A label key is ``family`` or ``family:item``: ``importance:Figure 2``, ``stage:Figure 2``,
``difficulty``, ``meta:Figure 1/contrast``, ``step:0/source``, ``rubric:Localisation/3``.
Every edit is "set one key to one value" (``None`` deletes), so an edit's inverse is the same
operation with the old value: undo, history, packages and conflict detection all work per key.

Importance, stage, difficulty and rarity remember how they were set: ``how`` is ``"set"`` when
the annotator chose the value, ``"accepted"`` when they accepted the draft's suggestion with an
explicit action. A suggestion that was never accepted is not a label.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotator.domain.text import clipped
from annotator.errors import ValidationError

MAX_KEY_CHARACTERS = 300  # the store's column (domain.text_fields.LabelKey)

IMPORTANCE = ("essential", "optional", "unnecessary")
DIFFICULTY = ("normal", "hard", "extreme_hard")
RARITY = ("common", "rare", "extreme_rare")
META_FIELDS = ("modality", "acquisition", "view", "imaged_region", "contrast", "time_past")
RUBRIC_PARTS = ("Diagnosis", "Localisation")
RUBRIC_LEVELS = ("3", "2", "1", "0")
LOCALISATION_FIELDS = ("Laterality", "Organ/Region", "Specific Substructure/Segment")
STEP_FIELDS = ("source", "step", "reason")
DISCARD_REASONS = (
    "image_quality",
    "missing_images",
    "diagnosis_not_imaging_based",
    "leakage",
    "duplicate",
    "not_neuroradiology",
    "other",
)

# Families whose value records how it was set (annotator choice vs accepted suggestion).
# Families of the fixes physicians propose to the draft (compared on their effective value).
FIX_FAMILIES = ("meta", "caption", "step", "rubric")
# Why an adjudicator decided an item (a project may shorten the list).
REASON_CODES = (
    "protocol",  # the annotation protocol / contract decides it
    "clinical_judgement",
    "majority",
    "template_error",
    "image_evidence",
    "irresolvable",
    "other",
)
SUGGESTIBLE = ("importance", "stage", "difficulty", "rarity")

FAMILIES = (
    "importance",  # item: figure; value: one of IMPORTANCE
    "stage",  # item: figure; value: int >= 1 or None (explicitly unranked)
    "difficulty",
    "rarity",
    "discard",  # value: {"reason_code": str, "text": str} ; absent = not discarded
    "red_flag",  # item: figure; value: text
    "comment",
    "exam_comment",  # item: figure
    "demography_note",
    "meta_ok",  # item: figure; value: bool
    "meta",  # item: figure/field; value: the corrected value
    "caption",  # item: figure
    "step",  # item: index/field
    "rubric_ok",  # item: Diagnosis | Localisation; value: bool
    # rubric item: part/level, Diagnosis/reference_answer or Localisation/reference_answer/FIELD
    "rubric",
    "rubric_comment",  # item: part
    "active_seconds",  # value: float, measured active time on the case
)


def label_key(family: str, item: str = "") -> str:
    """Build a label key; validates the family."""
    if family not in FAMILIES:
        raise ValidationError(f"unknown label family {clipped(family)}")
    return f"{family}:{item}" if item else family


def split_key(key: str) -> tuple[str, str]:
    """``"importance:Figure 1"`` -> ``("importance", "Figure 1")``."""
    family, _, item = key.partition(":")
    return family, item


@dataclass(frozen=True)
class LabelEdit:
    """Set ``key`` to ``value`` (None removes the label)."""

    key: str
    value: Any


_PER_EXAM = ("importance", "stage", "red_flag", "exam_comment", "meta_ok", "caption")
_TEXT_FAMILIES = (
    "red_flag", "comment", "exam_comment", "demography_note", "caption", "rubric_comment",
    "step", "rubric",
)


def validate_edit(edit: LabelEdit, figures: list[str]) -> None:
    """Raise ValidationError when the edit's value is not acceptable for its family."""
    if len(edit.key) > MAX_KEY_CHARACTERS:
        raise ValidationError(f"a label key has at most {MAX_KEY_CHARACTERS} characters, not"
                              f" {len(edit.key):,}")
    family, item = split_key(edit.key)
    value = edit.value
    if family not in FAMILIES:
        raise ValidationError(f"unknown label family {clipped(family)}")
    if family in _PER_EXAM and item not in figures:
        raise ValidationError(f"{edit.key}: the case has no exam {clipped(item)}")
    if value is None:
        return
    if family in SUGGESTIBLE:
        _validate_suggestible(edit.key, family, value)
    elif family == "meta":
        figure, _, field = item.rpartition("/")
        if figure not in figures or field not in META_FIELDS:
            raise ValidationError(f"{edit.key}: unknown exam or metadata field")
    else:
        _validate_plain(edit.key, family, value)


def _validate_suggestible(key: str, family: str, value: Any) -> None:
    """A suggestible label is ``{"value": ..., "how": "set" | "accepted"}``."""
    if not isinstance(value, dict) or set(value) != {"value", "how"}:
        raise ValidationError(f"{key}: expected {{'value', 'how'}}")
    if value["how"] not in ("set", "accepted"):
        raise ValidationError(f"{key}: how must be 'set' or 'accepted'")
    inner = value["value"]
    allowed = {"importance": IMPORTANCE, "difficulty": DIFFICULTY, "rarity": RARITY}
    if family in allowed and inner not in allowed[family]:
        raise ValidationError(f"{key}: {clipped(inner)} is not one of {', '.join(allowed[family])}")
    if family == "stage" and inner is not None and (type(inner) is not int or inner < 1):
        raise ValidationError(f"{key}: a stage is an integer >= 1 or None (unranked)")


def _validate_plain(key: str, family: str, value: Any) -> None:
    """Discard reasons, yes/no checks, active time and free text."""
    if family == "discard":
        if not isinstance(value, dict) or value.get("reason_code") not in DISCARD_REASONS:
            raise ValidationError(
                f"discard needs a reason code, one of {', '.join(DISCARD_REASONS)}"
            )
    elif family in ("meta_ok", "rubric_ok"):
        if not isinstance(value, bool):
            raise ValidationError(f"{key}: expected true or false")
    elif family == "active_seconds":
        if not isinstance(value, (int, float)) or value < 0:
            raise ValidationError("active_seconds must be a non-negative number")
    elif family in _TEXT_FAMILIES and not isinstance(value, str):
        raise ValidationError(f"{key}: expected text")


def apply_edits(
    labels: dict[str, Any], edits: list[LabelEdit]
) -> tuple[dict[str, Any], list[LabelEdit]]:
    """Return the new label map and the inverse edits (in reverse order) that undo them."""
    new = dict(labels)
    inverse: list[LabelEdit] = []
    for edit in edits:
        inverse.append(LabelEdit(edit.key, new.get(edit.key)))
        if edit.value is None:
            new.pop(edit.key, None)
        else:
            new[edit.key] = edit.value
    inverse.reverse()
    return new, inverse


def chosen(labels: dict[str, Any], family: str, item: str = "") -> Any:
    """The value of a suggestible label, or None when it is not set."""
    entry = labels.get(label_key(family, item))
    return entry["value"] if isinstance(entry, dict) and "how" in entry else None


def is_set(labels: dict[str, Any], family: str, item: str = "") -> bool:
    """True when the label exists (for stages: also when explicitly unranked)."""
    return label_key(family, item) in labels


def missing_for_submit(labels: dict[str, Any], figures: list[str]) -> list[str]:
    """What must still be labelled before the annotation can be submitted (empty = ready).

    A discarded case needs only its discard reason. Otherwise every exam needs an importance
    and a stage decision (a stage or explicitly unranked), and the case a difficulty and a
    rarity. An untouched annotation is never complete.
    """
    if "discard" in labels:
        return []
    missing: list[str] = []
    for figure in figures:
        if not is_set(labels, "importance", figure):
            missing.append(f"{figure}: no importance")
        if not is_set(labels, "stage", figure):
            missing.append(f"{figure}: not placed in the order (give a stage or mark unranked)")
    if not is_set(labels, "difficulty"):
        missing.append("no difficulty")
    if not is_set(labels, "rarity"):
        missing.append("no rarity")
    return missing

