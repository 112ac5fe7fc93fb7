"""The synthetic bench project, and the agreement report cached by a hash of its inputs."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest

from annotator.bench.synth import CURATOR, build_bench_project
from annotator.services import agreement as agreement_service
from annotator.services import kinds
from annotator.services.agreement import agreement_report, forget_cached_report
from annotator.services.demo import _label_fully
from annotator.services.status import project_status
from annotator.store.project import Project, open_project


@pytest.fixture(scope="module")
def bench(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bench") / "project"
    summary = build_bench_project(str(folder), 8, 3)
    assert summary.cases == 8 and summary.submitted_cases >= 1
    return folder


@pytest.fixture
def project(bench: Path) -> Any:
    p = open_project(str(bench), create=False, backup=False)
    yield p
    p.close()


def test_bench_project_has_dicom_series_submissions_and_a_release(project: Project) -> None:
    status = project_status(project)
    assert status["cases"] == 8
    assert 0 < status["dicom_images"] < status["images"]
    assert status["annotations_submitted"] >= 3
    assert status["green_lit"] >= 1


def test_agreement_report_is_cached_until_an_input_changes(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    forget_cached_report(project)
    fresh = agreement_report(project, CURATOR)
    calls: list[int] = []
    real = agreement_service.build_report

    def counting(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(agreement_service, "build_report", counting)
    assert agreement_report(project, CURATOR) == fresh
    assert calls == []  # served from the cache
    # A new submission is an input: the report is computed again and differs.
    name, case_id = _open_annotation(project)
    _label_fully(project, name, case_id, random.Random(1), disagree=0.3)
    kinds.CASES.submit(project, name, case_id)
    changed = agreement_report(project, CURATOR)
    assert calls == [1]
    assert changed != fresh
    forget_cached_report(project)
    assert agreement_report(project, CURATOR) == changed  # a hit equals a recomputation


def _open_annotation(project: Project) -> tuple[str, str]:
    from sqlalchemy import select

    from annotator.store.schema import Annotation, Case, User

    with project.tx() as session:
        row = session.execute(
            select(User.name, Case.case_id)
            .join(Annotation, Annotation.annotator_id == User.id)
            .join(Case, Case.id == Annotation.case_pk)
            .where(Annotation.state == "in_progress", Case.state == "annotating")
            .order_by(Case.case_id)
        ).first()
    assert row is not None
    return str(row[0]), str(row[1])


def test_bench_figures_have_the_issue_shape(tmp_path: Path) -> None:
    from annotator.bench.run import figure, format_table, run_bench

    assert figure([3.0, 1.0, 2.0], 0.5, 1.0) == {
        "median_s": 2.0, "min_s": 1.0, "max_s": 3.0, "runs": 3, "baseline_s": 0.5,
        "ratio": 4.0, "target_s": 1.0}
    results = run_bench(2, runs=1, workdir=tmp_path, only=["window_level"])
    assert results["cases"] == 2 and results["machine"]["cpus"]
    window = results["window_level"]
    assert set(window) >= {"median_s", "min_s", "max_s", "runs", "baseline_s", "ratio"}
    assert window["runs"] == 20 and window["baseline_s"] > 0
    assert "window_level" in format_table(results)


def test_the_import_figures_say_cpu_per_wall_second_and_images_per_second(
    tmp_path: Path
) -> None:
    from annotator.bench.run import _import_figures, format_table

    figures = _import_figures(tmp_path, 2, 1, lambda _text: None)
    cpu = figures["import_cpu_ratio"]
    assert cpu["runs"] == 1 and cpu["cpu_s"][0] > 0
    # The ratio is the child's own CPU over wall seconds; cpu_s is shown to 0.1 s and the
    # ratio to 0.01, so they agree within those roundings.
    wall = figures["import"]["median_s"]
    assert cpu["median"] == pytest.approx(cpu["cpu_s"][0] / wall, abs=0.05 / wall + 0.011)
    rate = figures["import_images_per_s"]
    images = [p for p in (tmp_path / "drafts-2").rglob("*") if p.suffix != ".json"
              and p.is_file()]
    assert rate["images"] == len(images) > 0
    assert rate["with_text_check"] == pytest.approx(
        len(images) / figures["import"]["median_s"], abs=0.11)
    table = format_table({"cases": 2, "machine": {"cpus": 2}, **figures})
    assert "CPU s / wall s" in table and "images/s" in table


def test_items_of_named_cases_are_those_of_the_whole_queue(project: Project) -> None:
    from annotator.bench.synth import SENIOR
    from annotator.services.review.queue import list_items

    everything = list_items(project, SENIOR, include_auto=True)
    cases = sorted({i.case_id for i in everything})
    assert cases
    for case_id in cases + ["bench-00001"]:
        named = list_items(project, SENIOR, include_auto=True, case_ids=[case_id])
        assert named == [i for i in everything if i.case_id == case_id]


def test_the_edit_figures_compare_the_chain_with_the_same_edit_without(tmp_path: Path) -> None:
    from annotator.bench.edits import edit_figures
    from annotator.services.history_audit import verify_history

    results = edit_figures(str(tmp_path / "edits"), 1)
    for key in ("edit_saved", "edit_saved_two_writers"):
        figure = results[key]
        assert figure["baseline_s"] > 0 and figure["median_s"] > 0 and figure["ratio"] > 0
    assert results["edit_saved"]["runs"] == 20 and results["edit_saved_two_writers"]["runs"] == 40
    project = open_project(tmp_path / "edits")
    report = verify_history(project)  # the rounds without the chain left rows outside it
    assert report.problem is not None and report.problem.kind == "inserted"
    project.close()


@pytest.mark.postgres
def test_the_edit_figures_on_a_walled_store_edit_through_login_roles(pg_url: str) -> None:
    """On PostgreSQL the measured edit goes through each annotator's own login role (the
    wall applies) and the baseline through the owner's connection without the chain."""
    from annotator.bench.edits import edit_figures

    results = edit_figures(pg_url, 1)
    for key in ("edit_saved", "edit_saved_two_writers"):
        figure = results[key]
        assert figure["through_login_roles"] is True
        assert figure["baseline_s"] > 0 and figure["chain_only_s"] > 0
    assert results["edit_saved"]["runs"] == 20 and results["edit_saved_two_writers"]["runs"] == 40
