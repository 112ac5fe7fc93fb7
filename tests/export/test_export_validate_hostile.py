"""Issue 23: release files that crashed ``validate`` or passed it wrongly, each a fixture."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from annotator.export.validate import validate_release


def _copy(exported: Path, tmp_path: Path) -> Path:
    target = tmp_path / "release"
    shutil.copytree(exported, target)
    return target


def _problems(folder: Path) -> list[str]:
    problems = validate_release(folder)
    assert all(isinstance(p, str) and "\n" not in p for p in problems)
    return problems


def test_a_croissant_json_that_is_null_is_a_problem(exported: Path, tmp_path: Path) -> None:
    folder = _copy(exported, tmp_path)
    (folder / "croissant.json").write_text("null", "utf-8")
    problems = _problems(folder)
    assert any(p.startswith("croissant.json:") and "not a JSON object" in p for p in problems)


@pytest.mark.parametrize("where", ["image_paths", "imaging_examinations", "diagnostic_steps",
                                   "images"])
def test_an_int_where_a_list_belongs_is_a_problem(exported: Path, tmp_path: Path,
                                                 where: str) -> None:
    folder = _copy(exported, tmp_path)
    cases: list[dict[str, Any]] = json.loads((folder / "release.json").read_text("utf-8"))
    if where == "image_paths":
        cases[0]["imaging_examinations"][0]["image_paths"] = 5
    else:
        cases[0][where] = 5
    (folder / "release.json").write_text(json.dumps(cases), "utf-8")
    assert any(p.startswith("release.json:") for p in _problems(folder))


def test_croissant_rows_of_the_wrong_type_are_problems(exported: Path, tmp_path: Path) -> None:
    folder = _copy(exported, tmp_path)
    doc = json.loads((folder / "croissant.json").read_text("utf-8"))
    for record_set in doc["recordSet"]:
        record_set["data"] = 5
    (folder / "croissant.json").write_text(json.dumps(doc), "utf-8")
    assert any(p.startswith("croissant.json:") for p in _problems(folder))
    for record_set in doc["recordSet"]:
        record_set["data"] = [5, "x", None]
    (folder / "croissant.json").write_text(json.dumps(doc), "utf-8")
    assert any(p.startswith("croissant.json:") for p in _problems(folder))


@pytest.mark.parametrize("name", ["release.json", "croissant.json"])
def test_a_lone_surrogate_is_a_problem(exported: Path, tmp_path: Path, name: str) -> None:
    folder = _copy(exported, tmp_path)
    text = (folder / name).read_text("utf-8")
    first = '"case_id": ' if name == "release.json" else '"contentUrl": '
    (folder / name).write_text(text.replace(first, first + '"\\ud800 bad", "x": '), "utf-8")
    problems = _problems(folder)
    assert any(p.startswith(f"{name}:") and "lone surrogate" in p for p in problems)
