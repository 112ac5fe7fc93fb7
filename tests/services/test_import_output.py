"""What `annotator import` prints: a line per case and a closing line by default, the
de-identification of every tag only with --verbose (each said as what happened to it), and
everything in --json. Checked on the bundled demo drafts (14 cases, DICOM and PNG)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from annotator.cli import main
from annotator.resources import demo_cases_dir
from annotator.services.import_summary import deidentified_counts
from factories import make_case, write_case_file

NEEDS_FIX = ["demo-009", "demo-010", "demo-012", "demo-014"]


def _import(capsys: pytest.CaptureFixture[str], project: Path, *extra: str) -> tuple[int, str]:
    if not (project / "project.sqlite").exists():
        assert main(["--project", str(project), "users", "add", "Kim", "--role", "curator"]) == 0
        capsys.readouterr()
    code = main(["--project", str(project), "import", str(demo_cases_dir()), *extra])
    out = capsys.readouterr().out
    return code, out


def test_the_demo_drafts_print_a_line_per_case_and_a_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _import(capsys, tmp_path / "p")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 15  # was 994: every de-identified tag of every image
    assert [line.split()[1] for line in lines[:14]] == [f"demo-{i:03d}" for i in range(1, 15)]
    assert all(line.startswith("added ") for line in lines[:14])
    assert lines[14].startswith(
        "14 cases: 14 added, 0 updated, 0 new version, 0 unchanged, 0 refused, 0 rejected; "
        f"4 need a fix: {', '.join(NEEDS_FIX)} (details: --verbose)"
    )
    # demo-007 carries made-up burned-in text; its image is counted for review.
    assert re.search(r"; \d+ images? in \d+ cases? may show burned-in text: review them "
                     r"\(annotator redact --list\) before export$", lines[14])
    assert next(line for line in lines if " demo-007 " in line).endswith(
        "(1 image with possible burned-in text)")
    line_009 = next(line for line in lines if " demo-009 " in line)
    assert line_009.endswith("(1 to fix)")
    line_005 = next(line for line in lines if " demo-005 " in line)
    # Type 2 attributes are kept empty (valid for the IOD), so fewer are "removed".
    assert line_005.endswith("(normalised rarity; de-identified: 86 removed, 26 replaced, "
                             "4 shifted)")
    assert "removed:" not in out


def test_verbose_says_what_happened_to_each_tag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = _import(capsys, tmp_path / "p", "--verbose")
    tags = [line.strip() for line in out.splitlines() if line.startswith("    de-identified:")]
    assert any(t.endswith("PatientName replaced") for t in tags)
    assert any(t.endswith(" shifted") for t in tags)  # dates move, they are not removed
    assert any(t.endswith(" removed") for t in tags)
    assert "    removed:" not in out  # the old label called every change a removal
    assert "needs fix: diagnostic_steps[1].source: 'Fig. 2'" in out
    again = main(["--project", str(tmp_path / "p"), "import", str(demo_cases_dir()), "--json"])
    assert again == 0
    outcomes = json.loads(capsys.readouterr().out)
    assert len(outcomes) == 14 and {o["status"] for o in outcomes} == {"unchanged"}


def test_json_keeps_every_de_identification_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, out = _import(capsys, tmp_path / "p", "--json")
    outcomes = json.loads(out)
    changes = [line for o in outcomes for line in o["removed"]]
    assert len(changes) > 900
    counts = deidentified_counts(changes)
    assert counts["replaced"] > 100 and counts["shifted"] > 10 and counts["removed"] > 500
    assert sum(counts.values()) == len(changes)


def test_the_closing_line_counts_refused_and_rejected_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    project = tmp_path / "p"
    assert main(["--project", str(project), "users", "add", "Kim", "--role", "curator"]) == 0
    capsys.readouterr()
    bad = tmp_path / "b" / "broken.json"
    bad.parent.mkdir()
    bad.write_text('{"case_id": "X1", "imaging_examinations": [', encoding="utf-8")
    good = write_case_file(tmp_path / "a", [make_case("G1")])
    assert main(["--project", str(project), "import", str(good), str(bad)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3
    assert lines[-1] == ("2 cases: 1 added, 0 updated, 0 new version, 0 unchanged, 0 refused, "
                         "1 rejected; none needs a fix")


def test_change_lines_are_counted_by_what_happened() -> None:
    assert deidentified_counts([
        "PatientName replaced", "StudyDate shifted", "OtherPatientIDs removed",
        "SeriesDescription replaced by 'FLAIR'", "7 private tags removed",
        "128-byte preamble zeroed", "PNG re-encoded as PNG from its pixels (no metadata kept)",
    ]) == {"removed": 2, "replaced": 2, "shifted": 1, "other": 2}
