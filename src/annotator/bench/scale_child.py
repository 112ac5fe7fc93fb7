"""``bench-scale``'s service figures for one project, in a fresh interpreter.

``python -m annotator.bench.scale_child PROJECT RUNS`` prints one JSON line: each figure
``{"median_s", "min_s", "max_s", "runs", "target_s"}`` and the process's ``peak_rss_mb``.
"""

from __future__ import annotations

import json
import random
import resource
import statistics
import sys
import time
from functools import partial
from pathlib import Path
from typing import Any

from annotator.bench.run import ANNOTATORS, timed
from annotator.bench.scale import TARGETS
from annotator.bench.synth import CURATOR, SENIOR, annotator_names
from annotator.services import annotating, kinds, workspace
from annotator.services.agreement import point_estimates
from annotator.services.case_history import case_history
from annotator.services.demo import _label_fully
from annotator.services.desk import desk_snapshot
from annotator.services.review.queue import case_queue
from annotator.services.status import project_status
from annotator.store.project import Project, open_project


def _figure(key: str, times: list[float]) -> dict[str, Any]:
    return {"median_s": round(statistics.median(times), 6), "min_s": round(min(times), 6),
            "max_s": round(max(times), 6), "runs": len(times), "target_s": TARGETS.get(key)}


def measure(project: Project, runs: int) -> dict[str, Any]:
    user = annotator_names(ANNOTATORS)[0]
    rows = workspace.case_list(project, user).rows
    untouched = [r.case_id for r in rows if r.state == "assigned" and not r.needs_fix]
    case_id = rows[len(rows) // 2].case_id
    out: dict[str, Any] = {"user_cases": len(rows)}
    out["case_list_refresh"] = _figure(
        "case_list_refresh", timed(lambda: workspace.case_list(project, user), runs))
    filters: list[float] = []
    for show in workspace.FILTERS:
        filters += timed(partial(workspace.case_list, project, user, show=show), runs)
    filters += timed(lambda: workspace.case_list(project, user, search="bench-00042"), runs)
    out["case_filter"] = _figure("case_filter", filters)
    out["edit_saved"] = _figure("edit_saved", _edits(project, user, untouched or [case_id], runs))
    out["review_queue"] = _figure(
        "review_queue", timed(lambda: case_queue(project, SENIOR), runs))
    out["status"] = _figure("status", timed(lambda: project_status(project), runs))
    out["desk_figures"] = _figure(
        "desk_figures", timed(lambda: desk_snapshot(project, CURATOR), runs))
    out["case_history"] = _figure(
        "case_history", timed(lambda: case_history(project, CURATOR, case_id), runs))
    out["agreement_incremental"] = _figure(
        "agreement_incremental", _agreement_after_submit(project, user, untouched, runs))
    return out


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
    project: Project, user: str, cases: list[str], runs: int
) -> list[float]:
    """The point estimates right after one more submission: the stored per-case statistics
    summed, the submitted case recomputed (the intervals come later, with the full report)."""
    times: list[float] = []
    rng = random.Random(27)
    point_estimates(project, CURATOR)  # warm: what the curator last saw
    for case_id in cases[1:runs + 1]:
        _label_fully(project, user, case_id, rng, disagree=0.3)
        kinds.CASES.submit(project, user, case_id)
        start = time.perf_counter()
        point_estimates(project, CURATOR)
        times.append(time.perf_counter() - start)
    return times or [float("nan")]


def main(argv: list[str]) -> int:
    folder, runs = Path(argv[0]), int(argv[1])
    project = open_project(str(folder), create=False, backup=False)
    try:
        out = measure(project, runs)
    finally:
        project.close()
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
