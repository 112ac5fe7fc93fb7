"""Two exports into one folder, and what a killed export or demo leaves behind."""

from __future__ import annotations

import multiprocessing
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotator.export.validate import validate_release
from annotator.store.project import Project, open_project
from annotator.store.settings import PROJECT_NAME

# Spelled out, not imported from conftest: the spawned exporters import this module, and in
# a child process "conftest" may name another folder's conftest.
CURATOR = "Sam Curator"


def _export(location: str, out: str, curator: str, barrier: Any, results: Any) -> None:
    from annotator.errors import AnnotatorError
    from annotator.services.export import export_release

    project = open_project(location, create=False)
    try:
        barrier.wait(60)
        export_release(project, curator, Path(out), version="1.0.0", date="2026-05-06")
        results.put(("ok", ""))
    except AnnotatorError as exc:
        results.put(("refused", str(exc)))
    except Exception as exc:  # noqa: BLE001 - the test reports what escaped
        results.put(("crashed", f"{type(exc).__name__}: {exc}"))
    finally:
        project.close()


def test_two_exports_into_one_folder_one_wins_one_is_told(
    build_project: Callable[..., Project], tmp_path: Path
) -> None:
    location = str(tmp_path / "p")
    build_project(location).close()
    out = tmp_path / "release"
    ctx = multiprocessing.get_context("spawn")
    barrier, results = ctx.Barrier(2), ctx.Queue()
    procs = [ctx.Process(target=_export, args=(location, str(out), CURATOR, barrier, results))
             for _ in range(2)]
    for p in procs:
        p.start()
    outcomes = sorted(results.get(timeout=300) for _ in procs)
    for p in procs:
        p.join(60)
    assert [o[0] for o in outcomes] == ["ok", "refused"], outcomes
    assert str(out) in outcomes[1][1]
    assert validate_release(out) == []
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def _dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True, check=True)
    return int(done.stdout)


def test_a_killed_exports_staging_folder_is_removed_by_the_next_export(
    build_project: Callable[..., Project], tmp_path: Path
) -> None:
    from annotator.services.export import export_release

    project = build_project(str(tmp_path / "p"))
    out = tmp_path / "release"
    stale = tmp_path / f".release.export-{_dead_pid()}-abcd1234"
    (stale / "images").mkdir(parents=True)
    (stale / "release.json").write_text("[")  # what a SIGKILL half-way leaves
    export_release(project, CURATOR, out, version="1.0.0", date="2026-05-06")
    assert not stale.exists() and validate_release(out) == []


def test_a_killed_demo_leaves_nothing_the_next_demo_refuses(tmp_path: Path) -> None:
    from annotator.services.demo import build_demo

    target = tmp_path / "demo"
    stale = tmp_path / f".demo.demo-{_dead_pid()}-abcd1234"
    stale.mkdir()
    (stale / "project.sqlite").write_bytes(b"half a database")
    assert not target.exists()  # the killed build never touched the target
    summary = build_demo(str(target))
    assert "demo project ready" in summary and not stale.exists()
    project = open_project(str(target), create=False)
    try:
        assert project.setting(PROJECT_NAME)
    finally:
        project.close()
