"""``annotator bench-scale`` at a small size: the projects it grows are real ones.

One run of ``bench-scale --cases 50,200`` (the 50-case base built through the services, then
cloned to 200) is shared by the tests below; the measurement itself stays out of CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from annotator.bench.scale import TARGETS, growth
from annotator.services.history_audit import verify_history
from annotator.services.repair import (
    repair_case_states,
    repair_counts,
    repair_queue_keys,
    repair_sme_keys,
)
from annotator.services.status import project_status
from annotator.services.workspace import annotators, case_list
from annotator.store.project import open_project

SIZES = (50, 200)
SERVICE_FIGURES = {"case_list_refresh", "case_filter", "edit_saved", "review_queue", "sme_queue",
                   "status", "desk_figures", "case_history", "agreement_incremental"}
GUI_FIGURES = {"startup_first_case", "case_switch_first_image", "case_switch_whole_case",
               "case_list_refresh_gui", "case_list_gui_thread"}
# Building the base through the services is most of the run: ~1 min on a quiet 2-core machine.
pytestmark = pytest.mark.timeout(900)


@pytest.fixture(scope="module")
def scale_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, Any], Path]:
    workdir = tmp_path_factory.mktemp("scale")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    done = subprocess.run(
        [sys.executable, "-m", "annotator", "bench-scale", "--cases", "50,200", "--runs", "1",
         "--json", "--workdir", str(workdir)],
        capture_output=True, text=True, timeout=900, check=False, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout), workdir


def test_every_figure_at_every_size(scale_run: tuple[dict[str, Any], Path]) -> None:
    results, _ = scale_run
    for size in SIZES:
        figures = results[str(size)]
        assert "gui" not in figures, figures.get("gui")  # the GUI probe's error, when it failed
        for key in SERVICE_FIGURES | GUI_FIGURES:
            assert set(figures[key]) >= {"median_s", "min_s", "max_s", "runs"}, key
            assert figures[key]["median_s"] > 0
        assert figures["peak_rss_mb"] > 0
    assert set(results["growth"]) >= SERVICE_FIGURES | {"peak_rss_mb"}
    assert results["growth"] == growth(results, list(SIZES))
    assert set(TARGETS) >= SERVICE_FIGURES - {"case_list_refresh"}


def test_the_grown_project_is_four_copies_of_the_base(
    scale_run: tuple[dict[str, Any], Path]
) -> None:
    _, workdir = scale_run
    small = open_project(str(workdir / "project-50"), create=False, backup=False)
    large = open_project(str(workdir / "project-200"), create=False, backup=False)
    try:
        before, after = project_status(small), project_status(large)
        # Both were measured (a few edits and submissions each), so compare the untouched counts.
        for key in ("cases", "exams", "images", "dicom_images", "needs_fix", "green_lit"):
            assert after[key] == 4 * before[key], key
        assert after["annotators"] == 4 * before["annotators"]
        names = annotators(large)
        assert len(names) == len(set(names))
        # An annotator's own queue stays the base's size: each copy brings its own raters.
        assert len(case_list(large, names[0]).rows) == len(case_list(small, names[0]).rows)
    finally:
        small.close()
        large.close()


def test_the_grown_project_needs_no_repair_and_its_history_chain_holds(
    scale_run: tuple[dict[str, Any], Path]
) -> None:
    _, workdir = scale_run
    project = open_project(str(workdir / "project-200"), create=False, backup=False)
    try:
        assert repair_case_states(project, "Bench Curator", dry_run=True) == []
        # The clone wrote past the ORM: its counters, review queue keys and SME task keys
        # must read as the writes would have kept them.
        assert repair_counts(project, "Bench Curator", dry_run=True) == []
        assert repair_queue_keys(project, "Bench Curator", dry_run=True) == []
        assert repair_sme_keys(project, "Bench Curator", dry_run=True) == []
        report = verify_history(project)
        assert report.intact, report.as_json()
        assert report.rows > 0
    finally:
        project.close()
