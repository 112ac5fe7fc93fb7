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
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotator.bench.clone import clone_cases
from annotator.bench.run import ANNOTATORS, machine, measure_gui
from annotator.bench.synth import build_bench_project
from annotator.errors import ProjectError
from annotator.store.project import open_project

BASE_CASES = 1000
TARGETS = {  # seconds; export_100 is a ratio to copying (see docs/performance.md)
    "startup_first_case": 1.2, "case_list_refresh": 0.01, "case_filter": 0.05,
    "case_switch_first_image": 0.05, "edit_saved": 0.05, "review_queue": 0.3,
    "sme_queue": 0.3, "status": 0.5, "desk_figures": 0.5, "case_history": 0.05,
    "agreement_incremental": 1.0,
}
GUI_FIGURES = ("startup_first_case", "case_switch_first_image", "case_list_refresh")


def base_size(sizes: list[int]) -> int:
    """The cases built through the services; every size must be a multiple of it."""
    base = min(BASE_CASES, min(sizes))
    bad = [s for s in sizes if s % base]
    if bad:
        raise ProjectError(f"sizes {bad} are not multiples of the {base}-case base")
    return base


def run_scale(
    sizes: list[int], *, workdir: Path, runs: int = 3,
    progress: Callable[[str], None] | None = None, gui: bool = True,
) -> dict[str, Any]:
    """Build (or reuse) a project per size under ``workdir`` and measure every figure."""
    say = progress or (lambda _text: None)
    sizes = sorted(set(sizes))
    base = base_size(sizes)
    workdir.mkdir(parents=True, exist_ok=True)
    base_dir = workdir / f"base-{base}"
    if not (base_dir / "project.sqlite").exists():
        say(f"building the {base}-case base through the services in {base_dir} (once)")
        shutil.rmtree(base_dir, ignore_errors=True)
        build_bench_project(str(base_dir), base, ANNOTATORS, progress=say)
    results: dict[str, Any] = {"machine": machine(), "base_cases": base}
    for size in sizes:
        folder = workdir / f"project-{size}"
        if not (folder / "project.sqlite").exists():
            say(f"growing a copy of the base to {size} cases")
            shutil.rmtree(folder, ignore_errors=True)
            shutil.copytree(base_dir, folder)
            project = open_project(str(folder), create=False, backup=False)
            try:
                clone_cases(project, size, progress=say)
            finally:
                project.close()
        say(f"measuring {size} cases")
        figures = _child(folder, runs)
        if gui:
            figures.update(_gui_figures(folder, runs))
        results[str(size)] = figures
    results["growth"] = growth(results, sizes)
    return results


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


def _child(folder: Path, runs: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "annotator.bench.scale_child", str(folder), str(runs)],
        capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise ProjectError(f"bench-scale measurement failed: {done.stderr.strip()[-2000:]}")
    answer: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return answer


def _gui_figures(folder: Path, runs: int) -> dict[str, Any]:
    try:
        found = measure_gui(folder, runs, list(GUI_FIGURES))  # ``annotator bench``'s probe
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
