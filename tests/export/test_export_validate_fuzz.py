"""Property-based fuzzing of ``validate``: a mutated release gives problem lines, never a crash.

Mutations: bytes of any file flipped or cut, any value of release.json, croissant.json or a
CSV cell replaced by arbitrary JSON or text, a file removed, a file replaced by a folder or a
symlink. The validator must return a list of one-line problems every time.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from annotator.export.validate import validate_release
from json_edits import json_paths

FUZZ = settings(max_examples=80, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**70, 2**70)
    | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=6,
)


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file())



def _check(folder: Path) -> None:
    problems = validate_release(folder)
    assert isinstance(problems, list)
    assert all(isinstance(p, str) and "\n" not in p for p in problems)


def _copy(exported: Path, tmp: pytest.TempPathFactory) -> Path:
    target = tmp.mktemp("mutant") / "release"
    shutil.copytree(exported, target)
    return target


@FUZZ
@given(pick=st.integers(0, 10**6), flips=st.lists(st.tuples(st.integers(0, 10**7),
                                                            st.integers(0, 255)), max_size=4),
       cut=st.integers(0, 3000), kind=st.sampled_from(["bytes", "remove", "folder", "link"]))
def test_damaged_files(exported: Path, tmp_path_factory: pytest.TempPathFactory, pick: int,
                       flips: list[tuple[int, int]], cut: int, kind: str) -> None:
    folder = _copy(exported, tmp_path_factory)
    files = _files(folder)
    target = files[pick % len(files)]
    if kind == "bytes":
        data = bytearray(target.read_bytes())
        for position, value in flips:
            if data:
                data[position % len(data)] = value
        target.write_bytes(bytes(data[:max(0, len(data) - cut)]))
    elif kind == "remove":
        target.unlink()
    elif kind == "folder":
        target.unlink()
        target.mkdir()
    else:
        target.unlink()
        target.symlink_to("/etc/hostname")
    _check(folder)


@FUZZ
@given(name=st.sampled_from(["release.json", "croissant.json"]), pick=st.integers(0, 10**6),
       value=JSON)
def test_any_json_value_replaced(exported: Path, tmp_path_factory: pytest.TempPathFactory,
                                 name: str, pick: int, value: Any) -> None:
    folder = _copy(exported, tmp_path_factory)
    data = json.loads((folder / name).read_text("utf-8"))
    paths = json_paths(data)
    where = paths[pick % len(paths)]
    if where:
        target: Any = data
        for step in where[:-1]:
            target = target[step]
        target[where[-1]] = value
    else:
        data = value
    (folder / name).write_text(json.dumps(data), "utf-8")
    _check(folder)


@FUZZ
@given(name=st.sampled_from(["images.csv", "ATTRIBUTION.tsv", "MANIFEST.sha256",
                             "BENCHMARK_CARD.md"]),
       line=st.integers(0, 50), text=st.text(max_size=60))
def test_any_line_of_a_text_file_replaced(exported: Path,
                                          tmp_path_factory: pytest.TempPathFactory, name: str,
                                          line: int, text: str) -> None:
    folder = _copy(exported, tmp_path_factory)
    lines = (folder / name).read_text("utf-8").splitlines()
    lines[line % len(lines)] = text
    (folder / name).write_text("\n".join(lines) + "\n", "utf-8", errors="surrogatepass")
    _check(folder)
