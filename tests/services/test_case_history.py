"""A case's history as people read it: who changed what and when, blind for annotators."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from annotator.errors import NotFound
from annotator.services import annotating
from annotator.services.assignments import assign
from annotator.services.case_history import case_history
from annotator.services.imports import import_cases
from factories import make_case, write_case_file


@pytest.fixture
def worked(team, tmp_path: Path):  # type: ignore[no-untyped-def]
    import_cases(team, "cu", [write_case_file(tmp_path / "drafts", [make_case("H1")])])
    assign(team, "cu", 2)  # a1 and a2
    annotating.set_label(team, "a1", "H1", "importance", "Figure 1", "optional")
    annotating.set_label(team, "a1", "H1", "importance", "Figure 1", "essential")
    annotating.set_label(team, "a2", "H1", "importance", "Figure 1", "unnecessary")
    return team


def test_senior_readers_see_every_change_oldest_first(worked) -> None:  # type: ignore[no-untyped-def]
    lines = case_history(worked, "adj", "H1")
    assert [line.at for line in lines] == sorted(line.at for line in lines)
    assert lines[0].actor == "cu" and lines[0].action == "case_imported"
    labels = [(line.actor, line.key, line.what) for line in lines if line.key]
    changed = "label: importance:Figure 1: optional → essential"
    assert ("a1", "importance:Figure 1", changed) in labels
    assert {actor for actor, _, _ in labels} == {"a1", "a2"}
    assert case_history(worked, "cu", "H1") == lines


def test_an_annotator_sees_only_their_own_changes(worked) -> None:  # type: ignore[no-untyped-def]
    mine = case_history(worked, "a1", "H1")
    assert mine and {line.actor for line in mine} == {"a1"}
    assert not any("unnecessary" in line.what for line in mine)  # a2's label stays hidden


def test_an_unknown_case_or_user_is_one_clear_error(worked) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NotFound, match="no case 'H9'"):
        case_history(worked, "adj", "H9")
    with pytest.raises(NotFound, match="no user named 'zed'"):
        case_history(worked, "zed", "H1")


def test_the_history_command_prints_and_writes_json(worked, capsys) -> None:  # type: ignore[no-untyped-def]
    import annotator.cli

    folder = str(worked.location)
    assert annotator.cli.main(["--project", folder, "--as", "a1", "history", "H1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-1] == "2 change(s) of H1"
    assert out[0].endswith("  a1  label: importance:Figure 1: optional")
    assert out[1].endswith("  a1  label: importance:Figure 1: optional → essential")
    assert annotator.cli.main(["--project", folder, "--as", "adj", "history", "H1",
                               "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {row["actor"] for row in data} == {"cu", "a1", "a2"}
