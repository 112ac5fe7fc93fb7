"""``annotator bench-scale``: the everyday figures at 1,000, 10,000 and 100,000 cases.

Each size is a project of its own under ``--workdir``: the base (built once through the
services, :mod:`annotator.bench.synth`) copied and grown by :mod:`annotator.bench.clone`.
The service figures of one size are measured in a fresh interpreter (its peak RSS is the
size's ``peak_rss_mb``, :mod:`annotator.bench.scale_child`); the GUI figures offscreen through
:mod:`annotator.gui.bench_probe`, as ``annotator bench`` does. Every figure is
``{"median_s", "min_s", "max_s", "runs"}``; ``growth`` gives each figure's median at the
largest size over the smallest (the issue's target: at most 1.5x).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotator.bench import pg_stores
from annotator.bench.clone import clone_cases
from annotator.bench.run import ANNOTATORS, machine, measure_gui
from annotator.bench.synth import CURATOR, SENIOR, annotator_names, build_bench_project
from annotator.errors import ProjectError
from annotator.services.agreement import point_estimates
from annotator.store.project import login_location, open_project

BASE_CASES = 1000
TARGETS = {  # seconds; export_100 is a ratio to copying (see docs/performance.md)
    "startup_first_case": 1.2, "case_list_refresh": 0.01, "case_filter": 0.05,
    "case_switch_first_image": 0.05, "edit_saved": 0.05, "review_queue": 0.3,
    "sme_queue": 0.3, "status": 0.5, "desk_figures": 0.5, "case_history": 0.05,
    "agreement_incremental": 1.0,
}
# The people the figures act as: on PostgreSQL each measured through their own login role.
MEASURED = (CURATOR, SENIOR, annotator_names(ANNOTATORS)[0])
LOGINS_ENV = "ANNOTATOR_BENCH_LOGINS"  # {person: [db_role, password]} for the child
GUI_FIGURES = ("startup_first_case", "case_switch_first_image", "case_switch_whole_case",
               "case_list_refresh", "case_list_gui_thread")


def base_size(sizes: list[int]) -> int:
    """The cases built through the services; every size must be a multiple of it."""
    base = min(BASE_CASES, min(sizes))
    bad = [s for s in sizes if s % base]
    if bad:
        raise ProjectError(f"sizes {bad} are not multiples of the {base}-case base")
    return base


def run_scale(
    sizes: list[int], *, workdir: Path, runs: int = 3,
    progress: Callable[[str], None] | None = None, gui: bool = True, store: str | None = None,
) -> dict[str, Any]:
    """Build (or reuse) a project per size under ``workdir``, or a database per size on the
    PostgreSQL server of ``store`` (:mod:`annotator.bench.pg_stores`), and measure every
    figure; on PostgreSQL each as its person's own login, with row-level security on."""
    say = progress or (lambda _text: None)
    sizes = sorted(set(sizes))
    base = base_size(sizes)
    workdir.mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"machine": machine(), "base_cases": base}
    for size in sizes:
        if store is not None and pg_stores.is_postgres(store):
            location = _pg_project(store, base, size, say)
            logins = pg_stores.measuring_logins(location, MEASURED)
        elif store is not None:
            raise ProjectError(f"--store takes a postgresql:// URL, not {store!r}")
        else:
            location, logins = str(_folder_project(workdir, base, size, say)), {}
        say(f"measuring {size} cases")
        figures = _child(location, runs, logins)
        if gui:
            figures.update(_gui_figures(location, runs, logins))
        results[str(size)] = figures
    results["growth"] = growth(results, sizes)
    return results


def _folder_project(workdir: Path, base: int, size: int, say: Callable[[str], None]) -> Path:
    base_dir = workdir / f"base-{base}"
    if not (base_dir / "project.sqlite").exists():
        say(f"building the {base}-case base through the services in {base_dir} (once)")
        shutil.rmtree(base_dir, ignore_errors=True)
        build_bench_project(str(base_dir), base, ANNOTATORS, progress=say, sme=True)
    folder = workdir / f"project-{size}"
    if not (folder / "project.sqlite").exists():
        say(f"growing a copy of the base to {size} cases")
        shutil.rmtree(folder, ignore_errors=True)
        shutil.copytree(base_dir, folder)
        _grow(str(folder), size, say)
    return folder


def _pg_project(store: str, base: int, size: int, say: Callable[[str], None]) -> str:
    """The database of ``size`` cases (built when missing): a copy of the base's, grown."""
    base_db = pg_stores.bench_name(store, f"base_{base}")
    if not pg_stores.exists(store, base_db):
        say(f"building the {base}-case base through the services in database {base_db} (once)")
        part = base_db + pg_stores.PART
        pg_stores.create_empty(store, part)
        build_bench_project(pg_stores.database_url(store, part), base, ANNOTATORS,
                            progress=say, sme=True)
        pg_stores.rename(store, part, base_db)
    name = pg_stores.bench_name(store, str(size))
    if not pg_stores.exists(store, name):
        say(f"growing a copy of the base to {size} cases in database {name}")
        part = name + pg_stores.PART
        pg_stores.copy_of(store, base_db, part)
        _grow(pg_stores.database_url(store, part), size, say)
        pg_stores.rename(store, part, name)
    return pg_stores.database_url(store, name)


def _grow(location: str, size: int, say: Callable[[str], None]) -> None:
    project = open_project(location, create=False, backup=False)
    try:
        clone_cases(project, size, progress=say)
        # The copies marked their cases' agreement statistics stale; a project in use has
        # them up to date (each submission's, at the next read), so bring them up to date
        # once here rather than in the first measured figure.
        say("bringing the agreement statistics up to date")
        point_estimates(project, CURATOR)
    finally:
        project.close()


def growth(results: dict[str, Any], sizes: list[int]) -> dict[str, float | None]:
    """Each figure's median at the largest size over its median at the smallest."""
    if len(sizes) < 2:
        return {}
    first, last = results[str(sizes[0])], results[str(sizes[-1])]
    out: dict[str, float | None] = {}
    for key, value in last.items():
        before = first.get(key)
        if isinstance(value, dict) and isinstance(before, dict) and "median_s" in value:
            base = before.get("median_s") or 0
            out[key] = round(value["median_s"] / base, 2) if base else None
    if isinstance(first.get("peak_rss_mb"), float | int) and first["peak_rss_mb"]:
        out["peak_rss_mb"] = round(last["peak_rss_mb"] / first["peak_rss_mb"], 2)
    return out


def _child(location: str, runs: int, logins: dict[str, tuple[str, str]]) -> dict[str, Any]:
    env = dict(os.environ, **{LOGINS_ENV: json.dumps(logins)})  # passwords: never in argv
    done = subprocess.run(
        [sys.executable, "-m", "annotator.bench.scale_child", location, str(runs)],
        capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise ProjectError(f"bench-scale measurement failed: {done.stderr.strip()[-2000:]}")
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def _gui_figures(location: str, runs: int, logins: dict[str, tuple[str, str]]
                 ) -> dict[str, Any]:
    """``annotator bench``'s probe, as the first annotator (through their login on
    PostgreSQL)."""
    login = logins.get(annotator_names(ANNOTATORS)[0])
    if login is not None:
        location = login_location(location, login[0])
    try:
        found = measure_gui(location, runs, list(GUI_FIGURES),
                            password=None if login is None else login[1])
    except RuntimeError as exc:
        return {"gui": {"error": str(exc)[:2000]}}
    out: dict[str, Any] = {}
    for key, value in found.items():
        if isinstance(value, dict):
            value = {k: value[k] for k in ("median_s", "min_s", "max_s", "runs")}
            value["target_s"] = TARGETS.get(key)
        out[key if key != "case_list_refresh" else "case_list_refresh_gui"] = value
    return out


def format_scale(results: dict[str, Any]) -> str:
    sizes = [k for k in results if k.isdigit()]
    keys: list[str] = []
    for size in sizes:
        keys += [k for k, v in results[size].items()
                 if isinstance(v, dict) and "median_s" in v and k not in keys]
    lines = [f"{'figure':<28}" + "".join(f"{s + ' cases':>16}" for s in sizes)
             + f"{'growth':>9}{'target':>9}"]
    for key in keys:
        cells = "".join(f"{results[s][key]['median_s']:>16.4f}" if key in results[s]
                        else f"{'-':>16}" for s in sizes)
        ratio = results.get("growth", {}).get(key)
        target = TARGETS.get(key)
        lines.append(f"{key:<28}{cells}{'-' if ratio is None else ratio:>9}"
                     f"{'-' if target is None else target:>9}")
    rss = "".join(f"{results[s].get('peak_rss_mb', '-'):>16}" for s in sizes)
    lines.append(f"{'peak_rss_mb':<28}{rss}")
    return "\n".join(lines)
