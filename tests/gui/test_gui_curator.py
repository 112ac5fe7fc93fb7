"""The curator runs a project from the app's Project actions alone (issue 22 section 1).

A curator creates a project, adds users, imports, assigns, bundles, imports packages and
exports through the ``project.*`` actions and their dialogs, on worker threads as for a
user; the same steps through the ``annotator`` command line make a second store, and the
two stores hold the same rows (cases, users and roles, rated work, history actions,
ignoring ids and times). What the annotators and the adjudicator do in between (their
own pages) is the same service calls in both. The only file dialogs (the round trip's
choosers) are replaced by functions returning paths.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from annotator.cli import main as cli
from factories import make_case, write_case_file

pytestmark = pytest.mark.gui

WAIT = 30_000
DATE = "2026-05-06"


def _drafts(folder: Path) -> Path:
    return write_case_file(folder, [make_case("C1"), make_case("C2", case_title="Second")])


def _offline_work(bundle: Path, folder: Path, name: str, package: Path) -> None:
    """An annotator's laptop: open the bundle, accept the suggestions on C1, submit, send."""
    from annotator.services import annotating, kinds
    from annotator.services.sync.package import make_package
    from annotator.services.sync.unbundle import unbundle
    from annotator.store.project import open_project

    unbundle(bundle, folder)
    laptop = open_project(folder, create=False, backup=False)
    annotating.accept_suggestions(laptop, name, "C1")
    kinds.CASES.submit(laptop, name, "C1")
    make_package(laptop, package)
    laptop.close()


def _green_light(project: Any) -> None:
    """The adjudicator's step on the meta-review page (not a curator action)."""
    from annotator.services.review import decisions

    decisions.green_light(project, "cu", "C1")


def canonical(project: Any) -> dict[str, Any]:
    """The rows that matter, without ids and times."""
    from sqlalchemy import select

    from annotator.store.schema import Annotation, Case, CaseRevision, HistoryEntry, User

    with project.read() as session:
        cases = {c.id: c.case_id for c in session.scalars(select(Case))}
        users = {u.id: u.name for u in session.scalars(select(User))}
        revisions = {r.id: r for r in session.scalars(select(CaseRevision))}
        return {
            "cases": sorted((c.case_id, c.state, revisions[c.current_revision_id].number,
                             revisions[c.current_revision_id].content_hash)
                            for c in session.scalars(select(Case))),
            "users": sorted((u.name, tuple(u.role_names)) for u in session.scalars(select(User))),
            "work": sorted((cases[a.case_pk], users[a.annotator_id], a.state,
                            json.dumps(a.labels, sort_keys=True),
                            json.dumps(a.submitted_labels, sort_keys=True),
                            a.withdrawn_at is None)
                           for a in session.scalars(select(Annotation))),
            "history": [(h.actor, h.action, cases.get(h.case_pk) if h.case_pk else None)
                        for h in session.scalars(select(HistoryEntry).order_by(HistoryEntry.seq))],
        }


def _by_command_line(root: Path) -> dict[str, Any]:
    from annotator.store.project import open_project

    where = str(root / "cli")
    steps = [["users", "add", "cu", "--role", "curator"],
             ["users", "add", "a1", "--role", "annotator"],
             ["users", "add", "a2", "--role", "annotator"],
             ["users", "role", "cu", "--add", "adjudicator"],
             ["import", str(_drafts(root / "cli-drafts"))],
             ["assign", "--per-case", "2"],
             ["bundle", "--annotator", "a1", "--out", str(root / "cli-a1.annotator-bundle")],
             ["bundle", "--annotator", "a2", "--out", str(root / "cli-a2.annotator-bundle")]]
    for argv in steps:
        assert cli(["--project", where, *argv]) == 0, argv
    packages = []
    for name in ("a1", "a2"):
        packages.append(root / f"cli-{name}.annotator-package")
        _offline_work(root / f"cli-{name}.annotator-bundle", root / f"cli-{name}-laptop", name,
                      packages[-1])
    assert cli(["--project", where, "package-import", *map(str, packages)]) == 0
    project = open_project(where, create=False, backup=False)
    _green_light(project)
    assert cli(["--project", where, "export", "--out", str(root / "cli-release"),
                "--date", DATE]) == 0
    try:
        return canonical(project)
    finally:
        project.close()


@pytest.fixture
def window(qtbot: Any) -> Iterator[Any]:
    from PySide6.QtCore import QThreadPool

    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow

    made = MainWindow(GuiContext(None, None), remember=False)
    qtbot.addWidget(made)
    made.resize(1366, 768)
    made.show()
    qtbot.waitExposed(made)
    yield made
    QThreadPool.globalInstance().waitForDone(10_000)
    for project in list(made.roundtrip.owned):
        project.close()


def run(qtbot: Any, dialog: Any, **values: Any) -> str:
    """Fill the dialog, press its Run button, wait for the result; return what it shows."""
    dialog.fill(**values)
    with qtbot.waitSignal(dialog.finished_work, timeout=WAIT) as done:
        dialog.run_button.click()
    text = dialog.result.toPlainText()
    assert done.args == [True], text
    return str(text)


def test_a_curator_runs_the_project_from_the_app_as_the_commands_do(
    qtbot: Any, window: Any, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from annotator.gui.roundtrip import choosers
    from annotator.services.assignments import AssignPlan, plan_assignment

    curator = window.curator
    for action_id in curator.actions:  # no project yet: only "new or open" can be used
        assert curator.actions[action_id].isEnabled() == (action_id == "project.open")
    opener = curator.dialog("project.open")
    opener.location.setText(str(tmp_path / "gui"))
    assert opener.command.text().startswith(f"annotator --project {tmp_path / 'gui'}")
    with qtbot.waitSignal(opener.opened, timeout=WAIT):
        opener.open_button.click()
    project = window.context.project
    assert project is not None and window.context.user is None

    users = curator.dialog("project.users_add")
    assert "add the first curator" in users.table_note.text()
    assert run(qtbot, users, name="cu", roles=["curator"]) == "cu: curator"
    assert window.context.user == "cu"  # the first curator works in the window from now on
    assert curator.actions["project.import"].isEnabled()
    assert users.command.text().endswith("--as cu users add cu --role curator")
    run(qtbot, users, name="a1", roles=["annotator"])
    run(qtbot, users, name="a2", roles=["annotator"])
    assert users.table_rows() == [["a1", "annotator"], ["a2", "annotator"], ["cu", "curator"]]
    roles = curator.dialog("project.users_role")
    assert run(qtbot, roles, name="cu", add=["adjudicator"]) == "cu: adjudicator, curator"
    assert roles.command.text().endswith("users role cu --add adjudicator")
    assert sorted(window.context.roles) == ["adjudicator", "curator"]  # the pages followed

    importer = curator.dialog("project.import")
    lines = run(qtbot, importer, folder=str(_drafts(tmp_path / "gui-drafts"))).splitlines()
    assert [line.split()[:2] for line in lines[:2]] == [["added", "C1"], ["added", "C2"]]
    assert lines[-1].startswith("2 cases: 2 added, 0 updated")

    assigner = curator.dialog("project.assign")
    plan = plan_assignment(project, "cu", 2)
    assert assigner.table_rows() == [list(row) for row in plan.rows()]  # the dry run's table
    assert [r[0] for r in assigner.table_rows()] == ["a1", "a2"]
    assert assigner.table.horizontalHeaderItem(2).text() == AssignPlan.HEADERS[2]
    assert assigner.command.text().endswith("assign --per-case 2")
    assert run(qtbot, assigner).splitlines()[0] == "4 assignment(s) made"
    assert assigner.table_rows() == [["a1", "2", "0", "2", "-"], ["a2", "2", "0", "2", "-"]]

    curator.actions["project.bundle"].trigger()  # the round trip's own window, reused
    view = window.roundtrip.view
    qtbot.waitUntil(lambda: view.annotator.count() == 2, timeout=WAIT)
    for name in ("a1", "a2"):
        target = tmp_path / f"gui-{name}.annotator-bundle"
        monkeypatch.setattr(choosers, "save_file", lambda *_a, t=target: t)
        view.annotator.setCurrentText(name)
        assert f"bundle --annotator {name}" in view.command.text()
        with qtbot.waitSignal(view.finished, timeout=WAIT):
            view.bundle_button.click()
        assert target.exists(), view.message.text()
    packages = []
    for name in ("a1", "a2"):
        packages.append(tmp_path / f"gui-{name}.annotator-package")
        _offline_work(tmp_path / f"gui-{name}.annotator-bundle", tmp_path / f"gui-{name}-laptop",
                      name, packages[-1])
    monkeypatch.setattr(choosers, "package_files", lambda *_a: packages)
    with qtbot.waitSignal(view.finished, timeout=WAIT):
        curator.actions["project.import_packages"].trigger()
    assert "refused" not in view.message.text(), view.message.text()

    _green_light(project)
    curator.actions["project.export"].trigger()  # the existing export page
    page = window.built["export"]
    assert window.stack.currentWidget() is page
    page.out.setText(str(tmp_path / "gui-release"))
    page.date.setText(DATE)
    qtbot.waitUntil(page.export_button.isEnabled, timeout=WAIT)
    page.export_button.click()
    qtbot.waitUntil(lambda: page.result is not None, timeout=WAIT)

    gui_rows = canonical(project)
    assert gui_rows == _by_command_line(tmp_path)
    assert ("cu", "user_roles_changed", None) in gui_rows["history"]
    # The same release, but for the reviewers' pseudonyms (salted per project).
    released = [re.sub(r"reviewer-[0-9a-f]{8}", "reviewer",
                       (tmp_path / f"{side}-release" / "release.json").read_text())
                for side in ("gui", "cli")]
    assert released[0] == released[1] and '"C1"' in released[0]


def test_cancel_leaves_only_whole_cases_and_the_summary_says_what_was_done(
    qtbot: Any, make_window: Any, gui_project: Any, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The Cancel button, pressed while the third of five cases is being stored."""
    import threading

    from PySide6.QtWidgets import QPushButton

    from annotator.services import imports
    from annotator.services.review import view
    from annotator.services.status import project_status

    window = make_window("cu")
    drafts = write_case_file(tmp_path / "more", [make_case(f"N{i}") for i in range(1, 6)])
    stored: list[str] = []
    reached, go = threading.Event(), threading.Event()
    real_apply = imports._apply

    def apply_and_wait(*args: Any, **kwargs: Any) -> Any:  # on the worker thread
        outcome = real_apply(*args, **kwargs)
        stored.append(outcome.case_id)
        if len(stored) == 2:
            reached.set()  # the user sees the progress and presses Cancel now
            assert go.wait(WAIT / 1000)
        return outcome

    monkeypatch.setattr(imports, "_apply", apply_and_wait)
    before = project_status(gui_project)["cases"]
    dialog = window.curator.dialog("project.import")
    dialog.fill(folder=str(drafts))
    with qtbot.waitSignal(dialog.finished_work, timeout=WAIT) as done:
        dialog.run_button.click()
        qtbot.waitUntil(reached.is_set, timeout=WAIT)
        dialog.task.dialog.findChild(QPushButton).click()  # the progress dialog's Cancel
        go.set()
    assert done.args == [False] and dialog.outcome.cancelled
    assert dialog.status.text().startswith("import cancelled: 2 case(s) were stored")
    lines = dialog.result.toPlainText().splitlines()
    assert [line.split()[:2] for line in lines[:2]] == [["added", "N1"], ["added", "N2"]]
    assert lines[2].startswith("2 cases: 2 added, 0 updated")
    assert lines[3].startswith("import cancelled: 2 case(s) were stored, each whole")
    assert project_status(gui_project)["cases"] == before + 2
    for case_id in ("N1", "N2"):  # each whole: its content and its images
        images = view.case_images(gui_project, case_id)
        assert images and all(image.data for image in images)


def test_project_actions_follow_the_user_s_roles(make_window: Any) -> None:
    annotator = make_window("a1")
    actions = annotator.curator.actions
    assert all(a.startswith("project.") for a in actions) and len(actions) >= 18
    assert actions["project.open"].isEnabled()
    for action_id in ("project.import", "project.assign", "project.users_add",
                      "project.bundle", "project.export"):
        assert not actions[action_id].isEnabled()
        assert "needs the curator role" in actions[action_id].toolTip()
    assert annotator.curator.trigger("project.import") is None  # nothing opens
    menu = [a.text() for a in annotator.roundtrip.menu.actions()]
    assert menu[0] == "New or open project..." and "Users" in menu
    curator = make_window("cu")
    assert all(a.isEnabled() for a in curator.curator.actions.values())


def test_the_assign_preview_is_the_dry_run_and_writes_nothing(
    qtbot: Any, make_window: Any, gui_project: Any, tmp_path: Path
) -> None:
    from annotator.services.imports import import_cases
    from annotator.services.status import project_status

    import_cases(gui_project, "cu", [write_case_file(tmp_path / "d", [make_case("P1")])])
    window = make_window("cu")
    dialog = window.curator.dialog("project.assign")
    before = project_status(gui_project)
    dialog.fill(per_case=1, quotas="a1=4")
    assert dialog.command.text().endswith("assign --per-case 1 --quota a1=4")
    rows = dialog.table_rows()
    assert rows == [["a1", "4", "0", "4", "4"], ["a2", "4", "1", "5", "-"]]
    assert "1 assignment(s) on 1 case(s)" in dialog.table_note.text()
    dialog.fill(quotas="nobody=1")
    assert "quota for unknown annotator(s): nobody" in dialog.table_note.text()
    assert project_status(gui_project) == before


def test_every_dialog_fits_1366x768_and_names_its_command(
    make_window: Any, tmp_path: Path
) -> None:
    from PySide6.QtCore import QSize

    window = make_window("cu")
    screen = QSize(1366, 768)
    opened = 0
    for action_id in window.curator.actions:
        if action_id in ("project.export", "project.bundle", "project.import_packages"):
            continue
        dialog = window.curator.dialog(action_id)
        hint = dialog.minimumSizeHint()
        assert hint.width() <= screen.width() and hint.height() <= screen.height(), action_id
        assert dialog.width() <= screen.width() and dialog.height() <= screen.height()
        assert dialog.command.text().startswith("annotator --project "), action_id
        assert dialog.grab().save(str(tmp_path / f"{action_id}.png"), "PNG")
        dialog.close()
        opened += 1
    assert opened == 15


def test_the_sme_judging_and_project_dialogs_say_what_their_commands_say(
    qtbot: Any, make_window: Any, project_dir: Path, template_project: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Each dialog runs its command's service on a twin of the project: the same words."""
    import shutil

    import annotator

    package = Path(annotator.__file__).parent
    sme = package / "sme_demo"
    run_file = package / "judged_runs" / "agent-alpha.benchmark_full.json"
    twin = tmp_path / "twin"
    shutil.copytree(template_project, twin)
    window = make_window("cu")
    # (action, the dialog's values, the command's arguments); {out} is a file of each side's.
    steps = [
        ("project.sme_import", {"files": [str(sme)]}, ["sme-import", str(sme)]),
        ("project.sme_items", {"files": [str(sme / "items.jsonl")]},
         ["sme-items", str(sme / "items.jsonl")]),
        ("project.sme_assign", {"per_item": 2}, ["sme-assign", "--per-item", "2"]),
        ("project.judge_import", {"files": [str(run_file)]}, ["judge-import", str(run_file)]),
        ("project.judge_assign", {"per_item": 1}, ["judge-assign", "--per-item", "1"]),
        ("project.repair", {}, ["repair"]),
        ("project.backup", {"file": "{out}"}, ["backup", "{out}"]),
        ("project.agreement", {"file": "{out}"}, ["agreement", "--html", "{out}"]),
    ]
    for action_id, values, argv in steps:
        outs = {side: str(tmp_path / f"{side}-{action_id}") for side in ("gui", "cli")}
        dialog = window.curator.dialog(action_id)
        shown = run(qtbot, dialog, **{k: v.replace("{out}", outs["gui"]) if isinstance(v, str)
                                      else v for k, v in values.items()})
        gui_argv = [a.replace("{out}", outs["gui"]) for a in argv]
        assert dialog.command.text().endswith(shlex.join(gui_argv)), action_id
        capsys.readouterr()
        cli_argv = [a.replace("{out}", outs["cli"]) for a in argv]
        assert cli(["--project", str(twin), "--as", "cu", *cli_argv]) == 0, cli_argv
        said = capsys.readouterr().out.strip()
        assert shown.replace(outs["gui"], outs["cli"]) == said, action_id
    assert window.curator.dialogs["project.agreement"].open_button.isVisible()
