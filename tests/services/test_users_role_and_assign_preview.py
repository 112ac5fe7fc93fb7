"""``users role`` (roles added and removed, the last curator kept) and ``assign --dry-run``
(the balance assign would make, nothing written), through the real command line."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.cli import main
from annotator.services.assignments import assign, plan_assignment
from annotator.services.status import project_status
from annotator.store.project import open_project
from factories import make_case, write_case_file


def _cli(project: Path, *argv: str) -> int:
    return main(["--project", str(project), *argv])


@pytest.fixture
def project(tmp_path: Path) -> Path:
    where = tmp_path / "p"
    for argv in (["users", "add", "cu", "--role", "curator"],
                 ["users", "add", "a1", "--role", "annotator"],
                 ["users", "add", "a2", "--role", "annotator"],
                 ["users", "add", "a3", "--role", "annotator"]):
        assert _cli(where, *argv) == 0
    drafts = write_case_file(tmp_path / "d", [make_case(f"C{i}") for i in range(1, 4)])
    assert _cli(where, "import", str(drafts)) == 0
    return where


def _history(where: Path, action: str) -> list[tuple[object, object]]:
    from sqlalchemy import select

    from annotator.store.schema import HistoryEntry

    project = open_project(where, create=False, backup=False)
    with project.read() as session:
        rows = [(h.before, h.after) for h in session.scalars(
            select(HistoryEntry).where(HistoryEntry.action == action))]
    project.close()
    return rows


def test_users_role_adds_and_removes_with_a_history_entry(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert _cli(project, "users", "role", "a1", "--add", "adjudicator", "curator") == 0
    assert capsys.readouterr().out == "a1: adjudicator, annotator, curator\n"
    assert _cli(project, "users", "role", "a1", "--remove", "annotator") == 0
    assert capsys.readouterr().out == "a1: adjudicator, curator\n"
    assert _history(project, "user_roles_changed") == [
        ({"name": "a1", "roles": ["annotator"]},
         {"name": "a1", "roles": ["adjudicator", "annotator", "curator"]}),
        ({"name": "a1", "roles": ["adjudicator", "annotator", "curator"]},
         {"name": "a1", "roles": ["adjudicator", "curator"]})]
    # With a second curator, the first may stop being one; the last may not.
    assert _cli(project, "users", "role", "cu", "--add", "annotator") == 0
    assert _cli(project, "users", "role", "cu", "--remove", "curator") == 0
    capsys.readouterr()
    assert _cli(project, "--as", "a1", "users", "role", "a1", "--remove", "curator") == 2
    err = capsys.readouterr().err
    assert err == ("annotator: error: a1 is the project's last curator; make someone else a"
                   " curator first\n")


@pytest.mark.parametrize(("argv", "message"), [
    (["users", "role", "a2", "--remove", "annotator"], "a2 would have no role left"),
    (["users", "role", "nobody", "--add", "curator"], "no user named 'nobody'"),
    (["users", "role", "a2"], "roles must be among"),
    (["users", "role", "a2", "--add", "curator", "--remove", "curator"],
     "cannot be added and removed at once: curator"),
    (["--as", "a2", "users", "role", "a3", "--add", "curator"],
     "managing users needs the curator role; a2 does not have it"),
])
def test_users_role_refusals_are_one_line(
    project: Path, capsys: pytest.CaptureFixture[str], argv: list[str], message: str
) -> None:
    capsys.readouterr()
    assert _cli(project, *argv) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1
    assert _history(project, "user_roles_changed") == []


def test_assign_dry_run_prints_the_balance_assign_then_makes(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    before = open_project(project, create=False, backup=False)
    status = project_status(before)
    before.close()
    capsys.readouterr()
    assert _cli(project, "assign", "--per-case", "2", "--quota", "a1=1", "--dry-run") == 0
    out = capsys.readouterr().out.splitlines()
    assert out == [
        "annotator  assigned now  new  total  quota",
        "a1                    0    1      1      1",
        "a2                    0    3      3      -",
        "a3                    0    2      2      -",
        "would make 6 assignment(s) on 3 case(s)",
        "dry run: nothing was written",
    ]
    opened = open_project(project, create=False, backup=False)
    assert project_status(opened) == status  # nothing written
    plan = plan_assignment(opened, "cu", 2, quotas={"a1": 1})
    report = assign(opened, "cu", 2, quotas={"a1": 1})
    assert report.assigned == plan.assigned and report.short == plan.short
    after = plan_assignment(opened, "cu", 2, quotas={"a1": 1})
    assert [(b.annotator, b.now, b.new) for b in after.balance] == [
        ("a1", 1, 0), ("a2", 3, 0), ("a3", 2, 0)]
    opened.close()


def test_assign_dry_run_names_the_cases_left_short(
    project: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert _cli(project, "assign", "--per-case", "3", "--quota", "a3=1", "--dry-run") == 0
    out = capsys.readouterr().out.splitlines()
    assert out[4:6] == ["C2: 1 annotator(s) short (not enough annotators or quota)",
                        "C3: 1 annotator(s) short (not enough annotators or quota)"]
    assert out[-2] == "would make 7 assignment(s) on 3 case(s)"
