"""The numbers a release states about itself, computed from the release JSON alone.

The card and croissant.json print these; ``validate`` recomputes them from release.json and
compares, so a card that drifted from its data is caught.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from annotator.domain.labels import DIFFICULTY, IMPORTANCE, RARITY
from annotator.domain.vocabulary import is_follow_up, is_non_imaging, is_prior

# Counts derived from release.json: key -> label in the card's identity table.
JSON_COUNTS = {
    "released_cases": "Released cases",
    "exam_records": "Imaging-examination records",
    "follow_up_exams": "Future follow-up exams (time_past < 0, not requestable)",
    "requestable_exams": "Requestable evidence units",
    "prior_exams": "Prior studies (time_past > 0)",
    "non_imaging_exams": "Non-imaging exams (outside route metrics)",
    "diagnostic_steps": "Diagnostic-step annotations",
    "images": "Images",
}
# Counts about the project that the JSON cannot show (stated, not re-derivable).
PROJECT_COUNTS = {
    "project_cases": "Cases in the project",
    "annotated_candidates": "Annotated candidates",
    "excluded_cases": "Excluded cases",
    "held_back_cases": "Held back (not green-lit)",
}
COUNT_LABELS = {**PROJECT_COUNTS, **JSON_COUNTS}


def _dicts(value: Any) -> list[dict[str, Any]]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def image_paths(case: dict[str, Any]) -> list[str]:
    """Distinct image paths a case cites (exams first, then the ``images`` index)."""
    paths: list[str] = []
    for exam in _dicts(case.get("imaging_examinations")):
        listed = exam.get("image_paths")
        paths += [p for p in listed if isinstance(p, str)] if isinstance(listed, list) else []
    paths += [e["path"] for e in _dicts(case.get("images")) if isinstance(e.get("path"), str)]
    return list(dict.fromkeys(paths))


def json_counts(cases: list[Any]) -> dict[str, int]:
    """The :data:`JSON_COUNTS` of a release array."""
    objects = [c for c in cases if isinstance(c, dict)]
    exams = [e for c in objects for e in _dicts(c.get("imaging_examinations"))]
    metas: list[dict[str, Any]] = [
        m if isinstance(m := e.get("meta_info"), dict) else {} for e in exams
    ]
    follow = sum(1 for m in metas if is_follow_up(m.get("time_past")))
    return {
        "released_cases": len(objects),
        "exam_records": len(exams),
        "follow_up_exams": follow,
        "requestable_exams": len(exams) - follow,
        "prior_exams": sum(1 for m in metas if is_prior(m.get("time_past"))),
        "non_imaging_exams": sum(1 for m in metas if is_non_imaging(m)),
        "diagnostic_steps": sum(len(_dicts(c.get("diagnostic_steps"))) for c in objects),
        "images": sum(len(image_paths(c)) for c in objects),
    }


def distributions(cases: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Difficulty, rarity and step-importance counts over the contract's full label sets."""
    def count(values: list[Any], labels: tuple[str, ...]) -> dict[str, int]:
        seen = Counter(values)
        out = {label: seen.get(label, 0) for label in labels}
        others = sum(n for v, n in seen.items() if v not in labels)
        if others:
            out["other"] = others
        return out

    steps = [s.get("essential") for c in cases for s in _dicts(c.get("diagnostic_steps"))]
    return {
        "difficulty": count([c.get("difficulty") for c in cases], DIFFICULTY),
        "rarity": count([c.get("rarity") for c in cases], RARITY),
        "importance": count(steps, IMPORTANCE),
    }
