"""Green-light warnings: identical image bytes filed under two exams of one case (issue 16)."""

from __future__ import annotations

import shutil
from pathlib import Path

from annotator.services.imports import import_cases
from annotator.services.review import base
from annotator.services.users import add_user
from factories import make_case, write_case_file


def test_identical_image_bytes_across_exams_warn_but_do_not_block(  # type: ignore[no-untyped-def]
    project, tmp_path: Path
) -> None:
    add_user(project, "(setup)", "cu", ["curator"])
    drafts = tmp_path / "drafts"
    path = write_case_file(drafts, [make_case("D1"), make_case("D2")])
    report = import_cases(project, "cu", [path])
    assert report.count("added") == 2
    assert base.review_case(project, "D1").warnings == []
    # A second import folder where Figure 2's file is a byte copy of Figure 1's.
    twice = tmp_path / "twice"
    path = write_case_file(twice, [make_case("D3")])
    shutil.copyfile(twice / "img" / "f1.png", twice / "img" / "f2.png")
    assert import_cases(project, "cu", [path]).count("added") == 1
    found = base.review_case(project, "D3")
    assert len(found.warnings) == 1
    assert found.warnings[0].startswith("Figure 1, Figure 2: identical image bytes")
    assert not any("identical" in b for b in found.blockers)
