"""The services and the GUI ask one rule: for every action and every set of roles, the
service refuses exactly when ``permissions.may`` says no, with ``permissions.refusal``'s
sentence (the GUI's tooltip), and a name that is not a user gets ``not_a_user``.

One representative service call per action; its other arguments may be wrong (a missing
file, an unknown item): an allowed actor then meets another error, never PermissionDenied.
"""

from __future__ import annotations

import itertools
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from annotator.domain.permissions import RULES, Action, may, not_a_user, refusal
from annotator.domain.states import ROLES
from annotator.errors import AnnotatorError, PermissionDenied, ValidationError
from factories import make_case, write_case_file

CURATOR = "cu"
ANNOTATOR = "an"
NOBODY = "nobody here"
# Every set of roles a user can hold (a user holds at least one).
ROLE_SETS = [combo for n in (1, 2, 3) for combo in itertools.combinations(ROLES, n)]
# Actions no service takes yet: the page is the whole of them (the desk shows figures that
# status, agreement and sme-results give; its actions are the other actions' services).
PAGE_ONLY = {Action.VIEW_DESK}


def _name(roles: tuple[str, ...]) -> str:
    return "+".join(roles)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory):  # type: ignore[no-untyped-def]
    from annotator.services.assignments import assign
    from annotator.services.imports import import_cases
    from annotator.services.users import add_user
    from annotator.store.project import open_project

    folder = tmp_path_factory.mktemp("permissions")
    project = open_project(folder / "project")
    add_user(project, "(setup)", CURATOR, ["curator"])
    add_user(project, CURATOR, ANNOTATOR, ["annotator"])
    for roles in ROLE_SETS:
        add_user(project, CURATOR, _name(roles), list(roles))
    path = write_case_file(folder / "drafts", [make_case("T1"), make_case("T2")])
    assert not import_cases(project, CURATOR, [path]).failed
    assign(project, CURATOR, 1, case_ids=["T1"])
    (folder / "scores.csv").write_text("scorer,run,case_id\n", encoding="utf-8")
    yield project, folder
    project.close()


def _calls(project: Any, folder: Path) -> dict[Action, Callable[[str], object]]:
    from annotator.services import agreement, desk, kinds, pixel_review, quality, repair
    from annotator.services.assignments import assign
    from annotator.services.backup import backup_project
    from annotator.services.export import export_release, save_card_settings
    from annotator.services.imports import import_cases
    from annotator.services.judging import imports as judge_imports
    from annotator.services.judging import scoring, sheets
    from annotator.services.rating.repeats import add_repeats
    from annotator.services.review.actions import split_cases
    from annotator.services.review.decisions import green_light
    from annotator.services.review.queue import list_items
    from annotator.services.sme import imports as sme_imports
    from annotator.services.sme import results as sme_results
    from annotator.services.sme import review as sme_review
    from annotator.services.sync.bundle import make_bundle
    from annotator.services.sync.package_import import import_package
    from annotator.services.users import add_user

    def out(actor: str, suffix: str) -> Path:
        return folder / f"{uuid.uuid4().hex}-{suffix}"

    p = project
    return {
        Action.MANAGE_USERS: lambda a: add_user(p, a, f"new {uuid.uuid4().hex}", ["annotator"]),
        Action.IMPORT_CASES: lambda a: import_cases(p, a, [folder / "absent.json"]),
        Action.ASSIGN_CASES: lambda a: assign(p, a, 1, case_ids=["T2"]),
        Action.BUNDLE: lambda a: make_bundle(p, a, ANNOTATOR, out(a, "b.annotator-bundle")),
        Action.IMPORT_PACKAGE: lambda a: import_package(p, a, folder / "absent.package"),
        Action.REPAIR: lambda a: repair.repair_case_states(p, a, dry_run=True),
        Action.BACKUP: lambda a: backup_project(p, a, out(a, "copy.sqlite")),
        Action.READ_AGREEMENT: lambda a: agreement.agreement_report(p, a),
        Action.EDIT_CARD: lambda a: save_card_settings(p, a, team="the team"),
        Action.EXPORT: lambda a: export_release(p, a, out(a, "release")),
        Action.IMPORT_SME: lambda a: sme_imports.import_benchmarks(p, a, []),
        Action.ASSIGN_SME: lambda a: sme_review.assign(p, a),
        Action.IMPORT_JUDGED: lambda a: judge_imports.import_runs(p, a, []),
        Action.ASSIGN_JUDGED: lambda a: scoring.assign(p, a),
        Action.IMPORT_SCORE_SHEETS: lambda a: sheets.import_scores_csv(p, a, folder / "scores.csv"),
        Action.ADJUDICATE_CASES: lambda a: green_light(p, a, "T2"),
        Action.ADJUDICATE_SME: lambda a: kinds.SME.adjudicate(p, a, uuid.uuid4(), "outcome",
                                                              "pass", "clinical judgement"),
        Action.ADJUDICATE_JUDGED: lambda a: kinds.JUDGE.adjudicate(p, a, uuid.uuid4(),
                                                                  "diagnosis", 2, "reason"),
        Action.READ_OTHERS_WORK: lambda a: list_items(p, a),
        Action.REVIEW_IMAGES: lambda a: pixel_review.list_images(p, a),
        Action.SPLIT_REVIEW: lambda a: split_cases(p, a),
        Action.SET_STUCK_LIMIT: lambda a: desk.set_stuck_after_days(p, a, 7),
        Action.ASSIGN_REPEATS: lambda a: add_repeats(p, a, "case", 0.5, 0),
        Action.MANAGE_QUALITY: lambda a: quality.mark_item(p, a, "case", "T2", "calibration",
                                                           {"difficulty": "hard"}, "a reason"),
        Action.READ_QUALITY: lambda a: quality.snapshot(p, a),
        Action.COMPARE_SYSTEMS: lambda a: sme_results.systems(p, a),
    }


def _outcome(call: Callable[[str], object], actor: str) -> str | None:
    """The refusal's message, or None when the service let the actor act."""
    try:
        call(actor)
    except PermissionDenied as exc:
        return str(exc)
    except AnnotatorError:
        return None  # allowed, and stopped by the call's own (deliberately wrong) arguments
    return None


def test_every_action_has_a_representative_service_call(world) -> None:  # type: ignore[no-untyped-def]
    project, folder = world
    covered = set(_calls(project, folder)) | PAGE_ONLY | {Action.TAKE_ASSIGNED_WORK}
    assert covered == set(Action)


@pytest.mark.parametrize("action", sorted(set(Action) - PAGE_ONLY - {Action.TAKE_ASSIGNED_WORK}))
def test_the_service_refuses_exactly_when_may_says_no(world, action: Action) -> None:  # type: ignore[no-untyped-def]
    project, folder = world
    call = _calls(project, folder)[action]
    for roles in ROLE_SETS:
        actor = _name(roles)
        expected = None if may(roles, action) else refusal(action, actor)
        assert _outcome(call, actor) == expected, (action, roles)
    assert _outcome(call, NOBODY) == not_a_user(action, NOBODY), action


def test_work_goes_only_to_those_the_rule_lets_take_it(world) -> None:  # type: ignore[no-untyped-def]
    """Reassigning to a person: the target's roles are asked through the same rule."""
    from annotator.services.assignments import reassign

    project, _ = world
    rule = RULES[Action.TAKE_ASSIGNED_WORK]
    for roles in ROLE_SETS:
        target = _name(roles)
        try:
            reassign(project, CURATOR, ANNOTATOR, target)
            refused = None
        except ValidationError as exc:
            refused = str(exc)
        expected = None if may(roles, Action.TAKE_ASSIGNED_WORK) else refusal(
            Action.TAKE_ASSIGNED_WORK, target)
        assert refused == expected, (roles, rule)
