"""One measured job in a fresh interpreter: ``python -m annotator.bench.child JOB ARGS``.

Prints one JSON line: the job's wall time and the process's peak resident memory, so that
import and export are measured from a cold start, as a curator runs them.
"""

from __future__ import annotations

import time

# Taken before the app's modules load, so a job is timed from a cold start as a curator runs it.
STARTED = time.perf_counter()

import json  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

from annotator.bench.rss import peak_rss_mb  # noqa: E402
from annotator.bench.synth import CURATOR  # noqa: E402
from annotator.services.export import export_release  # noqa: E402
from annotator.services.imports import import_cases  # noqa: E402
from annotator.services.users import add_user  # noqa: E402
from annotator.store.project import open_project  # noqa: E402


def job_import(drafts: Path, target: Path, *, check_pixels: bool = True) -> None:
    project = open_project(str(target))
    try:
        add_user(project, "(setup)", CURATOR, ["curator"])
        report = import_cases(project, CURATOR, [drafts], check_pixels=check_pixels)
        if report.failed:
            raise SystemExit("import failed: " + "; ".join(
                o.reason for o in report.outcomes if o.status in ("rejected", "refused")))
    finally:
        project.close()


def job_export(project_dir: Path, target: Path) -> None:
    project = open_project(str(project_dir), create=False, backup=False)
    try:
        export_release(project, CURATOR, target)
    finally:
        project.close()


def job_import_unchecked(drafts: Path, target: Path) -> None:
    """Import without the burned-in text check: what the check costs."""
    job_import(drafts, target, check_pixels=False)


JOBS = {"import": job_import, "import-unchecked": job_import_unchecked, "export": job_export}


def _cpu_seconds() -> float:
    """CPU seconds of this process and of its children it waited for (the import's worker
    processes, Tesseract): the whole process tree's."""
    times = os.times()
    return times.user + times.system + times.children_user + times.children_system


def main(argv: list[str]) -> int:
    job, *paths = argv
    JOBS[job](*[Path(p) for p in paths])
    seconds = time.perf_counter() - STARTED
    print(json.dumps({"seconds": seconds, "peak_rss_mb": round(peak_rss_mb(), 1),
                      "cpu_s": round(_cpu_seconds(), 3)}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
