"""Property-based fuzzing of the package importer: never a traceback, never a half import.

Two mutators: raw bytes of the zip flipped (what a damaged disk or a hostile sender makes),
and any one value of the content JSON replaced by arbitrary JSON, then re-sealed and re-signed
with the laptop's secret (so the importer's deeper checks, not the signature, are what meet
it). Every outcome must be a report or a one-line refusal, and a refusal changes nothing.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sync_support import ALPHA, CURATOR, complete, setup_curator, store_counts
from test_refusals import _rewrite, laptop_key

from annotator.errors import AnnotatorError
from annotator.services import annotating
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import make_package
from annotator.services.sync.package_import import import_package
from annotator.services.sync.unbundle import unbundle
from annotator.store.project import Project, open_project
from json_edits import json_paths

FUZZ = settings(max_examples=60, deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture,
                                       HealthCheck.too_slow])
JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-2**40, 2**40)
    | st.floats(allow_nan=False) | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=3),
    max_leaves=6,
)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Project, Path, bytes]]:
    """A curator's SQLite project, one genuine package of Alpha's, and the laptop's key."""
    root = tmp_path_factory.mktemp("fuzz")
    curator = setup_curator(open_project(root / "curator"), root / "drafts")
    bundle = make_bundle(curator, CURATOR, ALPHA, root / "a.annotator-bundle")
    unbundle(bundle.path, root / "laptop")
    laptop = open_project(root / "laptop", create=False)
    complete(laptop, ALPHA, "T1")
    annotating.set_label(laptop, ALPHA, "T2", "comment", "", "half done")
    package = make_package(laptop, root / "genuine.annotator-package").path
    key = laptop_key(laptop)
    laptop.close()
    yield curator, package, key
    curator.close()



def _import_changes_nothing_unless_reported(curator: Project, path: Path) -> None:
    before = store_counts(curator)
    try:
        report = import_package(curator, CURATOR, path)
    except AnnotatorError as exc:
        assert "\n" not in str(exc).strip()
        assert store_counts(curator) == before
        return
    assert all(c.status in ("added", "unchanged", "stale", "refused") for c in report.cases)


@FUZZ
@given(flips=st.lists(st.tuples(st.integers(0, 10**9), st.integers(0, 255)), min_size=1,
                      max_size=6))
def test_flipped_bytes(world: tuple[Project, Path, bytes], tmp_path_factory: pytest.TempPathFactory,
                       flips: list[tuple[int, int]]) -> None:
    curator, package, _ = world
    data = bytearray(package.read_bytes())
    for position, value in flips:
        data[position % len(data)] = value
    path = tmp_path_factory.mktemp("flip") / "p.annotator-package"
    path.write_bytes(bytes(data))
    _import_changes_nothing_unless_reported(curator, path)


@FUZZ
@given(pick=st.integers(0, 10**6), value=JSON)
def test_any_content_value_replaced_and_resigned(
    world: tuple[Project, Path, bytes], tmp_path_factory: pytest.TempPathFactory,
    pick: int, value: Any,
) -> None:
    curator, package, key = world
    content = json.loads(_member(package, "content.json"))
    paths = json_paths(content)
    where = paths[pick % len(paths)]

    def mutate(data: dict[str, Any]) -> None:
        for case in data["cases"]:  # new history, so the importer looks at every label
            for entry in case["annotation"]["history"]:
                entry["id"] = str(uuid.uuid4())
        if not where:
            data.clear()
            return
        target: Any = data
        for step in where[:-1]:
            target = target[step]
        target[where[-1]] = value

    def fresh(manifest: dict[str, Any]) -> None:
        # A new package from a new laptop each time, so no example is "already imported".
        manifest.update(package_id=str(uuid.uuid4()), source_id=str(uuid.uuid4()))

    path = _rewrite(package, tmp_path_factory.mktemp("json") / "p.annotator-package",
                    manifest=fresh, content=mutate, key=key)
    _import_changes_nothing_unless_reported(curator, path)


def _member(path: Path, name: str) -> bytes:
    import zipfile

    with zipfile.ZipFile(path) as archive:
        return archive.read(name)
