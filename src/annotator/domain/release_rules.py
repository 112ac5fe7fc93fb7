"""The checks a case's final content must pass before it can be green-lit."""

from __future__ import annotations

from typing import Any

from annotator.domain.checks import check_case
from annotator.domain.vocabulary import is_follow_up, is_non_imaging


def release_problems(case: dict[str, Any], available_paths: set[str]) -> list[str]:
    """Readable reasons the release content is not acceptable (empty: it passes)."""
    problems: list[str] = []
    exams = [e for e in case.get("imaging_examinations") or [] if isinstance(e, dict)]
    figures = [str(e.get("figure")) for e in exams]
    sources = [s.get("source") for s in case.get("diagnostic_steps") or [] if isinstance(s, dict)]
    for figure in figures:
        count = sources.count(figure)
        if count != 1:
            problems.append(f"{figure}: {count} diagnostic steps (exactly one per exam)")
    for source in sources:
        if source not in figures:
            problems.append(f"a diagnostic step names {source!r}, which is no exam")
    for exam in exams:
        stage = exam.get("preferred_order")
        if stage is not None and type(stage) is not int:
            problems.append(f"{exam.get('figure')}: preferred_order {stage!r} is not an integer")
        paths = exam.get("image_paths") or []
        if not paths:
            problems.append(f"{exam.get('figure')}: no image")
        for path in paths:
            if path not in available_paths:
                problems.append(f"{exam.get('figure')}: image {path} is missing")
    reference = ((case.get("rubric_0_to_3") or {}).get("Localisation") or {}).get(
        "reference_answer"
    )
    if not (
        isinstance(reference, dict)
        and all(
            isinstance(reference.get(k), str)
            for k in ("Laterality", "Organ/Region", "Specific Substructure/Segment")
        )
    ):
        problems.append(
            "Localisation reference answer needs Laterality, Organ/Region and "
            "Specific Substructure/Segment"
        )
    steps = {s.get("source"): s for s in case.get("diagnostic_steps") or [] if isinstance(s, dict)}
    used = [
        e
        for e in exams
        if not is_follow_up((e.get("meta_info") or {}).get("time_past"))
        and not is_non_imaging(e.get("meta_info") or {})
    ]
    if not any(
        str((steps.get(e.get("figure")) or {}).get("essential", "")).lower() == "essential"
        for e in used
    ):
        problems.append("no essential exam among the exams the scoring core uses")
    problems.extend(f"{p.field}: {p.message}" for p in check_case(case))
    return problems
