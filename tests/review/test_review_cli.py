"""``annotator review`` on a real project folder."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from review_support import chose, submit

import annotator.cli
from annotator.services.review.view import case_detail
from annotator.services.users import add_user
from annotator.store.project import open_project
from factories import make_case, write_case_file


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A project folder with a conflict on T1 (importance of Figure 3) and a unanimous T2."""
    from annotator.services.assignments import assign
    from annotator.services.imports import import_cases

    location = str(tmp_path / "p")
    project = open_project(location)
    add_user(project, "(setup)", "cu", ["curator"])
    for name in ("a1", "a2"):
        add_user(project, "cu", name, ["annotator"])
    add_user(project, "cu", "adj", ["adjudicator"])
    cases = [make_case("T1"), make_case("T2")]
    import_cases(project, "cu", [write_case_file(tmp_path / "d", cases)])
    assign(project, "cu", 2)
    submit(project, "a1", "T1")
    submit(project, "a2", "T1", {"importance:Figure 3": chose("essential")})
    submit(project, "a1", "T2")
    submit(project, "a2", "T2")
    project.close()
    return location


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = annotator.cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def as_json(capsys: pytest.CaptureFixture[str], *argv: str) -> Any:
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_list_status_and_decide_by_letter(folder: str, capsys) -> None:  # type: ignore[no-untyped-def]
    listed = as_json(capsys, "--project", folder, "review", "--list")
    assert len(listed) == 1
    item = listed[0]
    assert {"case_id", "family", "item", "values", "disagreement", "state"} <= set(item)
    assert (item["case_id"], item["family"], item["item"]) == ("T1", "importance", "Figure 3")
    assert item["disagreement"] == "essential_vs_optional" and item["state"] == "open"
    essential = next(k for k, v in item["values"].items() if v == "essential")
    # the page shows the same letters
    page_letters = case_detail(open_project(folder), "T1", "adj").items[0].values
    assert page_letters == item["values"]

    status = as_json(capsys, "--project", folder, "review", "--status")
    for key in ("conflicts_open", "conflicts_resolved", "auto_resolved", "green_lit", "excluded"):
        assert key in status
    assert status["conflicts_open"] == 1 and status["conflicts_resolved"] == 0

    code, out, err = run(
        capsys, "--project", folder, "--as", "adj", "review", "--decide", "T1",
        "importance:Figure 3", "--value", essential, "--reason", "image_evidence",
        "--text", "enhancement decides it",
    )  # fmt: skip
    assert code == 0, err
    decided = as_json(capsys, "--project", folder, "review", "--list")[0]
    assert decided["state"] == "decided" and decided["final"] == "essential"
    assert decided["decision"]["adjudicator"] == "adj"
    assert decided["decision"]["reason_text"] == "enhancement decides it"
    code, out, err = run(
        capsys, "--project", folder, "--as", "adj", "review", "--green-light", "T1"
    )
    assert code == 0, err
    status = as_json(capsys, "--project", folder, "review", "--status")
    assert (status["conflicts_resolved"], status["green_lit"]) == (1, 1)


def test_errors_are_one_line(folder: str, capsys) -> None:  # type: ignore[no-untyped-def]
    code, _, err = run(
        capsys, "--project", folder, "--as", "a1", "review", "--decide", "T1",
        "importance:Figure 3", "--value", "A", "--reason", "protocol",
    )  # fmt: skip
    assert code == 2 and "adjudicator or curator role" in err and "a1" in err
    assert len(err.strip().splitlines()) == 1
    code, _, err = run(
        capsys, "--project", folder, "--as", "adj", "review", "--decide", "T1", "order",
        "--value", '{"Figure 1": 1, "Figure 2": "1.5", "Figure 3": 2}', "--reason", "protocol",
    )  # fmt: skip
    assert code == 2 and "invalid order board" in err
    code, _, err = run(capsys, "--project", folder, "--as", "adj", "review", "--green-light", "T1")
    assert code == 2 and "open conflict: importance:Figure 3" in err
    code, _, err = run(capsys, "--project", folder, "review", "--decide", "T1", "order")
    assert code == 2 and "--value and --reason" in err


def test_exclude_and_bulk_green_light(folder: str, capsys) -> None:  # type: ignore[no-untyped-def]
    code, out, _ = run(
        capsys, "--project", folder, "--as", "adj", "review", "--green-light-unanimous"
    )
    assert code == 0 and "1 case(s) green-lit: T2" in out
    code, out, err = run(
        capsys, "--project", folder, "--as", "adj", "review", "--exclude", "T1",
        "--reason", "contradictory even after senior review",
    )  # fmt: skip
    assert code == 0, err
    status = as_json(capsys, "--project", folder, "review", "--status")
    assert (status["excluded"], status["green_lit"], status["conflicts_moot"]) == (1, 1, 1)
    code, out, _ = run(capsys, "--project", folder, "review", "--show", "T1")
    assert "moot" in out and "not green yet: the case is excluded" in out
