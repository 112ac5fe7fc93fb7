"""Cancelling long work stops at a safe point and leaves only whole units behind."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotator.services import imports
from annotator.services.imports import import_cases
from annotator.services.review import view
from annotator.services.status import project_status
from annotator.services.users import add_user
from annotator.store.project import open_project
from annotator.tasks import Cancelled, TaskState
from factories import make_case, write_case_file


def test_a_cancelled_import_keeps_only_whole_cases(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = open_project(tmp_path / "p")
    add_user(project, "(setup)", "cu", ["curator"])
    add_user(project, "cu", "a1", ["annotator"])
    drafts = write_case_file(tmp_path / "drafts", [make_case(f"C{i}") for i in range(1, 7)])
    state = TaskState()
    real_apply = imports._apply
    started: list[str] = []

    def apply_then_cancel(*args: Any, **kwargs: Any) -> Any:
        outcome = real_apply(*args, **kwargs)
        started.append(outcome.case_id)
        if len(started) == 2:
            state.cancel()  # as the Cancel button would, while the second case is stored
        return outcome

    monkeypatch.setattr(imports, "_apply", apply_then_cancel)
    with pytest.raises(Cancelled, match="2 case\\(s\\) were stored, each whole") as caught:
        import_cases(project, "cu", [drafts], task=state)
    report = caught.value.partial
    assert [o.case_id for o in report.outcomes] == ["C1", "C2"]
    assert project_status(project)["cases"] == 2
    # Each stored case is whole: its content and its images are there.
    for case_id in ("C1", "C2"):
        images = view.case_images(project, case_id)
        assert images and all(image.data for image in images)
    # Importing again adds the rest and leaves the first two unchanged.
    monkeypatch.setattr(imports, "_apply", real_apply)
    again = import_cases(project, "cu", [drafts])
    assert again.count("unchanged") == 2 and again.count("added") == 4
    project.close()


def test_import_progress_reaches_the_end(tmp_path: Path) -> None:
    project = open_project(tmp_path / "p")
    add_user(project, "(setup)", "cu", ["curator"])
    drafts = write_case_file(tmp_path / "drafts", [make_case("C1"), make_case("C2")])
    heard: list[float] = []
    import_cases(project, "cu", [drafts], task=TaskState(lambda f, _m: heard.append(f)))
    assert heard[-1] == 1.0
    project.close()


def test_a_cancelled_package_import_keeps_the_packages_imported_whole(tmp_path: Path) -> None:
    from annotator.services.sync.package_import import import_packages

    project = open_project(tmp_path / "p")
    add_user(project, "(setup)", "cu", ["curator"])
    state = TaskState()
    state.cancel()  # before the first package: nothing is read or written
    with pytest.raises(Cancelled) as caught:
        import_packages(project, "cu", [tmp_path / "a.annotator-package"], task=state)
    assert caught.value.partial == []
    project.close()


def test_a_cancelled_unbundle_leaves_no_folder(tmp_path: Path) -> None:
    from annotator.services.assignments import assign
    from annotator.services.sync.bundle import make_bundle
    from annotator.services.sync.unbundle import unbundle

    project = open_project(tmp_path / "p")
    add_user(project, "(setup)", "cu", ["curator"])
    add_user(project, "cu", "a1", ["annotator"])
    import_cases(project, "cu", [write_case_file(tmp_path / "d", [make_case("C1")])])
    assign(project, "cu", 1)
    bundle = make_bundle(project, "cu", "a1", tmp_path / "a1.annotator-bundle").path
    project.close()

    def cancel_when_storing(_fraction: float, message: str) -> None:
        if message.startswith("storing"):
            state.cancel()

    state = TaskState(cancel_when_storing)
    with pytest.raises(Cancelled):
        unbundle(bundle, tmp_path / "laptop", task=state)
    assert not (tmp_path / "laptop").exists()
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".laptop")] == []
