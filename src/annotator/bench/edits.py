"""``annotator bench``'s edit figures: one label edit saved, alone and by two writers at once.

Measured on the store ``--store`` names (an empty PostgreSQL database) or on a new SQLite
project. The baseline is the same edit with the history's hash chain switched off in this
process (its flush listener removed), measured in alternating rounds with it on, so the
ratio is what the chain costs. On a walled PostgreSQL store (migration 0013_rls) the
measured edit is also made through each annotator's own login role, so row-level security
applies, and the baseline goes through the owner's connection (which bypasses it) without
the chain: the ratio is what the chain and the wall cost together (``chain_only_s`` is the
owner's edit with the chain). The bench store's history is not a valid chain afterwards.
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
from sqlalchemy.engine import make_url

from annotator.bench.synth import CURATOR, annotator_names, write_drafts
from annotator.errors import ProjectError
from annotator.services import annotating
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.users import add_user, list_users
from annotator.store.chain import chain_new_entries
from annotator.store.project import Project, open_project, project_is_empty

EDITS = 20  # edits per writer and round
WRITERS = annotator_names(2)
CASE = "bench-00001"


def edit_figures(location: str, rounds: int) -> dict[str, Any]:
    """``edit_saved`` and ``edit_saved_two_writers``: seconds per saved edit, chain on vs off."""
    roles = _prepare(location)
    owners = [open_project(location, backup=False) for _ in WRITERS]
    people = [open_project(_as_login(location, roles[name]), backup=False)
              for name in WRITERS] if roles else []
    variants: dict[str, list[Project]] = {"off": owners, "chain": owners}
    if people:
        variants["wall"] = people
    try:
        one: dict[str, list[float]] = {v: [] for v in variants}
        two: dict[str, list[float]] = {v: [] for v in variants}
        for _ in range(rounds):
            for variant, projects in variants.items():
                with _chain(projects, variant != "off"):
                    one[variant] += _edits(projects[0], WRITERS[0])
                    two[variant] += _two_writers(projects)
    finally:
        for project in [*owners, *people]:
            project.close()
    measured = "wall" if people else "chain"
    target = ("within 1.2x of the same edit without the hash chain"
              + (" and row-level security (the owner's connection)" if people else ""))
    return {"edit_saved": _figure(one, measured, target),
            "edit_saved_two_writers": _figure(two, measured, target)}


def _as_login(location: str, db_role: str) -> str:
    """The store's URL with a person's login role as its user (their password: libpq's)."""
    return make_url(location).set(username=db_role, password=None).render_as_string(False)


def _figure(times: dict[str, list[float]], measured: str, target: str) -> dict[str, Any]:
    median, base = statistics.median(times[measured]), statistics.median(times["off"])
    return {"median_s": round(median, 6), "min_s": round(min(times[measured]), 6),
            "max_s": round(max(times[measured]), 6), "runs": len(times[measured]),
            "baseline_s": round(base, 6), "ratio": round(median / base, 2), "target_s": None,
            "chain_only_s": round(statistics.median(times["chain"]), 6),
            "through_login_roles": measured == "wall", "target": target}


def _prepare(location: str) -> dict[str, str]:
    """Two annotators assigned to one small case, on a store holding no case yet; their
    login roles on a walled store (none elsewhere)."""
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
        return {u.name: u.db_role for u in list_users(project) if u.db_role}
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
