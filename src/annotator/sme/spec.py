"""The benchmark field specification (seed 001) as pydantic models.

Only shape and types live here; the authoring rules (prefixes, weights, scale) are lint
rules in :mod:`annotator.sme.lint`, so that every violation is listed, not just the first.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

EVALUATOR_TYPES = ("code", "llm_judge", "hybrid", "manual_sme")
# Evaluator types a physician reviews (hybrid: the human check of an automated verdict).
REVIEWED = ("manual_sme", "hybrid")
EvaluatorType = Literal["code", "llm_judge", "hybrid", "manual_sme"]


class ScoringScale(BaseModel):
    model_config = ConfigDict(extra="forbid")

    min_value: float
    max_value: float
    descriptions: dict[float, str] = Field(default_factory=dict)
    normalization_formula: str | None = None


class Benchmark(BaseModel):
    """One benchmark: a measurable test within a parent rubric (seed 001)."""

    model_config = ConfigDict(extra="forbid")

    code: str
    parent_rubric: str
    label: str
    concept: str
    weight: float
    threshold: float | None = None
    scoring_scale: ScoringScale | None = None
    evaluator_type: str  # checked against EVALUATOR_TYPES by lint, to name the line
    llm_prompt_file: str | None = None
    inclusion_criteria: str
    exclusion_criteria: str
    examples: list[str] = Field(default_factory=list)
    metric: dict[str, Any] | None = None

    @property
    def scale(self) -> ScoringScale:
        """The scale, 0..1 when the specification names none."""
        return self.scoring_scale or ScoringScale(min_value=0.0, max_value=1.0)

    def content_hash(self) -> str:
        """SHA-256 of the canonical JSON: the same benchmark hashes the same from any file."""
        text = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    def review_basis(self) -> dict[str, Any]:
        """What a verdict was given against: a change here sends verdicts to re-check."""
        scale = self.scale
        return {
            "inclusion_criteria": " ".join(self.inclusion_criteria.split()),
            "exclusion_criteria": " ".join(self.exclusion_criteria.split()),
            "scale": scale.model_dump(mode="json"),
        }
