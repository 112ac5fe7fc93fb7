"""`agreement --html` on a project where nobody has submitted yet says there is nothing to
compare, instead of a page of n/a tables."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.cli import main
from factories import make_case, write_case_file


def _project(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> str:
    project = str(tmp_path / "p")
    assert main(["--project", project, "users", "add", "Kim", "--role", "curator"]) == 0
    assert main(["--project", project, "import",
                 str(write_case_file(tmp_path / "d", [make_case("C1"), make_case("C2")]))]) == 0
    capsys.readouterr()
    return project


def test_html_without_submitted_work_says_nothing_to_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, capsys)
    out = tmp_path / "agreement.html"
    assert main(["--project", project, "agreement", "--html", str(out)]) == 0
    html = out.read_text(encoding="utf-8")
    assert "Nothing to compare yet" in html and "2 cases" in html
    assert "n/a" not in html and "Table 8" not in html


def test_text_without_submitted_work_says_nothing_to_compare(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = _project(tmp_path, capsys)
    assert main(["--project", project, "agreement"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("Nothing to compare yet") and "n/a" not in out
