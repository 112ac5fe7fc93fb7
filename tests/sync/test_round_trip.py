"""The offline round trip with real files: bundle, unbundle, annotate, package, import."""

from __future__ import annotations

from pathlib import Path

import pytest
from sync_support import (
    ALPHA,
    BETA,
    CURATOR,
    GAMMA,
    complete,
    own_history,
    sqlite_only,
    store_counts,
)

from annotator.errors import StateError
from annotator.services import annotating
from annotator.services.assignments import reassign
from annotator.services.imports import import_cases
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import make_package, unpackaged_changes
from annotator.services.sync.package_import import import_package
from annotator.services.sync.status import roundtrip_status
from annotator.services.sync.unbundle import unbundle
from annotator.store.history import entries
from annotator.store.project import Project, open_project
from annotator.sync.offline import offline_info
from factories import make_case, write_case_file


def test_round_trip_brings_back_exactly_what_was_entered(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    info = offline_info(laptop)
    assert info is not None and info.annotator == ALPHA
    assert laptop.project_id == curator.project_id
    assert unpackaged_changes(laptop) == 0
    complete(laptop, ALPHA, "T1")
    annotating.set_label(laptop, ALPHA, "T2", "comment", "", "checking the follow-up exam")
    assert unpackaged_changes(laptop) > 0
    entered = {c: annotating.view(laptop, ALPHA, c).labels for c in ("T1", "T2")}
    assert entered["T1"]["importance:Figure 3"] == {"value": "essential", "how": "set"}
    complete(curator, BETA, "T1")  # Beta works at the curator meanwhile

    package = make_package(laptop, tmp_path / "alpha-1.annotator-package")
    assert unpackaged_changes(laptop) == 0 and package.sequence == 1
    report = import_package(curator, CURATOR, package.path)

    assert [(c.case_id, c.status) for c in report.cases] == [("T1", "added"), ("T2", "added")]
    for case_id in ("T1", "T2"):
        assert annotating.view(curator, ALPHA, case_id).labels == entered[case_id]
    t1 = annotating.view(curator, ALPHA, "T1")
    assert t1.state == "submitted" and t1.case_state == "in_review"  # both now submitted
    assert annotating.view(curator, ALPHA, "T2").state == "in_progress"
    # the annotator's history arrives with its ids, times and actor, appended
    assert own_history(curator, ALPHA) == own_history(laptop, ALPHA)
    with curator.tx() as session:
        assert "package_imported" in [e.action for e in entries(session)]

    before = store_counts(curator)
    again = import_package(curator, CURATOR, package.path)
    assert "already imported" in again.note and again.changed_nothing
    assert {c.status for c in again.cases} == {"unchanged"}
    assert store_counts(curator) == before


@sqlite_only
def test_older_package_after_a_newer_one_changes_nothing(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    annotating.set_label(laptop, ALPHA, "T1", "comment", "", "first look")
    first = make_package(laptop, tmp_path / "p1.annotator-package")
    annotating.set_label(laptop, ALPHA, "T1", "comment", "", "second look")
    second = make_package(laptop, tmp_path / "p2.annotator-package")
    assert (first.sequence, second.sequence) == (1, 2)
    assert import_package(curator, CURATOR, second.path).cases[0].status == "added"
    before = store_counts(curator)
    late = import_package(curator, CURATOR, first.path)
    assert "older than package 2" in late.note
    assert store_counts(curator) == before
    assert annotating.view(curator, ALPHA, "T1").labels["comment"] == "second look"


@sqlite_only
def test_packages_in_order_add_only_what_is_new(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    annotating.set_label(laptop, ALPHA, "T1", "comment", "", "first look")
    first = make_package(laptop, tmp_path / "p1.annotator-package")
    complete(laptop, ALPHA, "T2")
    second = make_package(laptop, tmp_path / "p2.annotator-package")
    assert import_package(curator, CURATOR, first.path).cases[0].status == "added"
    report = import_package(curator, CURATOR, second.path)
    assert [(c.case_id, c.status) for c in report.cases] == [
        ("T1", "unchanged"),
        ("T2", "added"),
    ]
    assert own_history(curator, ALPHA) == own_history(laptop, ALPHA)


def test_stale_work_is_reported_and_not_merged(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    complete(laptop, ALPHA, "T1")
    annotating.set_label(laptop, ALPHA, "T2", "comment", "", "fine")
    package = make_package(laptop, tmp_path / "alpha.annotator-package")
    revised = make_case("T1", clinical_history="Revised history after source correction.")
    path = write_case_file(tmp_path / "v2", revised)
    assert import_cases(curator, CURATOR, [path]).outcomes[0].status == "updated"

    report = import_package(curator, CURATOR, package.path)
    statuses = {c.case_id: c for c in report.cases}
    assert statuses["T1"].status == "stale" and "earlier revision" in statuses["T1"].reason
    assert statuses["T2"].status == "added"
    t1 = annotating.view(curator, ALPHA, "T1")
    assert t1.labels == {} and t1.state == "in_progress" and t1.needs_recheck
    assert t1.content["clinical_history"] == "Revised history after source correction."
    with curator.tx() as session:
        assert [e.action for e in entries(session, action="recheck")] == ["recheck"]
    before = store_counts(curator)
    assert import_package(curator, CURATOR, package.path).changed_nothing
    assert store_counts(curator) == before


def test_unassigned_and_reviewed_cases_are_refused_per_case(
    curator: Project, tmp_path: Path
) -> None:
    # T1 is already in review when bundled; Alpha reopens it offline and changes it
    complete(curator, ALPHA, "T1")
    complete(curator, BETA, "T1")
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "a.annotator-bundle")
    unbundle(bundle.path, tmp_path / "laptop")
    laptop = open_project(tmp_path / "laptop", create=False)
    try:
        annotating.reopen(laptop, ALPHA, "T1")
        annotating.set_label(laptop, ALPHA, "T1", "comment", "", "changed my mind")
        annotating.set_label(laptop, ALPHA, "T2", "comment", "", "half done")
        package = make_package(laptop, tmp_path / "a.annotator-package")
    finally:
        laptop.close()
    reassign(curator, CURATOR, ALPHA, GAMMA)  # moves Alpha's open case T2... to nobody free
    report = import_package(curator, CURATOR, package.path)
    reasons = {c.case_id: (c.status, c.reason) for c in report.cases}
    assert reasons["T1"] == ("refused", "the case is already in review")
    assert reasons["T2"][0] == "refused" and "no longer assigned" in reasons["T2"][1]
    assert annotating.view(curator, ALPHA, "T1").state == "submitted"
    assert "comment" not in annotating.view(curator, ALPHA, "T1").labels


@sqlite_only
def test_earlier_work_comes_along_and_the_folder_must_be_new(
    curator: Project, tmp_path: Path
) -> None:
    annotating.set_label(curator, ALPHA, "T2", "comment", "", "started at the office")
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "a.annotator-bundle")
    assert bundle.case_ids == ["T1", "T2"] and bundle.images == 3  # same pictures in both
    result = unbundle(bundle.path, tmp_path / "laptop")
    laptop = open_project(result.folder, create=False)
    try:
        assert annotating.view(laptop, ALPHA, "T2").labels == {"comment": "started at the office"}
        assert len(own_history(laptop, ALPHA)) == 1
        assert unpackaged_changes(laptop) == 0
        with pytest.raises(StateError, match="curator's project"):
            make_bundle(laptop, ALPHA, ALPHA, tmp_path / "x")
        with pytest.raises(Exception, match="curator's project"):
            import_package(laptop, ALPHA, tmp_path / "anything")
    finally:
        laptop.close()
    with pytest.raises(Exception, match="not empty"):
        unbundle(bundle.path, tmp_path / "laptop")
    with pytest.raises(StateError, match="offline project"):
        make_package(curator, tmp_path / "p")


@sqlite_only
def test_roundtrip_status_counts_what_went_out_and_came_back(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    annotating.set_label(laptop, ALPHA, "T1", "comment", "", "seen")
    package = make_package(laptop, tmp_path / "a.annotator-package")
    import_package(curator, CURATOR, package.path)
    rows = {r.annotator: r for r in roundtrip_status(curator)}
    alpha, beta = rows[ALPHA], rows[BETA]
    assert (alpha.assigned, alpha.bundled, alpha.returned, alpha.packages) == (2, 2, 1, 1)
    assert alpha.last_bundle_at is not None and alpha.last_package_at is not None
    assert (beta.assigned, beta.bundled, beta.returned, beta.last_package_at) == (2, 0, 0, None)
