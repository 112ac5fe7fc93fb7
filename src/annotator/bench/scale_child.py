"""``bench-scale``'s service figures for one project, in a fresh interpreter.

``python -m annotator.bench.scale_child PROJECT RUNS`` prints one JSON line: each figure
``{"median_s", "min_s", "max_s", "runs", "target_s"}`` and the process's ``peak_rss_mb``.

Each figure acts as the person who sees it: the first annotator (their case list, edits,
submissions and SME queue), the senior (the review queue), the curator (the rest). On a
PostgreSQL team store each of them connects through their own login role, so row-level
security applies as to them; ``$ANNOTATOR_BENCH_LOGINS`` gives the logins
(``{person: [db_role, password]}``) and ``connections`` reports each connection's
``current_user``.
"""

from __future__ import annotations

import gc
import json
import os
import random
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.bench.rss import peak_rss_mb
from annotator.bench.run import ANNOTATORS, timed
from annotator.bench.scale import LOGINS_ENV, TARGETS
from annotator.bench.synth import CURATOR, SENIOR, annotator_names
from annotator.domain.states import CaseState
from annotator.export.privacy import PrivacyError
from annotator.services import annotating, kinds, workspace
from annotator.services.agreement import point_estimates
from annotator.services.case_history import case_history
from annotator.services.demo import _label_fully
from annotator.services.desk import desk_snapshot
from annotator.services.export import export_release
from annotator.services.pixel_status import unresolved
from annotator.services.review.queue import case_queue_page
from annotator.services.sme import review as sme_review
from annotator.services.status import project_status
from annotator.store.db_roles import current_role
from annotator.store.project import Project, open_as_login, open_project
from annotator.store.schema import Case, CaseImage

EXPORT_CASES = 100


def _figure(key: str, times: list[float]) -> dict[str, Any]:
    return {"median_s": round(statistics.median(times), 6), "min_s": round(min(times), 6),
            "max_s": round(max(times), 6), "runs": len(times), "target_s": TARGETS.get(key)}


QUICK_RUNS = 9


def _rss_mb() -> float:
    return round(peak_rss_mb(), 1)


class _Marks(dict[str, Any]):
    """The figures, and the process's peak RSS after each (``rss_after_mb``): the figure
    whose step raises it is the one that reads more than it shows."""

    def __setitem__(self, key: str, value: Any) -> None:
        super().__setitem__(key, value)
        if isinstance(value, dict) and "median_s" in value:
            self.setdefault("rss_after_mb", {})[key] = _rss_mb()


@dataclass(frozen=True)
class People:
    """The connections the figures are measured through, one per person (one project for
    all on SQLite, which has no logins)."""

    annotator: Project
    senior: Project
    curator: Project


def measure(people: People, runs: int) -> dict[str, Any]:
    user = annotator_names(ANNOTATORS)[0]
    mine, project = people.annotator, people.curator
    rows = workspace.case_list(mine, user).rows
    untouched = [r.case_id for r in rows if r.state == "assigned" and not r.needs_fix]
    case_id = rows[len(rows) // 2].case_id
    # Started, as the app does once its first case is up (gui.collect.settle): what start-up
    # made is kept out of the later automatic collections, which otherwise walk it again
    # (a full one took 140 ms in the middle of an export of 100 cases).
    gc.freeze()
    # The reads of a few milliseconds, read QUICK_RUNS times at least: a median of three of
    # them moved by a third from one bench-scale run to the next.
    reads = max(runs, QUICK_RUNS)
    out: dict[str, Any] = _Marks(user_cases=len(rows), rss_after_mb={"start": _rss_mb()})
    out["case_list_refresh"] = _figure(
        "case_list_refresh", timed(lambda: workspace.case_list(mine, user), reads))
    filters: list[float] = []
    for show in workspace.FILTERS:
        filters += timed(partial(workspace.case_list, mine, user, show=show), runs)
    filters += timed(lambda: workspace.case_list(mine, user, search="bench-00042"), runs)
    out["case_filter"] = _figure("case_filter", filters)
    out["edit_saved"] = _figure("edit_saved", _edits(mine, user, untouched or [case_id], runs))
    out["review_queue"] = _figure(  # the first page, what the review page reads and shows
        "review_queue", timed(lambda: case_queue_page(people.senior, SENIOR), reads))
    out["user_sme_tasks"] = len(sme_review.queue(mine, user))
    out["sme_queue"] = _figure(  # the SME page's list: the annotator's own tasks
        "sme_queue", timed(lambda: sme_review.queue(mine, user), reads))
    out["status"] = _figure("status", timed(lambda: project_status(project), reads))
    out["desk_figures"] = _figure(
        "desk_figures", timed(lambda: desk_snapshot(project, CURATOR), reads))
    out["case_history"] = _figure(
        "case_history", timed(lambda: case_history(project, CURATOR, case_id), reads))
    out["agreement_incremental"] = _figure(
        "agreement_incremental", _agreement_after_submit(people, user, untouched, runs))
    exported, copied, out["export_100_cases"] = _export_100(project, runs)
    out["export_100"] = _figure("export_100", exported)
    out["export_100_copy"] = _figure("export_100_copy", copied)
    out["export_100"]["copy_ratio"] = round(
        out["export_100"]["median_s"] / out["export_100_copy"]["median_s"], 2)
    return dict(out)


def _exportable(project: Project, candidates: list[str]) -> list[str]:
    """The first 100 candidates the privacy gate lets through (the bench's synthetic images
    carry text): a first, unmeasured export drops the cases it names and tries again."""
    cases, rest = candidates[:EXPORT_CASES], candidates[EXPORT_CASES:]
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        for attempt in range(10):
            try:
                export_release(project, CURATOR, Path(tmp) / f"try-{attempt}", cases=cases)
                return cases
            except PrivacyError as exc:
                named = {f.split(":", 1)[0] for f in exc.findings}
                kept = [c for c in cases if c not in named]
                cases, rest = kept + rest[:len(cases) - len(kept)], rest[len(cases) - len(kept):]
    raise PrivacyError(["no 100 green-lit cases of the bench pass the privacy gate"])


def _export_100(project: Project, runs: int) -> tuple[list[float], list[float], int]:
    """``export --cases`` of 100 green-lit cases, and copying those cases' image bytes
    (fewer when the project has fewer: ``export_100_cases`` says how many)."""
    with project.read() as session:
        # Green-lit cases whose images the pixel check passed (export refuses the others
        # until a curator reviews them).
        candidates = list(session.scalars(
            select(Case.case_id).where(Case.state == CaseState.GREEN_LIT.value)
            .order_by(Case.case_id).limit(4 * EXPORT_CASES)))
        pending = {s.case_id for s in unresolved(session, candidates)}
    candidates = [c for c in candidates if c not in pending]
    cases = _exportable(project, candidates)
    with project.read() as session:
        shas = list(session.scalars(
            select(CaseImage.sha256).join(Case, CaseImage.revision_id == Case.current_revision_id)
            .where(Case.case_id.in_(cases))))
    exported: list[float] = []
    copied: list[float] = []
    with tempfile.TemporaryDirectory(prefix="bench-export-") as tmp:
        for run in range(runs):
            start = time.perf_counter()
            with project.read() as session:
                for n, sha in enumerate(shas):
                    (Path(tmp) / f"copy-{run}-{n}").write_bytes(project.images.get(session, sha))
            copied.append(time.perf_counter() - start)
            start = time.perf_counter()
            export_release(project, CURATOR, Path(tmp) / f"release-{run}", cases=cases)
            exported.append(time.perf_counter() - start)
    return exported, copied, len(cases)


def _edits(project: Project, user: str, cases: list[str], runs: int) -> list[float]:
    case_id = cases[0]
    annotating.accept_suggestions(project, user, case_id)
    item = next(k.split(":", 1)[1] for k in annotating.view(project, user, case_id).labels
                if k.startswith("importance:"))
    times = []
    for value in ["essential", "optional"] * max(runs, 5):
        start = time.perf_counter()
        annotating.set_label(project, user, case_id, "importance", item, value)
        times.append(time.perf_counter() - start)
    return times


def _agreement_after_submit(
    people: People, user: str, cases: list[str], runs: int
) -> list[float]:
    """The point estimates right after one more submission: the stored per-case statistics
    summed, the submitted case recomputed (the intervals come later, with the full report)."""
    times: list[float] = []
    rng = random.Random(27)
    point_estimates(people.curator, CURATOR)  # warm: what the curator last saw
    for case_id in cases[1:runs + 1]:
        _label_fully(people.annotator, user, case_id, rng, disagree=0.3)
        kinds.CASES.submit(people.annotator, user, case_id)
        start = time.perf_counter()
        point_estimates(people.curator, CURATOR)
        times.append(time.perf_counter() - start)
    return times or [float("nan")]


def _connect(location: str, logins: dict[str, list[str]]) -> tuple[People, list[Project]]:
    if not logins:
        project = open_project(location, create=False, backup=False)
        return People(project, project, project), [project]
    user = annotator_names(ANNOTATORS)[0]
    opened = {name: open_as_login(location, *logins[name]) for name in (user, SENIOR, CURATOR)}
    return People(opened[user], opened[SENIOR], opened[CURATOR]), list(opened.values())


def _connections(people: People) -> dict[str, str]:
    """Each person's connection's ``current_user`` (PostgreSQL: their login role)."""
    out = {}
    for name, project in ((CURATOR, people.curator), (SENIOR, people.senior),
                          (annotator_names(ANNOTATORS)[0], people.annotator)):
        with project.read() as session:
            out[name] = current_role(session)
    return out


def main(argv: list[str]) -> int:
    location, runs = argv[0], int(argv[1])
    people, opened = _connect(location, json.loads(os.environ.get(LOGINS_ENV) or "{}"))
    try:
        out = measure(people, runs)
        if not people.curator.is_sqlite:
            out["connections"] = _connections(people)
    finally:
        for project in opened:
            project.close()
    out["peak_rss_mb"] = _rss_mb()
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
