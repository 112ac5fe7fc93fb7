"""A project with two annotators on every case, two adjudicators and a curator."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.users import add_user
from factories import make_case, write_case_file


@pytest.fixture
def duo(project, tmp_path: Path):  # type: ignore[no-untyped-def]
    """Cases T1..T4; a1 and a2 annotate each; adj and adj2 adjudicate; cu curates."""
    add_user(project, "(setup)", "cu", ["curator"])
    add_user(project, "cu", "a1", ["annotator"])
    add_user(project, "cu", "a2", ["annotator"])
    add_user(project, "cu", "adj", ["adjudicator"])
    add_user(project, "cu", "adj2", ["adjudicator"])
    cases = [make_case(f"T{i}") for i in range(1, 5)]
    report = import_cases(project, "cu", [write_case_file(tmp_path / "drafts", cases)])
    assert report.count("added") == 4
    assign(project, "cu", 2)
    return project
