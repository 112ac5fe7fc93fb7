"""The release rules: what a case's final content must satisfy to be released.

One implementation for the three places that check it: the green light
(:func:`release_problems`, with the images the project holds), and the export writer and
``annotator validate`` (:func:`structure_problems`, after the release model's type checks).
Problems block the green light; :func:`release_warnings` do not (the adjudicator may know
better) but are shown at green light and in the export's pre-flight list.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any

from annotator.domain.checks import LOCALISATION_KEYS, check_case
from annotator.domain.vocabulary import is_follow_up, is_non_imaging


def _dicts(value: Any) -> list[dict[str, Any]]:
    # A wrong type (an int where the list belongs) is the schema check's problem, not a crash.
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def _exams(case: dict[str, Any]) -> list[dict[str, Any]]:
    return _dicts(case.get("imaging_examinations"))


def _steps(case: dict[str, Any]) -> list[dict[str, Any]]:
    return _dicts(case.get("diagnostic_steps"))


def structure_problems(case: dict[str, Any]) -> list[str]:
    """Rules across keys: unique figures, exactly one step per exam, steps naming exams."""
    # Only string figures can name an exam; a wrong type is already a schema problem.
    figures = Counter(f for e in _exams(case) if isinstance(f := e.get("figure"), str))
    problems = [
        f"imaging_examinations: figure {f!r} appears {n} times"
        for f, n in sorted(figures.items()) if n > 1
    ]
    sources = [s for step in _steps(case) if isinstance(s := step.get("source"), str)]
    for i, source in enumerate(sources):
        if source not in figures:
            problems.append(f"diagnostic_steps[{i}].source: {source!r} names no exam")
    steps = Counter(sources)
    for figure in figures:  # in the exams' order (a Counter keeps first appearance)
        if steps[figure] != 1:
            problems.append(f"{figure}: {steps[figure]} diagnostic steps (exactly one per exam)")
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


def release_warnings(case: Mapping[str, Any], sha256_by_path: Mapping[str, str]) -> list[str]:
    """Readable warnings about the final content (empty: nothing to flag).

    Two exams of one case whose images have identical bytes are most likely one image
    filed twice: the "evidence" of the second exam reveals nothing new and its metadata
    describes something else.
    """
    figures_by_hash: dict[str, list[str]] = {}
    for exam in case.get("imaging_examinations") or []:
        if not isinstance(exam, dict):
            continue
        figure = str(exam.get("figure"))
        for path in exam.get("image_paths") or []:
            digest = sha256_by_path.get(path) if isinstance(path, str) else None
            if digest and figure not in figures_by_hash.setdefault(digest, []):
                figures_by_hash[digest].append(figure)
    return [
        f"{', '.join(figures)}: identical image bytes (sha256 {digest[:12]}...) in different"
        " exams; one image filed twice?"
        for digest, figures in sorted(figures_by_hash.items(), key=lambda kv: kv[1])
        if len(figures) > 1
    ]
