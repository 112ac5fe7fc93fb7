"""The demo project: bundled draft cases plus seeded work replayed through the services.

Three physicians and one senior adjudicator act only through the same operations the GUI and
command line use, so every page of the app has content: untouched cases, work in progress,
submitted cases with disagreements, adjudicated and green-lit cases, and excluded ones.
"""

from __future__ import annotations

import random
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.domain.case import canonical_json
from annotator.domain.labels import LabelEdit
from annotator.domain.suggestions import suggestions
from annotator.errors import NotFound, ProjectError
from annotator.resources import demo_cases_dir
from annotator.review.items import Item
from annotator.services import annotating, kinds
from annotator.services.assignments import assign
from annotator.services.export import save_card_settings
from annotator.services.imports import import_cases
from annotator.services.judging.demo import demo_judge_scoring
from annotator.services.pixel_review import accept_suggested, list_images, no_phi
from annotator.services.quality import mark_item, set_quality_settings
from annotator.services.rating.repeats import add_repeats
from annotator.services.review import actions, base, decisions
from annotator.services.sme.demo import demo_sme_review
from annotator.services.status import project_status
from annotator.services.sync.demo import demo_offline_round_trip
from annotator.services.users import add_user
from annotator.staging import move_into_place, staging_dir
from annotator.store.project import Project, is_url, open_project, project_is_empty
from annotator.store.schema import Case, CaseRevision
from annotator.store.settings import DEID_SEED, PROJECT_NAME
from annotator.userdirs import user_data_dir

CURATOR = "Sam Curator"
REDACTED_CASE = "demo-007"  # its f4_a.png carries a made-up burned-in name
PHYSICIANS = ("Dr Ada Rivera", "Dr Ben Okafor", "Dr Chen Li")
# Planted reliability (issue 26): how often each physician departs from the case author's
# answer, and how fast they work; `annotator quality` must rank them in this order.
PLANTED_DEPARTURE = {"Dr Ada Rivera": 0.08, "Dr Ben Okafor": 0.3, "Dr Chen Li": 0.55}
PLANTED_PACE = {"Dr Ada Rivera": 1.0, "Dr Ben Okafor": 0.8, "Dr Chen Li": 0.45}
SENIOR = "Dr Dana Weiss"
SEED = 20261122
NOTES = (
    "",
    "Classic teaching case; the history nearly gives the answer away.",
    "Caption of the key figure is more specific than the images show.",
    "Would ask for the prior imaging before deciding.",
)
DEMO_DEID_SEED = "annotator-demo"  # fixed so every demo build stores identical images


@dataclass
class DemoPlan:
    """Which cases end in which state (by position among the clean, sorted demo cases)."""

    untouched: list[str] = field(default_factory=list)
    in_progress: list[str] = field(default_factory=list)
    disputed: list[str] = field(default_factory=list)
    green_lit: list[str] = field(default_factory=list)
    excluded: list[str] = field(default_factory=list)


def default_demo_folder() -> Path:
    """Where ``annotator demo`` builds without ``--project``: the user's data folder."""
    return user_data_dir() / "demo"


def build_demo(location: str) -> str:
    """Create the demo project at ``location``; refuses a folder holding another project.

    A folder is built in a hidden staging sibling and renamed into place when complete, so a
    killed build leaves no half-built project (and the next build removes its leftovers).
    """
    if is_url(location):
        return _build(location, location)
    target = Path(location).expanduser().resolve()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        existing = open_project(str(target), create=False)  # refuses what is not a project
        try:
            if not project_is_empty(existing):
                raise ProjectError(f"{location} already holds a project with cases; choose a"
                                   " new folder")
        finally:
            existing.close()
        return _build(str(target), location)
    staging = staging_dir(target, "demo")
    try:
        summary = _build(str(staging), location)
        move_into_place(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return summary


def _build(where: str, location: str) -> str:
    project = open_project(where)
    try:
        return _fill(project, location)
    finally:
        project.close()


def _fill(project: Project, location: str) -> str:
    if not project_is_empty(project):
        raise ProjectError(f"{location} already holds a project with cases; choose a new folder")
    project.set_setting(DEID_SEED, DEMO_DEID_SEED)
    project.set_setting(PROJECT_NAME, "annotator demo: neuroradiology teaching cases")
    add_user(project, "(setup)", CURATOR, ["curator"])
    for name in PHYSICIANS:
        add_user(project, CURATOR, name, ["annotator"])
    add_user(project, CURATOR, SENIOR, ["adjudicator"])
    report = import_cases(project, CURATOR, [demo_cases_dir()])
    if report.failed:
        bad = [
            f"{o.file}: {o.reason}" for o in report.outcomes if o.status in ("rejected", "refused")
        ]
        raise ProjectError("the bundled demo cases did not import: " + "; ".join(bad))
    _review_images(project)
    assign(project, CURATOR, 2)
    plan = replay_work(project)
    demo_judge_scoring(project, CURATOR, SENIOR, SEED)
    demo_sme_review(project, CURATOR, SENIOR, PHYSICIANS, SEED)
    demo_quality(project, plan)
    save_card_settings(
        project,
        CURATOR,
        # As a EuroRad-derived release must be (sources CC BY-NC-SA 4.0, ShareAlike).
        license="CC-BY-NC-SA-4.0",
        source_license="CC-BY-NC-SA-4.0",
        source_dates="written for the demo; no publication dates",
        contact="https://github.com/annotator-demo/issues (demo placeholder)",
        description="Teaching cases written for the annotator demo, with images derived from "
        "files that ship inside pydicom and nilearn (see annotator/demo_data/SOURCES.md).",
        source_collection="annotator demo cases",
        team="Three physician annotators (simulated) and one senior adjudicator (simulated).",
    )
    counts = project_status(project)
    lines = [f"demo project ready at {location}"]
    lines += [f"  {k}: {v}" for k, v in counts.items()]
    lines.append(f"  green-lit: {', '.join(plan.green_lit)}")
    return "\n".join(lines)


def _review_images(project: Project) -> None:
    """The simulated curator reviews every image flagged for burned-in text: a made-up
    name and birth date burned into demo-007's post-contrast T1 is blacked out; the other
    text is the scanner's settings and the figures' own labels, no patient data."""
    accept_suggested(project, CURATOR, [REDACTED_CASE])
    for row in list_images(project, CURATOR):
        if row.unresolved:
            no_phi(project, CURATOR, row.case_id, row.draft_path,
                   "scanner settings and figure labels only, no patient data")


def _plan(case_ids: list[str], needs_fix: set[str]) -> DemoPlan:
    clean = [c for c in case_ids if c not in needs_fix]
    dirty = [c for c in case_ids if c in needs_fix]
    plan = DemoPlan()
    plan.green_lit = clean[:4]
    plan.disputed = clean[4:6]
    plan.excluded = clean[6:7]
    plan.in_progress = clean[7:9] + dirty[:1]
    plan.untouched = clean[9:] + dirty[1:]
    return plan


def _annotators_of(project: Project, case_id: str) -> list[str]:
    found = []
    for name in PHYSICIANS:
        try:
            annotating.view(project, name, case_id)
        except NotFound:  # not assigned to this physician
            continue
        found.append(name)
    return found


def _label_fully(
    project: Project, name: str, case_id: str, rng: random.Random, disagree: float
) -> None:
    """Accept the draft's suggestions, then change some labels the way physicians do."""
    annotating.accept_suggestions(project, name, case_id)
    view = annotating.view(project, name, case_id)
    edits: list[LabelEdit] = []
    for figure in view.figures:
        if rng.random() < disagree:
            current = view.labels[f"importance:{figure}"]["value"]
            other = {"essential": "optional", "optional": "essential"}.get(current, "optional")
            edits.append(LabelEdit(f"importance:{figure}", {"value": other, "how": "set"}))
        edits.append(LabelEdit(f"meta_ok:{figure}", rng.random() > 0.2))
    if rng.random() < disagree:
        value = view.labels["difficulty"]["value"]
        other = "hard" if value == "normal" else "normal"
        edits.append(LabelEdit("difficulty", {"value": other, "how": "set"}))
    ranked = [f for f in view.figures if view.labels[f"stage:{f}"]["value"] is not None]
    if len(ranked) >= 2 and rng.random() < disagree:
        a, b = ranked[0], ranked[1]
        sa, sb = view.labels[f"stage:{a}"]["value"], view.labels[f"stage:{b}"]["value"]
        edits.append(LabelEdit(f"stage:{a}", {"value": sb, "how": "set"}))
        edits.append(LabelEdit(f"stage:{b}", {"value": sa, "how": "set"}))
    edits.append(LabelEdit("rubric_ok:Diagnosis", True))
    edits.append(LabelEdit("rubric_ok:Localisation", rng.random() > 0.15))
    pace = PLANTED_PACE.get(name, 1.0)
    edits.append(LabelEdit("active_seconds", round(rng.uniform(240, 900) * pace, 1)))
    # Notes physicians leave even where nothing conflicts (the senior reads them all).
    note = rng.choice(NOTES)
    if note:
        edits.append(LabelEdit("comment", note))
    if rng.random() < 0.3:
        figure = view.figures[-1]
        edits.append(LabelEdit(f"exam_comment:{figure}", "Adds little once the key exam is read."))
    if rng.random() < 0.15:
        edits.append(
            LabelEdit(
                f"red_flag:{view.figures[0]}",
                "Contrast is contraindicated until renal function is known.",
            )
        )
    kinds.CASES.set_fields(project, name, case_id, edits)


def demo_quality(project: Project, plan: DemoPlan) -> None:
    """Calibration and gold items, hidden repeats done at each physician's planted
    reliability, and one rushed item: the Quality view has something to show."""
    rng = random.Random(SEED + 26)
    set_quality_settings(project, CURATOR, gold=True)
    authored = {c: _authored_answer(project, c) for c in plan.green_lit + plan.disputed}
    for case_id in plan.disputed:
        mark_item(project, CURATOR, "case", case_id, "calibration", authored[case_id],
                  "The case author's answer: the key exam decides the diagnosis; the others "
                  "confirm it.")
    for case_id in plan.green_lit:
        mark_item(project, CURATOR, "case", case_id, "gold", authored[case_id],
                  "Answer agreed by the case author and the senior before the study.")
    add_repeats(project, CURATOR, "case", 0.5, 0.0, seed=SEED)
    rushed = PHYSICIANS[-1]
    for case_id in plan.green_lit + plan.disputed:
        for name in _annotators_of(project, case_id):
            if annotating.view(project, name, case_id).state == "assigned":
                _label_fully(project, name, case_id, rng, disagree=PLANTED_DEPARTURE[name])
                if name == rushed:  # one item clicked through in under a minute
                    kinds.CASES.set_fields(project, name, case_id,
                                           [LabelEdit("active_seconds", 41.0)])
                    rushed = ""
                kinds.CASES.submit(project, name, case_id)


def _authored_answer(project: Project, case_id: str) -> dict[str, Any]:
    """The draft author's importance of each exam, as a reference answer."""
    return {k: v for k, v in suggestions(_draft(project, case_id)).items()
            if k.startswith("importance:")}


def _pick(item: Item, rng: random.Random) -> Any:
    """One reviewer's value, chosen by value (annotator ids differ between builds)."""
    values = sorted(item.values.values(), key=canonical_json)
    return values[rng.randrange(len(values))]


def _keep_key_exam_essential(project: Project, case_id: str) -> None:
    """If every reviewer demoted the draft's key exam, the senior restores it (protocol)."""
    state = base.review_case(project, case_id)
    if state.state == "green_lit" or not any("no essential exam" in b for b in state.blockers):
        return
    key_exam = next(
        k
        for k, v in suggestions(_draft(project, case_id)).items()
        if k.startswith("importance:") and v == "essential"
    )
    decisions.decide(
        project,
        SENIOR,
        case_id,
        key_exam,
        "essential",
        "protocol",
        "The diagnosis cannot be made without this exam.",
    )
    decisions.green_light(project, SENIOR, case_id)


def replay_work(project: Project) -> DemoPlan:
    """The seeded script of physicians' and the senior's work."""
    rng = random.Random(SEED)
    status_cases = sorted(_case_ids(project))
    plan = _plan(status_cases, _needs_fix(project))
    # One physician works offline on their disputed cases: bundle, laptop, package, import.
    offline_name = PHYSICIANS[0]
    offline = [c for c in plan.disputed if offline_name in _annotators_of(project, c)]
    if not offline:
        offline = [c for c in plan.untouched if offline_name in _annotators_of(project, c)][:1]
    for case_id in plan.green_lit + plan.disputed + plan.excluded:
        names = _annotators_of(project, case_id)
        for name in names:
            if name == offline_name and case_id in offline:
                continue
            _label_fully(project, name, case_id, rng, disagree=PLANTED_DEPARTURE[name])
            if case_id in plan.excluded and name == names[0]:
                annotating.set_label(
                    project,
                    name,
                    case_id,
                    "discard",
                    "",
                    {
                        "reason_code": "image_quality",
                        "text": "Key figure too small to judge the lesion.",
                    },
                )
            kinds.CASES.submit(project, name, case_id)
    with tempfile.TemporaryDirectory(prefix="annotator-demo-offline-") as workdir:
        demo_offline_round_trip(project, offline_name, offline, Path(workdir))
    actions.demo_adjudicate(project, SENIOR, plan.green_lit)
    for case_id in plan.green_lit:
        _keep_key_exam_essential(project, case_id)
    for case_id in plan.excluded:
        decisions.decide(
            project,
            SENIOR,
            case_id,
            "discard",
            {"reason_code": "image_quality", "text": "Upheld: figure unusable."},
            "protocol",
            "Unusable key image.",
        )
    for case_id in plan.in_progress:
        names = _annotators_of(project, case_id)
        annotating.accept_suggestions(project, names[0], case_id, keys=["difficulty", "rarity"])
        annotating.set_label(
            project,
            names[0],
            case_id,
            "comment",
            "",
            "Interesting case; checking the follow-up exam.",
        )
    return plan


def _case_ids(project: Project) -> list[str]:
    with project.tx() as session:
        return list(session.scalars(select(Case.case_id)))


def _draft(project: Project, case_id: str) -> dict[str, Any]:
    with project.tx() as session:
        content: dict[str, Any] = session.scalars(
            select(CaseRevision.content)
            .join(Case, Case.current_revision_id == CaseRevision.id)
            .where(Case.case_id == case_id)
        ).one()
        return content


def _needs_fix(project: Project) -> set[str]:
    with project.tx() as session:
        rows = session.execute(
            select(Case.case_id, CaseRevision.problems).join(
                CaseRevision, CaseRevision.id == Case.current_revision_id
            )
        )
        return {case_id for case_id, problems in rows if problems}
