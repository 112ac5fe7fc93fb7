"""Property-based fuzzing of the case importer: any draft value or image byte may be wrong.

Each example writes a real case file (one good case plus a mutated one) and imports it into a
real SQLite project through the service: the run must end in a report (the good case in, the
mutated one accepted, flagged or rejected with a reason), never a traceback, and every case in
the store must be one the report says went in.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from draft_files import make_case, png_bytes, write_case_file
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sqlalchemy import select

from annotator.services.imports import import_cases
from annotator.services.users import add_user
from annotator.store.project import Project, open_project
from annotator.store.schema import Case
from json_edits import json_paths

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70)
    | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Project]:
    opened = open_project(tmp_path_factory.mktemp("fuzz") / "p")
    add_user(opened, "(setup)", "cu", ["curator"])
    yield opened
    opened.close()



def _import_and_check(project: Project, file: Path) -> None:
    report = import_cases(project, "cu", [file])
    statuses = {o.case_id: o.status for o in report.outcomes}
    assert all(o.reason is None or "Traceback" not in o.reason for o in report.outcomes)
    with project.tx() as session:
        stored = set(session.scalars(select(Case.case_id)))
    went_in = {cid for cid, s in statuses.items() if s not in ("rejected", "refused")}
    assert went_in <= stored


@FUZZ
@given(n=st.integers(0, 10**9), pick=st.integers(0, 10**6), value=JSON)
def test_any_draft_value_replaced(project: Project, tmp_path_factory: pytest.TempPathFactory,
                                  n: int, pick: int, value: Any) -> None:
    folder = tmp_path_factory.mktemp("draft")
    case = make_case(f"F{n}")
    paths = json_paths(case)
    where = paths[pick % len(paths)]
    if where:
        target: Any = case
        for step in where[:-1]:
            target = target[step]
        target[where[-1]] = value
    else:
        case = value
    file = write_case_file(folder, [make_case(f"G{n}"), case], images=False)
    write_case_file(folder, make_case("images"), name="images.json")  # the images it names
    _import_and_check(project, file)


@FUZZ
@given(n=st.integers(0, 10**9),
       flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1,
                      max_size=8),
       cut=st.integers(0, 400))
def test_image_bytes_flipped_or_cut(project: Project, tmp_path_factory: pytest.TempPathFactory,
                                    n: int, flips: list[tuple[int, int]], cut: int) -> None:
    folder = tmp_path_factory.mktemp("image")
    file = write_case_file(folder, make_case(f"I{n}"))
    image = folder / json.loads(file.read_text())["imaging_examinations"][0]["image_paths"][0]
    data = bytearray(png_bytes(3, size=(40, 30)))
    for position, byte in flips:
        data[position % len(data)] = byte
    image.write_bytes(bytes(data[:len(data) - cut]))
    _import_and_check(project, file)
