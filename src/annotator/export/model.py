"""The release schema (``release-contract.md``) as pydantic models, for writing and validating.

The scoring core validates nothing and turns a wrong key or type into an empty value, so
these models are strict: no coercion (a string ``preferred_order`` or a boolean stage is an
error), the contract's exact key spellings, and every other key allowed and kept (drafts
carry keys the app does not edit; they must come back unchanged). The writer dumps the
case dicts themselves, never the models, so the draft's key order survives.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError, model_validator

from annotator.domain.release_rules import structure_problems

PROVENANCE_KEY = "annotator_provenance"


class _Open(BaseModel):
    """Strict types for the keys the contract names; any other key is allowed and kept."""

    model_config = ConfigDict(extra="allow", strict=True, populate_by_name=True)


class Rubric(_Open):
    reference_answer: str
    level_3: str = Field(alias="3")
    level_2: str = Field(alias="2")
    level_1: str = Field(alias="1")
    level_0: str = Field(alias="0")


class LocalisationReference(_Open):
    laterality: str = Field(alias="Laterality")
    organ_region: str = Field(alias="Organ/Region")
    substructure: str = Field(alias="Specific Substructure/Segment")


class LocalisationRubric(Rubric):
    reference_answer: LocalisationReference  # type: ignore[assignment]  # an object, never text


class Rubrics(_Open):
    Diagnosis: Rubric
    Localisation: LocalisationRubric  # British spelling: "Localization" is read as missing


class Mcq(_Open):
    options: list[str] | dict[str, str]


class OpenEnded(_Open):
    reference_answer: str


class Item(_Open):
    mcq: Mcq | None = None
    open_ended: OpenEnded | None = None


class Step(_Open):
    source: str
    essential: Literal["essential", "optional", "unnecessary"]


class MetaInfo(_Open):
    modality: str | None = None
    acquisition: str | None = None
    view: str | None = None
    imaged_region: str | None = None
    contrast: str | None = None
    # null = current; > 0 prior imaging; < 0 future follow-up. Numbers keep their JSON type.
    time_past: StrictInt | float | str | None = None

    @model_validator(mode="after")
    def _no_region(self) -> MetaInfo:
        if self.model_extra and "region" in self.model_extra:
            raise ValueError("the key is 'imaged_region'; the scorer ignores 'region'")
        return self


class Exam(_Open):
    figure: str
    preferred_order: StrictInt | None  # equal integers are ties; null is unranked
    image_caption: str
    meta_info: MetaInfo
    image_paths: list[str]
    key_findings: list[str] | str | None = None


class ImageEntry(_Open):
    name: str | None = None
    caption: str | None = None
    path: str


class ReleaseCase(_Open):
    case_id: str
    case_title: str | None = None
    section: str | None = None
    area_of_interest: str | None = None
    clinical_history: str
    final_diagnosis: str
    difficulty: Literal["normal", "hard", "extreme_hard"]
    rarity: Literal["common", "rare", "extreme_rare"]
    item: Item | None = None
    rubric_0_to_3: Rubrics
    diagnostic_steps: list[Step]
    imaging_examinations: list[Exam]
    images: list[ImageEntry] | None = None


def _where(loc: tuple[int | str, ...]) -> str:
    text = ""
    for part in loc:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(case)"


def schema_problems(case: Any) -> list[str]:
    """Type problems of one case object as readable lines (empty: the types are right)."""
    try:
        ReleaseCase.model_validate(case)
    except ValidationError as exc:
        return [f"{_where(err['loc'])}: {err['msg']}" for err in exc.errors()]
    return []


def case_problems(case: Any) -> list[str]:
    """Every contract problem of one case object: types first, then the cross-key rules."""
    if not isinstance(case, dict):
        return [f"a case must be an object, not {type(case).__name__}"]
    return schema_problems(case) + structure_problems(case)


def round_trip(case: dict[str, Any]) -> dict[str, Any]:
    """The case as the model reads and writes it back (keys as given, extras kept)."""
    model = ReleaseCase.model_validate(case)
    dumped: dict[str, Any] = model.model_dump(mode="json", by_alias=True, exclude_unset=True)
    return dumped
