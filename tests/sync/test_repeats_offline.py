"""A hidden repeat travels in a work bundle as any assignment and comes back in a package
to its own row, moving nothing between raters (issue 26)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from sync_support import ALPHA, BETA, CURATOR, complete, sqlite_only

from annotator.services import annotating, kinds
from annotator.services.rating.repeats import add_repeats
from annotator.services.review import base
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import make_package
from annotator.services.sync.package_import import import_package
from annotator.services.sync.unbundle import unbundle
from annotator.store.project import Project, open_project


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
    with zipfile.ZipFile(bundle.path) as archive:
        content = json.loads(archive.read("content.json"))
    t1 = next(c for c in content["cases"] if c["case_id"] == "T1")
    t2 = next(c for c in content["cases"] if c["case_id"] == "T2")  # a first assignment
    # The repeat looks exactly like the untouched first assignment of T2.
    assert t1["case_state"] == t2["case_state"] == "annotating"
    assert set(t1["annotation"]) == set(t2["annotation"])
    assert t1["annotation"]["state"] == "assigned" and t1["annotation"]["labels"] == {}
    assert t1["annotation"]["history"] == [] and t1["annotation"]["submitted_labels"] is None
    assert "repeat" not in json.dumps(content).lower()

    unbundle(bundle.path, tmp_path / "laptop")
    laptop = open_project(tmp_path / "laptop", create=False)
    try:
        annotating.accept_suggestions(laptop, ALPHA, "T1")
        annotating.set_label(laptop, ALPHA, "T1", "importance", "Figure 1", "optional")
        kinds.CASES.submit(laptop, ALPHA, "T1")
        package = make_package(laptop, tmp_path / "alpha-1.annotator-package")
    finally:
        laptop.close()
    report = import_package(curator, CURATOR, package.path)
    assert [(c.case_id, c.status) for c in report.cases if c.case_id == "T1"] == [("T1", "added")]
    repeat = annotating.view(curator, ALPHA, "T1")
    assert repeat.state == "submitted"
    assert repeat.labels["importance:Figure 1"] == {"value": "optional", "how": "set"}
    # The first rating, the case's state and its review are as they were.
    assert repr(base.review_case(curator, "T1")) == review
