"""A hidden repeat travels in a work bundle as any assignment and comes back in a package
to its own row, moving nothing between raters (issue 26). Format version 3: a file may carry
the first rating and its repeat of one case, told apart only by the row's id; version-2
files still import; a newer file is refused whole."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sync_support import ALPHA, BETA, CURATOR, complete, laptop_key, rewrite, sqlite_only

from annotator.services import annotating, kinds
from annotator.services.rating.repeats import add_repeats
from annotator.services.review import base
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import PackageResult, make_package
from annotator.services.sync.package_import import import_package
from annotator.services.sync.unbundle import unbundle
from annotator.store.project import Project, open_project
from annotator.store.repeats import WITH_REPEATS
from annotator.store.schema import Annotation, Case, User
from annotator.sync.formats import (
    BUNDLE_FORMAT_VERSION,
    PACKAGE_FORMAT_VERSION,
    SyncFileError,
)


def _content(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as archive:
        data: dict[str, Any] = json.loads(archive.read("content.json"))
    return data


def _manifest(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as archive:
        data: dict[str, Any] = json.loads(archive.read("manifest.json"))
    return data


def _rows(project: Project, name: str, case_id: str) -> list[Annotation]:
    """The rater's rows on a case, first rating then repeats (detached copies)."""
    with project.tx() as session:
        rows = list(session.scalars(
            select(Annotation)
            .join(Case, Case.id == Annotation.case_pk)
            .join(User, User.id == Annotation.annotator_id)
            .where(Case.case_id == case_id, User.name == name)
            .order_by(Annotation.repeat_no)
            .execution_options(**WITH_REPEATS)
        ))
        session.expunge_all()
        return rows


def _on_laptop(bundle: Path, folder: Path, work: Any, out: Path) -> PackageResult:
    unbundle(bundle, folder)
    laptop = open_project(folder, create=False)
    try:
        work(laptop)
        return make_package(laptop, out)
    finally:
        laptop.close()


def _label_t1(value: str) -> Any:
    def work(laptop: Project) -> None:
        annotating.accept_suggestions(laptop, ALPHA, "T1")
        annotating.set_label(laptop, ALPHA, "T1", "importance", "Figure 1", value)
        kinds.CASES.submit(laptop, ALPHA, "T1")
    return work


def _keys(value: Any) -> Any:
    """The shape of a JSON value: its keys at every level, never its values."""
    if isinstance(value, dict):
        return {k: _keys(v) for k, v in value.items()}
    return type(value).__name__


@sqlite_only
def test_a_repeat_goes_offline_blind_and_comes_back_to_its_own_row(
    curator: Project, tmp_path: Path
) -> None:
    complete(curator, ALPHA, "T1")
    complete(curator, BETA, "T1")
    first = annotating.view(curator, ALPHA, "T1")
    review = repr(base.review_case(curator, "T1"))
    assert first.case_state == "in_review"
    assert add_repeats(curator, CURATOR, "case", 1.0, 0).count == 2

    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "alpha.annotator-bundle")
    assert _manifest(bundle.path)["format_version"] == BUNDLE_FORMAT_VERSION == 3
    content = _content(bundle.path)
    t1 = next(c for c in content["cases"] if c["case_id"] == "T1")
    t2 = next(c for c in content["cases"] if c["case_id"] == "T2")  # a first assignment
    # The repeat looks exactly like the untouched first assignment of T2.
    assert t1["case_state"] == t2["case_state"] == "annotating"
    assert set(t1["annotation"]) == set(t2["annotation"])
    assert t1["annotation"]["state"] == "assigned" and t1["annotation"]["labels"] == {}
    assert t1["annotation"]["history"] == [] and t1["annotation"]["submitted_labels"] is None
    assert "repeat" not in json.dumps(content).lower()

    package = _on_laptop(bundle.path, tmp_path / "laptop", _label_t1("optional"),
                         tmp_path / "alpha-1.annotator-package")
    assert _manifest(package.path)["format_version"] == PACKAGE_FORMAT_VERSION == 3
    report = import_package(curator, CURATOR, package.path)
    assert [(c.case_id, c.status) for c in report.cases if c.case_id == "T1"] == [("T1", "added")]
    repeat = annotating.view(curator, ALPHA, "T1")
    assert repeat.state == "submitted"
    assert repeat.labels["importance:Figure 1"] == {"value": "optional", "how": "set"}
    # The first rating, the case's state and its review are as they were.
    assert repr(base.review_case(curator, "T1")) == review
    first_row, repeat_row = _rows(curator, ALPHA, "T1")
    assert first_row.labels == first.labels and first_row.state == "submitted"
    assert repeat_row.repeat_of == first_row.id and repeat_row.labels == repeat.labels


@sqlite_only
def test_the_bundle_entry_of_a_repeat_has_the_shape_of_any_entry_and_names_no_first(
    curator: Project, tmp_path: Path
) -> None:
    complete(curator, ALPHA, "T1")
    complete(curator, BETA, "T1")
    assert add_repeats(curator, CURATOR, "case", 1.0, 0).count == 2
    first_row, repeat_row = _rows(curator, ALPHA, "T1")
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "alpha.annotator-bundle")
    cases = {c["case_id"]: c for c in _content(bundle.path)["cases"]}
    repeat, normal = cases["T1"], cases["T2"]
    # Exactly the keys of a normal entry, at every level (no marker field anywhere).
    assert _keys(repeat) == _keys(normal)
    assert _keys(repeat["annotation"]) == _keys(normal["annotation"])
    assert repeat["annotation"]["id"] == str(repeat_row.id)
    # No value refers to the first rating: not its id, its time, its labels or its history.
    text = json.dumps(repeat)
    assert str(first_row.id) not in text
    assert first_row.submitted_at is not None
    assert first_row.submitted_at.isoformat() not in text
    assert "essential" not in json.dumps(repeat["annotation"])  # the first's Figure 3 label
    assert str(first_row.id) not in json.dumps(_manifest(bundle.path))


@sqlite_only
def test_late_work_on_the_first_rating_never_lands_on_its_repeat(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    # Alpha rates T1 on the laptop of the first bundle; the curator imports it.
    complete(laptop, ALPHA, "T1")
    assert import_package(curator, CURATOR, make_package(
        laptop, tmp_path / "a1.annotator-package").path).cases[0].status == "added"
    complete(curator, BETA, "T1")
    assert add_repeats(curator, CURATOR, "case", 1.0, 0).count == 2
    # Meanwhile, still on the old laptop, Alpha reopens the first rating and changes it.
    annotating.reopen(laptop, ALPHA, "T1")
    annotating.set_label(laptop, ALPHA, "T1", "comment", "", "changed my mind")
    kinds.CASES.submit(laptop, ALPHA, "T1")
    late = make_package(laptop, tmp_path / "a2.annotator-package")
    report = import_package(curator, CURATOR, late.path)
    t1 = [c for c in report.cases if c.case_id == "T1"]
    assert [c.status for c in t1] == ["refused"] and "in review" in t1[0].reason
    _first, repeat = _rows(curator, ALPHA, "T1")
    assert (repeat.state, repeat.labels) == ("assigned", {})  # the repeat is untouched

    # The repeat's own work, from the laptop of a new bundle, lands on the repeat.
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "b2.annotator-bundle")
    work = _on_laptop(bundle.path, tmp_path / "laptop-2", _label_t1("optional"),
                      tmp_path / "b1.annotator-package")
    report = import_package(curator, CURATOR, work.path)
    assert [c.status for c in report.cases if c.case_id == "T1"] == ["added"]
    first, repeat = _rows(curator, ALPHA, "T1")
    assert repeat.labels["importance:Figure 1"] == {"value": "optional", "how": "set"}
    assert "comment" not in repeat.labels and "comment" not in first.labels
    assert first.labels["importance:Figure 1"] != repeat.labels["importance:Figure 1"]


@sqlite_only
def test_a_version_3_package_may_carry_the_first_and_its_repeat_of_one_case(
    curator: Project, laptop: Project, tmp_path: Path
) -> None:
    complete(laptop, ALPHA, "T1")
    old = make_package(laptop, tmp_path / "a1.annotator-package")
    import_package(curator, CURATOR, old.path)
    complete(curator, BETA, "T1")
    add_repeats(curator, CURATOR, "case", 1.0, 0)
    bundle = make_bundle(curator, CURATOR, ALPHA, tmp_path / "b2.annotator-bundle")
    unbundle(bundle.path, tmp_path / "laptop-2")
    second = open_project(tmp_path / "laptop-2", create=False)
    try:
        _label_t1("optional")(second)
        made = make_package(second, tmp_path / "b1.annotator-package")
        key = laptop_key(second)
    finally:
        second.close()
    first_entry = next(c for c in _content(old.path)["cases"] if c["case_id"] == "T1")

    def both(data: dict[str, Any]) -> None:
        data["cases"].insert(0, first_entry)

    def listed(version: int) -> Any:
        def change(head: dict[str, Any]) -> None:
            head["format_version"] = version
            head["cases"].insert(0, {"case_id": "T1",
                                     "revision_hash": first_entry["revision_hash"]})
        return change

    v2 = rewrite(made.path, tmp_path / "v2.annotator-package", content=both,
                 manifest=listed(2), key=key)
    with pytest.raises(SyncFileError, match="a case appears twice"):
        import_package(curator, CURATOR, v2)
    v3 = rewrite(made.path, tmp_path / "v3.annotator-package", content=both,
                 manifest=listed(3), key=key)
    report = import_package(curator, CURATOR, v3)
    assert [(c.case_id, c.status) for c in report.cases] == [
        ("T1", "unchanged"), ("T1", "added")]
    first, repeat = _rows(curator, ALPHA, "T1")
    assert repeat.state == "submitted" and first.state == "submitted"
    assert repeat.labels["importance:Figure 1"] == {"value": "optional", "how": "set"}


@sqlite_only
def test_version_2_bundles_and_packages_still_import(curator: Project, tmp_path: Path) -> None:
    def v2(head: dict[str, Any]) -> None:
        head["format_version"] = 2

    made = make_bundle(curator, CURATOR, ALPHA, tmp_path / "alpha.annotator-bundle")
    old_bundle = rewrite(made.path, tmp_path / "v2.annotator-bundle", manifest=v2)
    assert _manifest(old_bundle)["format_version"] == 2
    unbundle(old_bundle, tmp_path / "laptop")
    laptop = open_project(tmp_path / "laptop", create=False)
    try:
        complete(laptop, ALPHA, "T1")
        package = make_package(laptop, tmp_path / "p.annotator-package")
        old_package = rewrite(package.path, tmp_path / "v2.annotator-package", manifest=v2,
                              key=laptop_key(laptop))
    finally:
        laptop.close()
    report = import_package(curator, CURATOR, old_package)
    assert [(c.case_id, c.status) for c in report.cases] == [("T1", "added")]
    assert annotating.view(curator, ALPHA, "T1").state == "submitted"


@sqlite_only
def test_a_version_4_file_is_refused_with_one_clear_line(
    curator: Project, tmp_path: Path
) -> None:
    def v4(head: dict[str, Any]) -> None:
        head["format_version"] = 4

    made = make_bundle(curator, CURATOR, ALPHA, tmp_path / "alpha.annotator-bundle")
    newer = rewrite(made.path, tmp_path / "v4.annotator-bundle", manifest=v4)
    with pytest.raises(SyncFileError) as refused:
        unbundle(newer, tmp_path / "laptop")
    message = str(refused.value)
    assert "\n" not in message
    assert "format version 4 was written by a newer annotator" in message
    assert "this app reads up to version 3" in message
    assert not (tmp_path / "laptop").exists()
