"""Pure checks of a case's content: what blocks the green light, and what only warns.

They read the raw case dict, so they run on a draft at import and again on the final values
after adjudication. They never raise on odd shapes: a value of the wrong type is simply not
what the check looks for (type errors are the case model's business).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from annotator.domain.text import clipped
from annotator.domain.vocabulary import LABELS, metadata_misreads, unfamiliar_terms

RUBRIC_LEVELS = ("3", "2", "1", "0")
LOCALISATION_KEYS = ("Laterality", "Organ/Region", "Specific Substructure/Segment")
ATTRIBUTION_KEYS = ("source_url", "author", "license")


@dataclass(frozen=True)
class Problem:
    """One finding: a stable ``code``, the readable ``field`` path, and a message."""

    code: str
    field: str
    message: str


def _text(value: object) -> bool:
    return isinstance(value, str) and bool(value.strip())


def _dicts(value: object) -> list[tuple[int, dict[str, Any]]]:
    if not isinstance(value, list):
        return []
    return [(i, item) for i, item in enumerate(value) if isinstance(item, dict)]


def check_case(content: dict[str, Any]) -> list[Problem]:
    """Everything that makes a case ``needs_fix`` (empty list: nothing blocks it)."""
    problems: list[Problem] = []
    problems += _check_texts(content)
    problems += _check_exams(content)
    problems += _check_steps(content)
    problems += _check_rubrics(content)
    return problems


def _check_texts(content: dict[str, Any]) -> list[Problem]:
    found: list[Problem] = []
    if not _text(content.get("clinical_history")):
        found.append(Problem("clinical_history_missing", "clinical_history",
                             "the clinical history (all the model sees at turn 0) is empty"))
    item = content.get("item")
    open_ended = item.get("open_ended") if isinstance(item, dict) else None
    fallback = open_ended.get("reference_answer") if isinstance(open_ended, dict) else None
    if not _text(content.get("final_diagnosis")) and not _text(fallback):
        found.append(Problem("final_diagnosis_missing", "final_diagnosis",
                             "no final diagnosis and no open-ended reference answer"))
    for kind in ("difficulty", "rarity"):
        value = content.get(kind)
        if value is not None and value not in LABELS[kind]:
            found.append(Problem("case_label_unknown", kind,
                                 f"{kind} {clipped(value)} is not one of"
                                 f" {', '.join(LABELS[kind])}"))
    return found


def _check_exams(content: dict[str, Any]) -> list[Problem]:
    found: list[Problem] = []
    seen: dict[str, int] = {}
    for i, exam in _dicts(content.get("imaging_examinations")):
        where = f"imaging_examinations[{i}]"
        figure = exam.get("figure")
        if not isinstance(figure, str) or not figure.strip():
            found.append(Problem("exam_figure_missing", f"{where}.figure",
                                 "the exam has no figure"))
        elif figure in seen:
            found.append(Problem("exam_duplicate_figure", f"{where}.figure",
                                 f"{clipped(figure)} is also the figure of imaging_examinations"
                                 f"[{seen[figure]}]; an exam's figure must be unique"))
        else:
            seen[figure] = i
        meta = exam.get("meta_info")
        if isinstance(meta, dict):
            for key, message in metadata_misreads(meta):
                found.append(Problem("metadata_misread", f"{where}.meta_info.{key}", message))
    return found


def _check_steps(content: dict[str, Any]) -> list[Problem]:
    figures = [e["figure"] for _, e in _dicts(content.get("imaging_examinations"))
               if isinstance(e.get("figure"), str)]
    found: list[Problem] = []
    first_step: dict[str, int] = {}
    for i, step in _dicts(content.get("diagnostic_steps")):
        where = f"diagnostic_steps[{i}]"
        source = step.get("source")
        if not isinstance(source, str) or source not in figures:
            found.append(Problem("step_source_unknown", f"{where}.source",
                                 _unknown_source_message(source, figures)))
        elif source in first_step:
            found.append(Problem("step_duplicate_exam", f"{where}.source",
                                 f"diagnostic_steps[{first_step[source]}] already names"
                                 f" {clipped(source)}; one step per exam"))
        else:
            first_step[source] = i
        importance = step.get("essential")
        if importance is not None and (
            not isinstance(importance, str) or importance.lower() not in LABELS["importance"]
        ):
            found.append(Problem("step_importance_unknown", f"{where}.essential",
                                 f"importance {clipped(importance)} counts as 'optional' for the"
                                 " scorer; use essential, optional or unnecessary"))
    return found


def _unknown_source_message(source: object, figures: list[str]) -> str:
    if not _text(source):
        return "the step names no exam"
    close = [f for f in figures if _loose(f) == _loose(str(source))]
    hint = f" (did you mean {clipped(close[0])}? the match must be exact)" if close else ""
    return f"{clipped(source)} is not the figure of any exam{hint}"


def _loose(figure: str) -> str:
    # "Fig. 1", "figure 1" and "Figure 1" are the same exam to a reader, not to the scorer.
    text = figure.lower().replace("figure", "fig").replace(".", " ")
    return "".join(text.split())


def _check_rubrics(content: dict[str, Any]) -> list[Problem]:
    rubrics = content.get("rubric_0_to_3")
    if not isinstance(rubrics, dict):
        return [Problem("rubric_missing", "rubric_0_to_3", "the case has no rubrics")]
    found: list[Problem] = []
    for part in ("Diagnosis", "Localisation"):
        where = f"rubric_0_to_3.{part}"
        rubric = rubrics.get(part)
        if not isinstance(rubric, dict):
            found.append(Problem("rubric_missing", where, f"the {part} rubric is missing"))
            continue
        found += _check_reference(part, rubric.get("reference_answer"), f"{where}.reference_answer")
        for level in RUBRIC_LEVELS:
            if not _text(rubric.get(level)):
                found.append(Problem("rubric_missing_level", f"{where}.{level}",
                                     f"the {part} rubric has no level {level}"))
    return found


def _check_reference(part: str, reference: object, where: str) -> list[Problem]:
    if part == "Diagnosis":
        if _text(reference):
            return []
        return [Problem("rubric_missing_reference", where, "the Diagnosis rubric has no reference")]
    if isinstance(reference, str) and reference.strip():
        return [Problem("localisation_reference_not_object", where,
                        "the Localisation reference must be an object of Laterality,"
                        " Organ/Region and Specific Substructure/Segment; the scorer gives a"
                        " string 0 points")]
    if not isinstance(reference, dict):
        return [Problem("rubric_missing_reference", where,
                        "the Localisation rubric has no reference")]
    return [
        Problem("rubric_missing_reference", f"{where}.{key}",
                f"the Localisation reference has no {key}")
        for key in LOCALISATION_KEYS if not _text(reference.get(key))
    ]


# --- warnings ------------------------------------------------------------------------------


@dataclass(frozen=True)
class ImageUse:
    """One image a case references, with where, by which exams, and its attribution."""

    draft_path: str
    field: str  # first reference, e.g. "imaging_examinations[0].image_paths[1]"
    figures: tuple[str, ...] = ()
    name: str | None = None
    caption: str | None = None
    attribution: dict[str, str | None] = dataclasses.field(default_factory=dict)


def image_uses(content: dict[str, Any]) -> list[ImageUse]:
    """Images referenced by exams' ``image_paths`` and ``images[].path``, once per path.

    Attribution comes from the ``images[]`` entry, else from the case-level keys.
    """
    where: dict[str, str] = {}
    figures: dict[str, list[str]] = {}
    for i, exam in _dicts(content.get("imaging_examinations")):
        paths = exam.get("image_paths")
        for j, path in enumerate(paths if isinstance(paths, list) else []):
            if isinstance(path, str):
                where.setdefault(path, f"imaging_examinations[{i}].image_paths[{j}]")
                figure = exam.get("figure")
                if isinstance(figure, str) and figure not in figures.setdefault(path, []):
                    figures[path].append(figure)
    entries: dict[str, dict[str, Any]] = {}
    for k, entry in _dicts(content.get("images")):
        path = entry.get("path")
        if isinstance(path, str):
            where.setdefault(path, f"images[{k}].path")
            entries.setdefault(path, entry)
    uses = []
    for path, first in where.items():
        entry = entries.get(path, {})
        attribution = {key: _pick(entry.get(key), content.get(key)) for key in ATTRIBUTION_KEYS}
        uses.append(ImageUse(path, first, tuple(figures.get(path, ())), _pick(entry.get("name")),
                             _pick(entry.get("caption")), attribution))
    return uses


def _pick(*values: object) -> str | None:
    for value in values:
        if _text(value):
            return str(value)
    return None


def attribution_warnings(content: dict[str, Any]) -> list[Problem]:
    """Images without a source URL or licence (case-level keys are the defaults)."""
    found: list[Problem] = []
    for use in image_uses(content):
        lacking = [label for key, label in (("source_url", "source URL"), ("license", "licence"))
                   if use.attribution.get(key) is None]
        if lacking:
            found.append(Problem("image_attribution_missing", use.field,
                                 f"image {clipped(use.draft_path)} has no"
                                 f" {' and no '.join(lacking)}"))
    return found


def case_warnings(content: dict[str, Any]) -> list[Problem]:
    """Non-blocking findings: attribution, exams without images, unfamiliar metadata terms."""
    found = attribution_warnings(content)
    for i, exam in _dicts(content.get("imaging_examinations")):
        where = f"imaging_examinations[{i}]"
        if not exam.get("image_paths"):
            found.append(Problem("exam_without_images", f"{where}.image_paths",
                                 "the exam has no image; the scorer drops it from the pool"))
        meta = exam.get("meta_info")
        if isinstance(meta, dict):
            for key, message in unfamiliar_terms(meta):
                found.append(Problem("metadata_unfamiliar", f"{where}.meta_info.{key}", message))
    return found
