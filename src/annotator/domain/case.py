"""A draft case: typed models that validate a case object, and the raw dict the app keeps.

The raw dict stays the source of truth (keys the app never edits, such as ``image_detail``
or ``item.stem``, go back into the release exactly as imported; numbers keep their JSON
type). The models only prove that the keys the app reads have the right types: strict mode,
so ``preferred_order`` ``true``, ``1.5`` or ``"1"`` are rejected instead of coerced.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StrictFloat,
    StrictInt,
    StrictStr,
    StringConstraints,
    field_validator,
)
from pydantic import ValidationError as PydanticValidationError

from annotator.domain.text import clipped, printable
from annotator.domain.vocabulary import LabelError, normalise_label
from annotator.errors import AnnotatorError

_CONFIG = ConfigDict(strict=True, extra="allow", populate_by_name=True)
Text = StrictStr | None


class _Part(BaseModel):
    model_config = _CONFIG


class MetaInfo(_Part):
    modality: Text = None
    acquisition: Text = None
    view: Text = None
    imaged_region: Text = None
    contrast: Text = None
    time_past: StrictInt | StrictFloat | StrictStr | None = None


class Exam(_Part):
    # A figure names label keys (``meta:<figure>/acquisition``): bounded like a store key.
    figure: Annotated[StrictStr, StringConstraints(max_length=200), AfterValidator(printable)]
    preferred_order: StrictInt | None = None
    image_caption: Text = None
    meta_info: MetaInfo | None = None
    image_paths: list[StrictStr] | None = None
    key_findings: list[StrictStr] | StrictStr | None = None


class DiagnosticStep(_Part):
    source: Text = None
    # The contract counts null and true as "optional"; a physician relabels them anyway.
    essential: StrictStr | bool | None = None
    step: Text = None
    reason: Text = None


class ImageRef(_Part):
    name: Text = None
    caption: Text = None
    path: Text = None
    source_url: Text = None
    author: Text = None
    license: Text = None


class _Levels(_Part):
    level_3: Text = Field(None, alias="3")
    level_2: Text = Field(None, alias="2")
    level_1: Text = Field(None, alias="1")
    level_0: Text = Field(None, alias="0")


class DiagnosisRubric(_Levels):
    reference_answer: Text = None


class LocalisationReference(_Part):
    laterality: Text = Field(None, alias="Laterality")
    organ_region: Text = Field(None, alias="Organ/Region")
    substructure: Text = Field(None, alias="Specific Substructure/Segment")


class LocalisationRubric(_Levels):
    # A string is the right type for the draft but wrong for the scorer: a needs_fix check.
    reference_answer: LocalisationReference | StrictStr | None = None


class Rubrics(_Part):
    diagnosis: DiagnosisRubric | None = Field(None, alias="Diagnosis")
    localisation: LocalisationRubric | None = Field(None, alias="Localisation")


class Mcq(_Part):
    options: list[StrictStr] | dict[str, StrictStr] | None = None


class OpenEnded(_Part):
    reference_answer: Text = None


class Item(_Part):
    mcq: Mcq | None = None
    open_ended: OpenEnded | None = None


class DraftCase(_Part):
    case_id: StrictStr
    case_title: Text = None
    section: Text = None
    area_of_interest: Text = None
    clinical_history: Text = None
    final_diagnosis: Text = None
    difficulty: Text = None
    rarity: Text = None
    source_url: Text = None
    license: Text = None
    author: Text = None
    item: Item | None = None
    rubric_0_to_3: Rubrics | None = None
    diagnostic_steps: list[DiagnosticStep] | None = None
    imaging_examinations: list[Exam] | None = None
    images: list[ImageRef] | None = None

    @field_validator("case_id", mode="before")
    @classmethod
    def _int_id_as_text(cls, value: object) -> object:
        # An integer id is kept as its decimal string; a bool is not an integer here.
        if isinstance(value, int) and not isinstance(value, bool):
            return str(value)
        if isinstance(value, str) and not value.strip():
            raise ValueError("must not be empty")
        if isinstance(value, str):
            if len(value) > 200:
                raise ValueError(f"is {len(value)} characters long; at most 200")
            printable(value)
        return value


@dataclass(frozen=True)
class FieldError:
    """One wrong field: a readable path (``imaging_examinations[2].preferred_order``)."""

    field: str
    reason: str


class CaseFormatError(AnnotatorError):
    """A case object whose fields have the wrong types; ``errors`` lists each field."""

    def __init__(self, errors: list[FieldError]) -> None:
        super().__init__("; ".join(f"{e.field}: {e.reason}" for e in errors))
        self.errors = errors


def parse_case(raw: dict[str, Any]) -> DraftCase:
    """Validate a case object's types; raises :class:`CaseFormatError` naming each field."""
    try:
        return DraftCase.model_validate(raw)
    except PydanticValidationError as exc:
        raise CaseFormatError(_field_errors(raw, exc)) from None


_EXPECTED = {
    "case_id": "a string or an integer",
    "preferred_order": "an integer or null",
    "time_past": "a number, a numeric string, text or null",
    "image_paths": "a list of strings",
    "options": "a list of strings or an object of strings",
    "key_findings": "a list of strings or a string",
    "essential": "a string (essential, optional, unnecessary) or null",
    "reference_answer": "text (Localisation: an object of three texts)",
}


def _field_errors(raw: dict[str, Any], exc: PydanticValidationError) -> list[FieldError]:
    """Map pydantic locations to readable paths, one error per path.

    A union reports one error per branch; the deepest path is the most precise
    (``item.mcq.options[1]`` rather than ``item.mcq.options``), so it wins.
    """
    found: dict[str, str] = {}
    for error in exc.errors():
        missing = error["type"] == "missing"
        path, ends_with_key, value = _walk(raw, error["loc"], missing)
        if path in found or any(_is_below(other, path) for other in found):
            continue
        for shallower in [other for other in found if _is_below(path, other)]:
            del found[shallower]
        key = path.rsplit(".", 1)[-1]
        if missing:
            reason = "is required"
        elif error["type"] == "value_error":
            reason = str(error.get("ctx", {}).get("error", error["msg"]))
        elif ends_with_key and key in _EXPECTED:
            reason = f"must be {_EXPECTED[key]}, got {describe_json(value)}"
        else:
            reason = f"{error['msg'][0].lower()}{error['msg'][1:]}, got {describe_json(value)}"
        found[path] = reason
    return [FieldError(path, reason) for path, reason in found.items()] or [
        FieldError("(case)", str(exc))
    ]


def _is_below(path: str, ancestor: str) -> bool:
    return path.startswith(ancestor) and path[len(ancestor):len(ancestor) + 1] in ("[", ".")


def _walk(raw: Any, loc: tuple[int | str, ...], missing: bool) -> tuple[str, bool, object]:
    """Follow a pydantic ``loc`` through the raw data, skipping union-branch tags.

    Returns the readable path, whether it ends with a key (not an index), and the value.
    """
    path, ends_with_key, node = "", True, raw
    for position, part in enumerate(loc):
        last = position == len(loc) - 1
        if isinstance(node, dict) and isinstance(part, str) and (
            part in node or (missing and last)
        ):
            path = f"{path}.{part}" if path else part
            ends_with_key, node = True, node.get(part)
        elif isinstance(node, list) and isinstance(part, int) and 0 <= part < len(node):
            path, ends_with_key, node = f"{path}[{part}]", False, node[part]
    return path or "(case)", ends_with_key, node


def describe_json(value: object) -> str:
    """A short description of a JSON value for messages: ``string "1.5"``, ``true``."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"number {clipped(value)}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"string {json.dumps(shown, ensure_ascii=False)}"
    if isinstance(value, list):
        return "an array"
    return "an object"


def normalise_draft(raw: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    """The stored draft: ``case_id`` as text and difficulty/rarity in the contract's spelling.

    Returns ``(content, original_values)``; everything else is left exactly as given, and an
    unknown label spelling stays as it was (the case checks report it).
    """
    content = dict(raw)
    original: dict[str, Any] = {}
    case_id = content.get("case_id")
    if isinstance(case_id, int) and not isinstance(case_id, bool):
        content["case_id"] = str(case_id)
        original["case_id"] = case_id
    for kind in ("difficulty", "rarity"):
        value = content.get(kind)
        if not isinstance(value, str):
            continue
        try:
            label, changed = normalise_label(kind, value)
        except LabelError:
            continue
        if changed:
            content[kind] = label
            original[kind] = value
    return content, original


def canonical_json(obj: object) -> str:
    """Deterministic JSON: sorted keys, compact, UTF-8 text kept, no NaN/Infinity."""
    return json.dumps(obj, sort_keys=True, ensure_ascii=False, separators=(",", ":"),
                      allow_nan=False)


def content_hash(obj: object) -> str:
    """SHA-256 hex digest of :func:`canonical_json` (a case revision's identity)."""
    return hashlib.sha256(canonical_json(obj).encode("utf-8")).hexdigest()
