"""sme-lint's words: a misspelt field names the field meant, and a file that cannot be read is
E-READ (not a YAML syntax error)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from annotator.cli import main
from annotator.sme.lint import lint

from .specs import benchmark, write


def test_a_misspelt_field_names_the_field_meant(tmp_path: Path) -> None:
    spec = benchmark()
    spec["treshold"] = spec.pop("threshold", 0.9)
    (problem,) = lint([write(tmp_path, "t.yaml", spec)]).errors
    assert problem.code == "E-UNKNOWN"
    assert problem.message == "unknown field treshold; did you mean threshold?"


def test_a_misspelt_nested_field_is_matched_within_its_mapping(tmp_path: Path) -> None:
    spec = benchmark(scoring_scale={"min_value": 0, "max_valu": 4})
    messages = [p.message for p in lint([write(tmp_path, "n.yaml", spec)]).errors]
    assert "unknown field scoring_scale.max_valu; did you mean max_value?" in messages


def test_an_unknown_field_like_no_other_gets_no_guess(tmp_path: Path) -> None:
    (problem,) = lint([write(tmp_path, "c.yaml", benchmark(colour="red"))]).errors
    assert problem.message == "unknown field colour"


def test_a_missing_file_is_a_read_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nowhere.yaml"
    (problem,) = lint([missing]).problems
    assert (problem.code, problem.line) == ("E-READ", 1)
    assert "cannot read" in problem.message and "No such file" in problem.message
    assert main(["sme-lint", str(missing)]) != 0
    assert "E-READ" in capsys.readouterr().out + capsys.readouterr().err


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads any file")
def test_an_unreadable_file_is_a_read_error(tmp_path: Path) -> None:
    path = write(tmp_path, "locked.yaml", benchmark())
    path.chmod(0)
    (problem,) = lint([path]).problems
    assert problem.code == "E-READ"


def test_a_file_that_is_not_text_is_a_read_error(tmp_path: Path) -> None:
    path = tmp_path / "binary.yaml"
    path.write_bytes(b"\xff\xfe\x00code: x\n")
    (problem,) = lint([path]).problems
    assert problem.code == "E-READ" and "not UTF-8" in problem.message


def test_bad_yaml_is_still_a_syntax_error(tmp_path: Path) -> None:
    (problem,) = lint([write(tmp_path, "b.yaml", "code: [unclosed\n")]).problems
    assert problem.code == "E-YAML"
