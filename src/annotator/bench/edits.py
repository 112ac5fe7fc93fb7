"""``annotator bench``'s edit figures: one label edit saved, alone and by two writers at once.

Measured on the store ``--store`` names (an empty PostgreSQL database) or on a new SQLite
project. The baseline is the same edit with the history's hash chain switched off in this
process (its flush listener removed), measured in alternating rounds with it on, so the
ratio is what the chain costs. The bench store's history is not a valid chain afterwards.
"""

from __future__ import annotations

import statistics
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import event

from annotator.bench.synth import CURATOR, annotator_names, write_drafts
from annotator.errors import ProjectError
from annotator.services import annotating
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.users import add_user
from annotator.store.chain import chain_new_entries
from annotator.store.project import Project, open_project, project_is_empty

EDITS = 20  # edits per writer and round
WRITERS = annotator_names(2)
CASE = "bench-00001"


def edit_figures(location: str, rounds: int) -> dict[str, Any]:
    """``edit_saved`` and ``edit_saved_two_writers``: seconds per saved edit, chain on vs off."""
    _prepare(location)
    projects = [open_project(location, backup=False) for _ in WRITERS]
    try:
        one: dict[bool, list[float]] = {True: [], False: []}
        two: dict[bool, list[float]] = {True: [], False: []}
        for _ in range(rounds):
            for chained in (False, True):
                with _chain(projects, chained):
                    one[chained] += _edits(projects[0], WRITERS[0])
                    two[chained] += _two_writers(projects)
    finally:
        for project in projects:
            project.close()
    target = "within 1.2x of the same edit without the hash chain"
    return {"edit_saved": _figure(one, target), "edit_saved_two_writers": _figure(two, target)}


def _figure(times: dict[bool, list[float]], target: str) -> dict[str, Any]:
    median, base = statistics.median(times[True]), statistics.median(times[False])
    return {"median_s": round(median, 6), "min_s": round(min(times[True]), 6),
            "max_s": round(max(times[True]), 6), "runs": len(times[True]),
            "baseline_s": round(base, 6), "ratio": round(median / base, 2), "target_s": None,
            "target": target}


def _prepare(location: str) -> None:
    """Two annotators assigned to one small case, on a store holding no case yet."""
    project = open_project(location, backup=False)
    try:
        if not project_is_empty(project):
            raise ProjectError(f"bench --store {location}: needs an empty store")
        add_user(project, "(setup)", CURATOR, ["curator"])
        for name in WRITERS:
            add_user(project, CURATOR, name, ["annotator"])
        with tempfile.TemporaryDirectory(prefix="annotator-bench-") as tmp:
            write_drafts(Path(tmp), 1)
            import_cases(project, CURATOR, [Path(tmp)])
        assign(project, CURATOR, len(WRITERS))
    finally:
        project.close()


@contextmanager
def _chain(projects: list[Project], on: bool) -> Iterator[None]:
    if not on:
        for project in projects:
            event.remove(project.sessions, "before_flush", chain_new_entries)
    try:
        yield
    finally:
        if not on:
            for project in projects:
                event.listen(project.sessions, "before_flush", chain_new_entries)


def _edits(project: Project, name: str) -> list[float]:
    times = []
    for i in range(EDITS):
        start = time.perf_counter()
        annotating.set_label(project, name, CASE, "comment", "", f"edit {i} at {start}")
        times.append(time.perf_counter() - start)
    return times


def _two_writers(projects: list[Project]) -> list[float]:
    """Both annotators edit their annotation of the case at the same time (a thread each)."""
    found: list[list[float]] = [[] for _ in projects]
    failed: list[BaseException] = []

    def work(i: int) -> None:
        try:
            found[i] = _edits(projects[i], WRITERS[i])
        except BaseException as exc:  # noqa: BLE001 - raised again below, in the caller
            failed.append(exc)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(projects))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if failed:
        raise failed[0]
    return [t for times in found for t in times]
