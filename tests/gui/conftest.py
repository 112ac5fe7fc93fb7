"""GUI test harness: a real main window on a real project, offscreen, no modal dialogs.

One template project (users, four imported cases with PNG and DICOM images, every case
assigned to every annotator) is built once per session and copied for each test, so a
test starts from a fresh store in milliseconds.
"""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from factories import make_case, write_case_file

USER = "a1"


def _dicom(name: str) -> Path:
    from pydicom.data import get_testdata_file

    found = get_testdata_file(name, download=False)
    assert found is not None, f"pydicom no longer ships {name}"
    return Path(str(found))


def _dicom_case() -> dict[str, Any]:
    """A case whose exams are a CT slice, a 15-frame DICOM and an MR slice."""
    case = make_case("D1", case_title="DICOM exams", final_diagnosis="Test lesion")
    files = ["img/ct.dcm", "img/multi.dcm", "img/mr.dcm"]
    for exam, path in zip(case["imaging_examinations"], files, strict=True):
        exam["image_paths"] = [path]
    case["imaging_examinations"][0]["meta_info"]["modality"] = "CT"
    for image, path in zip(case["images"], files, strict=True):
        image["path"] = path
    return case


def build_template(folder: Path) -> Path:
    """A closed project folder with users, four cases and assignments."""
    from annotator.services.assignments import assign
    from annotator.services.imports import import_cases
    from annotator.services.users import add_user
    from annotator.store.project import open_project

    drafts = folder / "drafts"
    third = make_case("T3", case_title="Third case")
    third["imaging_examinations"][1]["meta_info"]["contrast"] = "No contrast"  # needs_fix
    cases = [make_case("T1"), make_case("T2", case_title="Second case"), third, _dicom_case()]
    path = write_case_file(drafts, cases)
    for name, target in (("CT_small.dcm", "ct.dcm"), ("rtdose.dcm", "multi.dcm"),
                         ("MR_small.dcm", "mr.dcm")):
        shutil.copy(_dicom(name), drafts / "img" / target)
    location = folder / "project"
    project = open_project(location)
    add_user(project, "(setup)", "cu", ["curator"])
    for name in ("a1", "a2"):
        add_user(project, "cu", name, ["annotator"])
    add_user(project, "cu", "adj", ["adjudicator"])
    report = import_cases(project, "cu", [path])
    assert not report.failed, [o.reason for o in report.outcomes]
    assign(project, "cu", 2)
    project.close()
    return location


@pytest.fixture(scope="session")
def template_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_template(tmp_path_factory.mktemp("template"))


@pytest.fixture
def project_dir(template_project: Path, tmp_path: Path) -> Path:
    target = tmp_path / "project"
    shutil.copytree(template_project, target)
    return target


@pytest.fixture
def gui_project(project_dir: Path):  # type: ignore[no-untyped-def]
    from annotator.store.project import open_project

    project = open_project(project_dir, create=False, backup=False)
    yield project
    project.close()


@pytest.fixture(autouse=True)
def own_settings(tmp_path_factory: pytest.TempPathFactory, qapp) -> None:  # type: ignore[no-untyped-def]
    """Each test starts with no remembered window size or page (Qt caches the settings folder
    on first use, so the per-test $XDG_CONFIG_HOME alone does not reach it)."""
    from PySide6.QtCore import QSettings

    qapp.setOrganizationName("annotator")  # the names `annotator gui` gives its settings
    qapp.setApplicationName("annotator")
    folder = str(tmp_path_factory.mktemp("settings"))
    for form in (QSettings.Format.NativeFormat, QSettings.Format.IniFormat):
        QSettings.setPath(form, QSettings.Scope.UserScope, folder)


@pytest.fixture(autouse=True)
def no_modal_dialogs(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail any test in which the app opens a modal dialog (it would hang a real user)."""
    from PySide6.QtWidgets import QDialog, QFileDialog, QInputDialog, QMessageBox

    def refuse(*args: object, **kwargs: object) -> Any:
        pytest.fail(f"unexpected modal dialog: {args!r}")

    monkeypatch.setattr(QDialog, "exec", refuse)
    for name in ("exec", "information", "warning", "critical", "question", "about"):
        monkeypatch.setattr(QMessageBox, name, refuse)
    for name in ("getOpenFileName", "getSaveFileName", "getExistingDirectory"):
        monkeypatch.setattr(QFileDialog, name, refuse)
    for name in ("getText", "getItem", "getInt", "getDouble"):
        monkeypatch.setattr(QInputDialog, name, refuse)


@pytest.fixture
def make_window(qtbot, gui_project) -> Iterator[Callable[..., Any]]:  # type: ignore[no-untyped-def]
    """Build real main windows on the test project (shown offscreen)."""
    from PySide6.QtCore import QThreadPool
    from PySide6.QtWidgets import QApplication

    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow

    made: list[Any] = []

    def make(user: str | None = USER, case_id: str | None = None, size: str = "1366x768") -> Any:
        window = MainWindow(GuiContext(gui_project, user, case_id=case_id))
        qtbot.addWidget(window)
        width, _, height = size.partition("x")
        window.resize(int(width), int(height))
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        # shortcuts fire only in the active window, as on a real desktop
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        made.append(window)
        return window

    yield make
    for window in made:
        page = window.built.get("annotate")
        if page is not None and hasattr(page, "shutdown"):
            page.shutdown()
    QThreadPool.globalInstance().waitForDone(10_000)  # no worker outlives its test


@pytest.fixture
def page(make_window, qtbot):  # type: ignore[no-untyped-def]
    """The annotate page of a1, on case T1, with its first image on screen."""
    window = make_window(case_id="T1")
    annotate = window.page("annotate")
    qtbot.waitUntil(annotate.ready, timeout=10_000)
    annotate.viewer.setFocus()
    return annotate


@pytest.fixture
def stored(gui_project) -> Callable[[str], dict[str, Any]]:  # type: ignore[no-untyped-def]
    """The labels of a1 on a case, read back from the store."""
    from annotator.services import annotating

    def read(case_id: str = "T1") -> dict[str, Any]:
        return annotating.view(gui_project, USER, case_id).labels

    return read


@pytest.fixture
def stay_after_submit() -> None:
    """For tests that look at the submitted item itself: no going on to the next one."""
    from annotator.gui.preferences import set_next_after_submit

    set_next_after_submit(False)
