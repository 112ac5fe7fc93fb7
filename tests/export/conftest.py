"""A project with green-lit, excluded and held-back cases, built only through the services.

Cases: R1 (a DICOM exam, a tie, time_past 6 and -3), R2 (an adjudicated conflict and a
reviewer's comment), "case 3" (an id that is not a safe file name), X1 (discarded ->
excluded), H1 (still being annotated). The de-identification seed is fixed so the same
build gives the same bytes on SQLite and PostgreSQL.
"""

from __future__ import annotations

import copy
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from annotator.errors import NotFound
from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.review import base, decisions
from annotator.services.users import add_user
from annotator.store.project import Project, open_project
from annotator.store.settings import DEID_SEED
from factories import make_case, write_case_file

CURATOR = "Sam Curator"
PHYSICIANS = ("Dr Ada Rivera", "Dr Ben Okafor", "Dr Chen Li")
SENIOR = "Dr Dana Weiss"
FIXTURES = Path(__file__).parent / "fixtures"


def _with_dicom_exam(case: dict[str, Any]) -> dict[str, Any]:
    case = copy.deepcopy(case)
    case["imaging_examinations"].append({
        "figure": "Figure 4",
        "preferred_order": 3,
        "image_caption": "Non-contrast CT of the head.",
        "meta_info": {"modality": "CT", "acquisition": "non-contrast", "view": "axial",
                      "imaged_region": "head", "contrast": "non-contrast", "time_past": None},
        "image_paths": ["img/f4.dcm"],
        "key_findings": ["normal CT"],
    })
    case["diagnostic_steps"].append({"source": "Figure 4", "essential": "unnecessary",
                                     "step": "Review Figure 4", "reason": "r4"})
    case["images"].append({"name": "Figure 4a", "caption": "CT", "path": "img/f4.dcm",
                           "source_url": "https://example.org/f4", "author": "Test",
                           "license": "CC0-1.0"})
    return case


def write_drafts(folder: Path) -> Path:
    """The draft file and its images (PNG plus pydicom's bundled CT_small.dcm)."""
    from pydicom.data import get_testdata_file

    cases = [_with_dicom_exam(make_case("R1")), make_case("R2"), make_case("case 3"),
             make_case("X1"), make_case("H1")]
    path = write_case_file(folder, cases)
    shutil.copyfile(get_testdata_file("CT_small.dcm", download=False), folder / "img" / "f4.dcm")
    return path


def annotators_of(project: Project, case_id: str) -> list[str]:
    found = []
    for name in PHYSICIANS:
        try:
            annotating.view(project, name, case_id)
        except NotFound:
            continue
        found.append(name)
    return found


def build(location: str, drafts: Path, *, deidentify: bool = True,
          writer: Callable[[Path], Path] = write_drafts) -> Project:
    """Create the project at ``location`` from ``writer``'s drafts; replay the reviewers' work."""
    project = open_project(location)
    project.set_setting(DEID_SEED, "export-test-seed")
    add_user(project, "(setup)", CURATOR, ["curator"])
    for name in PHYSICIANS:
        add_user(project, CURATOR, name, ["annotator"])
    add_user(project, CURATOR, SENIOR, ["adjudicator"])
    report = import_cases(project, CURATOR, [writer(drafts)], deidentify=deidentify)
    assert not report.failed, [o.reason for o in report.outcomes]
    assign(project, CURATOR, 2)
    for case_id in ("R1", "R2", "case 3"):
        first, second = annotators_of(project, case_id)
        for name in (first, second):
            annotating.accept_suggestions(project, name, case_id)
        if case_id == "R2":
            annotating.set_label(project, second, case_id, "importance", "Figure 3", "essential")
            annotating.set_label(project, first, case_id, "comment", "",
                                 "Checked the FLAIR twice.")
        for name in (first, second):
            kinds.CASES.submit(project, name, case_id)
        for item in base.review_case(project, case_id).final.open:
            decisions.decide(project, SENIOR, case_id, item.key, "optional", "clinical_judgement",
                          "FLAIR does not change the workup.")
        decisions.green_light(project, SENIOR, case_id)
    first, second = annotators_of(project, "X1")
    annotating.set_label(project, first, "X1", "discard", "",
                         {"reason_code": "image_quality", "text": "blurred"})
    kinds.CASES.submit(project, first, "X1")
    annotating.accept_suggestions(project, second, "X1")
    kinds.CASES.submit(project, second, "X1")
    decisions.decide(project, SENIOR, "X1", "discard",
                  {"reason_code": "image_quality", "text": "blurred"}, "protocol",
                  "Key image unusable.")
    annotating.accept_suggestions(project, annotators_of(project, "H1")[0], "H1")
    return project


@pytest.fixture
def build_project(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[Callable[..., Project]]:
    """``build_project(location, deidentify=True)`` builds the seeded project (closed after)."""
    opened: list[Project] = []

    def make(location: str, *, deidentify: bool = True,
             writer: Callable[[Path], Path] = write_drafts) -> Project:
        project = build(location, tmp_path_factory.mktemp("drafts"), deidentify=deidentify,
                        writer=writer)
        opened.append(project)
        return project

    yield make
    for project in opened:
        project.close()


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    """The seeded project on SQLite, shared by a module's tests (they must not change it)."""
    project = build(str(tmp_path_factory.mktemp("project") / "p"),
                    tmp_path_factory.mktemp("drafts"))
    yield project
    project.close()


@pytest.fixture(scope="module")
def exported(released: Project, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The release of :func:`released`, version 1.0.0 dated 2026-05-06 (do not modify)."""
    from annotator.services.export import export_release

    out = tmp_path_factory.mktemp("release") / "v1"
    export_release(released, CURATOR, out, version="1.0.0", date="2026-05-06")
    return out


@pytest.fixture
def fixture_release() -> list[dict[str, Any]]:
    import json

    data: list[dict[str, Any]] = json.loads((FIXTURES / "release.json").read_text("utf-8"))
    return data
