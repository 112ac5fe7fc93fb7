"""``annotator bench-project``: a synthetic project shaped like the demo's cases, at any size.

Each case copies the structure of one bundled demo case (its exams, figures, steps and
rubric) under a new id, with new, deterministic images in place of the demo's: 8-bit PNGs,
16-bit CT DICOM and, for a share of cases, a multi-frame MR series. The project is then built
through the real services (import, assign, annotate, submit), so its store is what users make.
"""

from __future__ import annotations

import copy
import json
import random
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from sqlalchemy import select

from annotator.bench.images import dicom_bytes, png_bytes
from annotator.bench.sme_items import add_sme_review
from annotator.errors import ProjectError, StateError
from annotator.resources import demo_cases_dir
from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.demo import SENIOR, _keep_key_exam_essential, _label_fully
from annotator.services.imports import import_cases
from annotator.services.review import actions
from annotator.services.users import add_user
from annotator.store.project import Project, open_project, project_is_empty
from annotator.store.schema import Annotation, Case, User
from annotator.store.settings import PROJECT_NAME

CURATOR = "Bench Curator"
__all__ = ["CURATOR", "SENIOR", "BenchSummary", "annotator_names", "build_bench_project",
           "write_drafts"]  # SENIOR: the demo's senior, whose seeded behaviour is reused
SEED = 14
PNG_SIZE = 320
DICOM_SIZE = 256
SERIES_SIZE, SERIES_FRAMES = 128, 8
MULTIFRAME_SHARE = 0.15  # cases whose first DICOM is a multi-frame series
SUBMITTED_SHARE = 0.7  # cases every annotator submitted (the review queue)
STARTED_SHARE = 0.15  # cases with work in progress; the rest are untouched


@dataclass
class BenchSummary:
    cases: int
    files: int
    bytes: int
    submitted_cases: int

    def line(self) -> str:
        return (f"{self.cases} cases, {self.files} image files ({self.bytes / 2**20:.1f} MiB),"
                f" {self.submitted_cases} submitted by every annotator")


def annotator_names(k: int) -> list[str]:
    return [f"Dr Bench {i + 1:02d}" for i in range(k)]


def write_drafts(folder: Path, cases: int, seed: int = SEED) -> tuple[int, int]:
    """Write ``cases`` draft JSON files and their images; returns (image files, bytes)."""
    templates = sorted(demo_cases_dir().glob("*.json"))
    rng = np.random.default_rng(seed)
    files = total = 0
    for number in range(1, cases + 1):
        template = json.loads(templates[(number - 1) % len(templates)].read_text("utf-8"))
        case_id = f"bench-{number:05d}"
        paths = sorted(_image_paths(template))
        multiframe = rng.random() < MULTIFRAME_SHARE
        renamed: dict[str, str] = {}
        for index, old in enumerate(paths):
            is_dicom = old.endswith(".dcm") or index % 4 == 3  # a share of PNGs become DICOM
            name = f"images/{case_id}/{Path(old).stem}.{'dcm' if is_dicom else 'png'}"
            if is_dicom and multiframe:
                data = dicom_bytes(rng, SERIES_SIZE, SERIES_FRAMES, f"Bench Patient {number}")
                multiframe = False
            elif is_dicom:
                data = dicom_bytes(rng, DICOM_SIZE, 1, f"Bench Patient {number}")
            else:
                data = png_bytes(rng, PNG_SIZE)
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(data)
            renamed[old] = name
            files += 1
            total += len(data)
        draft = _replace_strings(template, {**renamed, template["case_id"]: case_id})
        draft["case_id"] = case_id
        (folder / f"{case_id}.json").write_text(json.dumps(draft, indent=1), "utf-8")
    return files, total


def _image_paths(draft: dict[str, Any]) -> set[str]:
    return {str(image["path"]) for image in draft.get("images", [])}


def _replace_strings(value: Any, mapping: dict[str, str]) -> Any:
    if isinstance(value, str):
        return mapping.get(value, value)
    if isinstance(value, list):
        return [_replace_strings(v, mapping) for v in value]
    if isinstance(value, dict):
        return {k: _replace_strings(v, mapping) for k, v in value.items()}
    return copy.copy(value)


def build_bench_project(
    location: str, cases: int, annotators: int, *, progress: Callable[[str], None] | None = None,
    sme: bool = False,
) -> BenchSummary:
    """Create the synthetic project at ``location`` (a new folder or an empty store); with
    ``sme``, also an SME review of generated items (:mod:`annotator.bench.sme_items`)."""
    if cases < 1 or annotators < 2:
        raise ProjectError("bench-project needs at least 1 case and 2 annotators")
    say = progress or (lambda _text: None)
    project = open_project(location)
    try:
        if not project_is_empty(project):
            raise ProjectError(f"{location} already holds a project with cases")
        with tempfile.TemporaryDirectory(prefix="annotator-bench-") as tmp:
            drafts = Path(tmp)
            files, size = write_drafts(drafts, cases)
            say(f"wrote {cases} draft cases, {files} images")
            names = _setup(project, annotators)
            report = import_cases(project, CURATOR, [drafts])
            if report.failed:
                bad = [o.reason for o in report.outcomes if o.status in ("rejected", "refused")]
                raise ProjectError("synthetic cases did not import: " + "; ".join(bad[:3]))
        say("imported")
        assign(project, CURATOR, min(3, annotators))
        # Drafts that need fixing (as some demo cases do) are left untouched, as in the demo.
        needs_fix = {o.case_id for o in report.outcomes if o.needs_fix}
        submitted = _annotate(project, names, cases, needs_fix, say)
        green = 0
        for case_id in submitted[::2]:  # half of them adjudicated and green-lit (the release)
            try:
                actions.demo_adjudicate(project, SENIOR, [case_id])
                _keep_key_exam_essential(project, case_id)
                green += 1
            except StateError:  # a release check the senior would fix by hand: left in review
                pass
        say(f"green-lit {green} cases")
        if sme:
            items = add_sme_review(project, CURATOR, names, cases, SEED)
            say(f"SME review: {items} items, two SMEs each, most verdicts submitted")
        return BenchSummary(cases, files, size, len(submitted))
    finally:
        project.close()


def _setup(project: Project, annotators: int) -> list[str]:
    project.set_setting(PROJECT_NAME, "annotator bench: synthetic cases")
    add_user(project, "(setup)", CURATOR, ["curator"])
    names = annotator_names(annotators)
    for name in names:
        add_user(project, CURATOR, name, ["annotator"])
    add_user(project, CURATOR, SENIOR, ["adjudicator"])
    return names


def _annotate(
    project: Project, names: list[str], cases: int, skip: set[str | None],
    say: Callable[[str], None],
) -> list[str]:
    """Seeded work: most cases submitted by all (with disagreements), some in progress."""
    rng = random.Random(SEED)
    submitted: list[str] = []
    for number in range(1, cases + 1):
        case_id = f"bench-{number:05d}"
        draw = rng.random()
        if draw >= SUBMITTED_SHARE + STARTED_SHARE or case_id in skip:
            continue
        workers = _assigned(project, names, case_id)
        if draw < SUBMITTED_SHARE:
            for name in workers:
                _label_fully(project, name, case_id, rng, disagree=0.3)
                kinds.CASES.submit(project, name, case_id)
            submitted.append(case_id)
        else:
            annotating.accept_suggestions(project, workers[0], case_id)
        if number % 100 == 0:
            say(f"annotated {number}/{cases} cases")
    return submitted


def _assigned(project: Project, names: list[str], case_id: str) -> list[str]:
    with project.tx() as session:
        rows = session.scalars(
            select(User.name)
            .join(Annotation, Annotation.annotator_id == User.id)
            .join(Case, Case.id == Annotation.case_pk)
            .where(Case.case_id == case_id, Annotation.withdrawn_at.is_(None))
        )
        return sorted(rows)
