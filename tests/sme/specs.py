"""Benchmark YAML for the SME tests: a valid pair of rubrics, edited per test."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml

ANEG1 = """\
# Benchmark: A-NEG1, the specification's own example (no "Flag if" clause)
code: A-NEG1
parent_rubric: A-NEG
label: Simple Negation Misinterpretation

concept: >
  Straightforward denials or negated symptoms in the narrative (e.g., 'denies chest pain',
  'no shortness of breath') are encoded incorrectly in the structured fields. Threshold: 0.90.

weight: 0.25
threshold: 0.90

scoring_scale:
  min_value: 0.0
  max_value: 1.0
  normalization_formula: "x"
  descriptions:
    1.0: "All simple negations correctly interpreted"
    0.90: "Excellent (90%+ correct)"
    0.80: "Good (80-90% correct)"
    0.70: "Fair (70-80% correct)"
    0.0: "Failed - negations systematically misinterpreted"

inclusion_criteria: >
  Apply when clear single-layer negation appears in ASR/narrative or ground truth and the
  output records the corresponding symptom or condition as present rather than absent.

exclusion_criteria: >
  Do not use for complex or double-negative phrasing (use A-NEG2/A-NEG3 instead).

examples:
  - "Narrative: 'patient denies chest pain' but output marks chest_pain: true."

evaluator_type: hybrid
llm_prompt_file: "evaluators/llm-judge/negation_simple_prompt.md"
"""


def benchmark(code: str = "A-NEG2", **changes: Any) -> dict[str, Any]:
    """A valid manual_sme benchmark of rubric A-NEG (weight 0.75) with ``changes`` applied."""
    data: dict[str, Any] = {
        "code": code,
        "parent_rubric": "A-NEG",
        "label": "Double negation",
        "concept": "Double negatives are resolved correctly. Threshold: 3 of 4.",
        "weight": 0.75,
        "threshold": 3,
        "scoring_scale": {
            "min_value": 0,
            "max_value": 4,
            "normalization_formula": "(x-min)/(max-min)",
            "descriptions": {4: "correct", 3: "minor slip", 2: "partly wrong", 0: "wrong"},
        },
        "evaluator_type": "manual_sme",
        "inclusion_criteria": (
            "Apply when the narrative contains a double negative. Flag if the output records"
            " the finding with the wrong polarity, or the output drops the finding entirely."
        ),
        "exclusion_criteria": (
            "Do not apply when the narrative is a template. Also exclude transcripts that are"
            " cut off mid-sentence."
        ),
        "examples": ["'not without pain' recorded as pain: false"],
    }
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def write(folder: Path, name: str, content: Any) -> Path:
    path = folder / name
    path.write_text(
        content if isinstance(content, str) else yaml.safe_dump(content, sort_keys=False)
    )
    return path


def valid_set(folder: Path) -> list[Path]:
    """A-NEG1 (hybrid) + A-NEG2 (manual_sme) in one rubric summing to 1."""
    return [write(folder, "a-neg1.yaml", ANEG1), write(folder, "a-neg2.yaml", benchmark())]
