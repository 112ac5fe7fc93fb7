"""The release rules: what a case's final content must satisfy to be released.

One implementation for the three places that check it: the green light
(:func:`release_problems`, with the images the project holds), and the export writer and
``annotator validate`` (:func:`structure_problems`, after the release model's type checks).
"""

from __future__ import annotations

from typing import Any

from annotator.domain.checks import LOCALISATION_KEYS, check_case
from annotator.domain.vocabulary import is_follow_up, is_non_imaging


def _exams(case: dict[str, Any]) -> list[dict[str, Any]]:
    return [e for e in case.get("imaging_examinations") or [] if isinstance(e, dict)]


def _steps(case: dict[str, Any]) -> list[dict[str, Any]]:
    return [s for s in case.get("diagnostic_steps") or [] if isinstance(s, dict)]


def structure_problems(case: dict[str, Any]) -> list[str]:
    """Rules across keys: unique figures, exactly one step per exam, steps naming exams."""
    figures = [e.get("figure") for e in _exams(case)]
    problems = [
        f"imaging_examinations: figure {f!r} appears {figures.count(f)} times"
        for f in sorted({f for f in figures if figures.count(f) > 1}, key=str)
    ]
    sources = [s.get("source") for s in _steps(case)]
    for i, source in enumerate(sources):
        if source not in figures:
            problems.append(f"diagnostic_steps[{i}].source: {source!r} names no exam")
    for figure in dict.fromkeys(figures):
        count = sources.count(figure)
        if count != 1:
            problems.append(f"{figure}: {count} diagnostic steps (exactly one per exam)")
    return problems


def release_problems(case: dict[str, Any], available_paths: set[str]) -> list[str]:
    """Readable reasons the case cannot be green-lit (empty: it passes)."""
    return [
        *structure_problems(case),
        *_exam_problems(case, available_paths),
        *_localisation_problems(case),
        *_essential_problems(case),
        *(f"{p.field}: {p.message}" for p in check_case(case)),
    ]


def _exam_problems(case: dict[str, Any], available_paths: set[str]) -> list[str]:
    """Each exam has an integer stage (or none) and images the project holds."""
    problems: list[str] = []
    for exam in _exams(case):
        stage = exam.get("preferred_order")
        if stage is not None and type(stage) is not int:
            problems.append(f"{exam.get('figure')}: preferred_order {stage!r} is not an integer")
        paths = exam.get("image_paths") or []
        if not paths:
            problems.append(f"{exam.get('figure')}: no image")
        problems += [
            f"{exam.get('figure')}: image {path} is missing"
            for path in paths
            if path not in available_paths
        ]
    return problems


def _localisation_problems(case: dict[str, Any]) -> list[str]:
    rubric = case.get("rubric_0_to_3") or {}
    reference = (rubric.get("Localisation") or {}).get("reference_answer")
    if isinstance(reference, dict) and all(
        isinstance(reference.get(k), str) for k in LOCALISATION_KEYS
    ):
        return []
    return [
        "Localisation reference answer needs Laterality, Organ/Region and "
        "Specific Substructure/Segment"
    ]


def _essential_problems(case: dict[str, Any]) -> list[str]:
    """The scoring core needs at least one essential exam among those it uses."""
    steps = {s.get("source"): s for s in _steps(case)}
    used = [
        e
        for e in _exams(case)
        if not is_follow_up((e.get("meta_info") or {}).get("time_past"))
        and not is_non_imaging(e.get("meta_info") or {})
    ]
    if any(
        str((steps.get(e.get("figure")) or {}).get("essential", "")).lower() == "essential"
        for e in used
    ):
        return []
    return ["no essential exam among the exams the scoring core uses"]
