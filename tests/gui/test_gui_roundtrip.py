"""The round trip in the app: open a work bundle, send my work, the curator's round-trip view.

The choosers (the only file dialogs) are replaced by functions returning paths; everything
else is the real window on real projects, with unbundling, packaging and importing done by
the worker threads as for a user.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from PySide6.QtCore import Qt

pytestmark = pytest.mark.gui

CURATOR = "cu"
ANNOTATOR = "a1"
WAIT = 20_000


@pytest.fixture(autouse=True)
def no_file_dialogs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The conftest refuses modal dialogs; this adds the multi-file chooser."""
    from PySide6.QtWidgets import QFileDialog

    def refuse(*args: object, **kwargs: object) -> Any:
        pytest.fail(f"unexpected modal dialog: {args!r}")

    monkeypatch.setattr(QFileDialog, "getOpenFileNames", refuse)


@pytest.fixture
def bundle(gui_project: Any, tmp_path: Path) -> Path:
    """a1's work bundle, written by the curator."""
    from annotator.services.sync.bundle import make_bundle

    return make_bundle(gui_project, CURATOR, ANNOTATOR, tmp_path / "a1.annotator-bundle").path


@pytest.fixture
def laptop(bundle: Path, tmp_path: Path) -> Iterator[Any]:
    """a1's offline project, unbundled outside the app."""
    from annotator.services.sync.unbundle import unbundle
    from annotator.store.project import open_project

    unbundle(bundle, tmp_path / "laptop")
    project = open_project(tmp_path / "laptop", create=False, backup=False)
    yield project
    project.close()


@pytest.fixture
def window_on(qtbot: Any) -> Iterator[Callable[[Any, str], Any]]:
    """Main windows on any project (the conftest's make_window is for the curator's)."""
    from PySide6.QtCore import QThreadPool
    from PySide6.QtWidgets import QApplication

    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import MainWindow

    made: list[Any] = []

    def make(project: Any, user: str) -> Any:
        window = MainWindow(GuiContext(project, user))
        qtbot.addWidget(window)
        window.resize(1366, 768)
        window.show()
        qtbot.waitExposed(window)
        window.activateWindow()
        qtbot.waitUntil(lambda: QApplication.activeWindow() is window)
        made.append(window)
        return window

    yield make
    for window in made:
        window.close()
    QThreadPool.globalInstance().waitForDone(10_000)


def trigger(window: Any, action_id: str) -> None:
    action = window.registry.actions[action_id]
    assert action.isEnabled(), f"{action_id} is disabled"
    action.trigger()


def write_package(laptop: Any, out: Path) -> Path:
    """a1 labels T1 (and submits nothing) on the laptop and packages it."""
    from annotator.services import annotating
    from annotator.services.sync.package import make_package

    annotating.set_label(laptop, ANNOTATOR, "T1", "importance", "Figure 1", "essential")
    annotating.set_label(laptop, ANNOTATOR, "T1", "comment", "", "seen offline")
    return make_package(laptop, out).path


def store_counts(project: Any) -> tuple[int, int, list[str]]:
    from sqlalchemy import func, select

    from annotator.store.schema import Annotation, HistoryEntry, SyncPackage

    with project.tx() as session:
        return (
            int(session.scalar(select(func.count()).select_from(HistoryEntry)) or 0),
            int(session.scalar(select(func.count()).select_from(SyncPackage)) or 0),
            sorted(repr(sorted(a.labels.items())) for a in session.scalars(select(Annotation))),
        )


# -- open a work bundle ---------------------------------------------------------------------


def test_open_bundle_opens_the_annotators_project_on_the_annotate_page(  # type: ignore[no-untyped-def]
    qtbot, make_window, bundle, tmp_path, monkeypatch
) -> None:
    from annotator.gui.roundtrip import choosers
    from annotator.gui.workspace.page import AnnotatePage
    from annotator.sync.offline import is_offline_project

    window = make_window(user=CURATOR)
    window.show_page("export")
    folder = tmp_path / "my project"
    monkeypatch.setattr(choosers, "bundle_file", lambda parent: bundle)
    monkeypatch.setattr(choosers, "project_folder", lambda parent, b: folder)
    with qtbot.waitSignal(window.roundtrip.opened, timeout=WAIT) as opened:
        trigger(window, "roundtrip.open_bundle")
    assert opened.args == [str(folder.resolve())]
    project = window.context.project
    assert is_offline_project(project) and Path(project.location) == folder.resolve()
    assert window.context.user == ANNOTATOR and window.who.text() == ANNOTATOR
    assert window.tabs.currentIndex() == 0 and list(window.built) == ["annotate"]
    page = window.page("annotate")
    assert isinstance(page, AnnotatePage) and page.user == ANNOTATOR
    assert [r.case_id for r in page.case_list.model.rows] == ["D1", "T1", "T2", "T3"]
    qtbot.waitUntil(page.ready, timeout=WAIT)
    assert "a1's offline project" in window.windowTitle()
    assert window.roundtrip.send.button.isVisible()
    assert window.registry.actions["roundtrip.send_work"].text() == "Send my work (0 changes)"
    assert not window.registry.actions["roundtrip.view"].isEnabled()  # not the curator's
    assert "ready in" in window.roundtrip.message.text()


def test_a_bundle_that_cannot_be_opened_says_why_and_keeps_the_project(  # type: ignore[no-untyped-def]
    qtbot, make_window, bundle, tmp_path, gui_project
) -> None:
    window = make_window(user=CURATOR)
    busy = tmp_path / "busy"
    busy.mkdir()
    (busy / "notes.txt").write_text("mine")
    with qtbot.waitSignal(window.roundtrip.failed, timeout=WAIT) as failed:
        window.roundtrip.open_bundle(bundle, busy)
    assert "not empty" in failed.args[0]
    assert "not empty" in window.roundtrip.message.text()
    assert window.context.project is gui_project and window.context.user == CURATOR
    assert sorted(p.name for p in busy.iterdir()) == ["notes.txt"]


def test_a_chosen_folder_that_is_not_empty_gets_a_new_folder_inside(tmp_path: Path) -> None:
    from annotator.gui.roundtrip.choosers import target_folder

    bundle = tmp_path / "a1.annotator-bundle"
    assert target_folder(tmp_path / "new", bundle) == tmp_path / "new"
    (tmp_path / "empty").mkdir()
    assert target_folder(tmp_path / "empty", bundle) == tmp_path / "empty"
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "x").write_text("x")
    assert target_folder(tmp_path / "docs", bundle) == tmp_path / "docs" / "a1 project"


# -- send my work ---------------------------------------------------------------------------


def test_send_my_work_counts_edits_and_packages_them(  # type: ignore[no-untyped-def]
    qtbot, window_on, laptop, tmp_path, monkeypatch
) -> None:
    from annotator.gui.roundtrip import choosers
    from annotator.services.sync.package import read_package

    window = window_on(laptop, ANNOTATOR)
    send = window.registry.actions["roundtrip.send_work"]
    page = window.page("annotate")
    page.open_case("T1")
    qtbot.waitUntil(page.ready, timeout=WAIT)
    assert window.roundtrip.send.pending == 0 and send.text() == "Send my work (0 changes)"
    page.viewer.setFocus()
    qtbot.keyClick(page.viewer, "e")  # importance of Figure 1: essential
    assert window.roundtrip.send.pending == 1 and send.text() == "Send my work (1 change)"
    qtbot.keyClick(page.viewer, "d")  # difficulty
    assert window.roundtrip.send.pending == 2 and send.text() == "Send my work (2 changes)"
    assert window.roundtrip.send.button.text() == send.text()
    out = tmp_path / "out" / "a1-work.annotator-package"
    out.parent.mkdir()
    monkeypatch.setattr(choosers, "save_file", lambda *args: out)
    with qtbot.waitSignal(window.roundtrip.send.sent, timeout=WAIT):
        trigger(window, "roundtrip.send_work")
    assert window.roundtrip.send.pending == 0 and send.text() == "Send my work (0 changes)"
    manifest, content, _ = read_package(out)
    assert manifest.annotator == ANNOTATOR and [c.case_id for c in content.cases] == ["T1"]
    assert content.cases[0].annotation.labels == page.session.labels
    message = window.roundtrip.message.text()
    assert str(out) in message and "1 case(s), 2 new change(s)" in message


def test_nothing_to_send_is_said_not_raised(qtbot, window_on, laptop, tmp_path) -> None:  # type: ignore[no-untyped-def]
    window = window_on(laptop, ANNOTATOR)
    with qtbot.waitSignal(window.roundtrip.send.failed, timeout=WAIT) as failed:
        window.roundtrip.send.send_to(tmp_path / "empty.annotator-package")
    assert "nothing to package yet" in failed.args[0]
    assert not (tmp_path / "empty.annotator-package").exists()
    assert window.registry.actions["roundtrip.send_work"].isEnabled()


# -- the curator's round-trip view ----------------------------------------------------------


def open_view(qtbot: Any, window: Any) -> Any:
    trigger(window, "roundtrip.view")
    view = window.roundtrip.view
    qtbot.waitUntil(lambda: bool(view.model.rows), timeout=WAIT)
    return view


def test_the_round_trip_view_is_for_curators_in_their_project(make_window) -> None:  # type: ignore[no-untyped-def]
    annotator = make_window(user=ANNOTATOR)
    for action_id in ("roundtrip.view", "roundtrip.make_bundle", "roundtrip.import_packages"):
        assert not annotator.registry.actions[action_id].isEnabled()
    assert not annotator.roundtrip.send.button.isVisible()  # not an offline project
    curator = make_window(user=CURATOR)
    assert curator.registry.actions["roundtrip.view"].isEnabled()


def test_make_a_bundle_from_the_view(  # type: ignore[no-untyped-def]
    qtbot, qtmodeltester, make_window, tmp_path, monkeypatch
) -> None:
    from annotator.gui.roundtrip import choosers
    from annotator.services.sync.bundle import read_bundle

    window = make_window(user=CURATOR)
    view = open_view(qtbot, window)
    assert not view.isModal() and view.isVisible()
    qtmodeltester.check(view.model)
    assert [r.annotator for r in view.model.rows] == ["a1", "a2"]
    row = view.model.row_of("a2")
    assert view.model.data(view.model.index(row, 2)) == 0  # nothing bundled yet
    view.table.clicked.emit(view.model.index(row, 0))
    assert view.annotator.currentText() == "a2"
    out = tmp_path / "a2.annotator-bundle"
    monkeypatch.setattr(choosers, "save_file", lambda *args: out)
    with qtbot.waitSignal(view.refreshed, timeout=WAIT):
        with qtbot.waitSignal(view.finished, timeout=WAIT) as finished:
            trigger(window, "roundtrip.make_bundle")
    assert "Work bundle for a2: 4 case(s)" in finished.args[0] and str(out) in finished.args[0]
    manifest, content, _images = read_bundle(out)
    assert manifest.annotator == "a2" and len(content.cases) == 4
    assert view.model.data(view.model.index(view.model.row_of("a2"), 2)) == 4
    assert view.model.data(view.model.index(view.model.row_of("a2"), 5)) != "-"


def test_an_imported_package_lands_in_the_store_and_shows_returned(  # type: ignore[no-untyped-def]
    qtbot, qtmodeltester, make_window, gui_project, laptop, tmp_path, monkeypatch
) -> None:
    from annotator.gui.roundtrip import choosers
    from annotator.services import annotating

    package = write_package(laptop, tmp_path / "a1.annotator-package")
    window = make_window(user=CURATOR)
    view = open_view(qtbot, window)
    a1 = view.model.row_of(ANNOTATOR)
    assert view.model.rows[a1].bundled == 4 and view.model.rows[a1].returned == 0
    monkeypatch.setattr(choosers, "package_files", lambda parent: [package])
    with qtbot.waitSignal(view.refreshed, timeout=WAIT):
        with qtbot.waitSignal(view.finished, timeout=WAIT) as finished:
            trigger(window, "roundtrip.import_packages")
    assert annotating.view(gui_project, ANNOTATOR, "T1").labels == annotating.view(
        laptop, ANNOTATOR, "T1").labels
    assert annotating.view(gui_project, ANNOTATOR, "T1").labels["comment"] == "seen offline"
    qtmodeltester.check(view.report)
    assert [(r.case_id, r.status) for r in view.report.rows] == [("T1", "added")]
    assert finished.args[0] == view.message.text() == "a1, package 1: 1 added"
    a1 = view.model.row_of(ANNOTATOR)
    returned = view.model.data(view.model.index(a1, view.model.HEADERS.index("Returned")))
    assert returned == 1 and view.model.rows[a1].packages == 1
    # the same package again: nothing changes, and the report says so
    with qtbot.waitSignal(view.finished, timeout=WAIT) as again:
        view.import_files([package])
    assert "already imported" in again.args[0]
    assert [(r.case_id, r.status) for r in view.report.rows] == [("T1", "unchanged")]


def test_a_refused_package_shows_its_reason_and_changes_nothing(  # type: ignore[no-untyped-def]
    qtbot, make_window, gui_project, laptop, tmp_path
) -> None:
    package = write_package(laptop, tmp_path / "a1.annotator-package")
    truncated = tmp_path / "truncated.annotator-package"
    data = package.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    window = make_window(user=CURATOR)
    view = open_view(qtbot, window)
    before = store_counts(gui_project)
    with qtbot.waitSignal(view.finished, timeout=WAIT) as finished:
        view.import_files([truncated])
    assert finished.args[0].startswith("Refused whole, nothing applied: truncated.annotator-")
    assert '<span style="color: #b71c1c;">Refused whole' in view.message.text()  # in red
    [row] = view.report.rows
    assert (row.case_id, row.status) == ("-", "refused whole") and "nothing applied" in row.reason
    colour = view.report.data(view.report.index(0, 2), Qt.ItemDataRole.ForegroundRole)
    assert colour.name() == "#b71c1c"
    assert store_counts(gui_project) == before
    assert view.model.rows[view.model.row_of(ANNOTATOR)].returned == 0


# -- command line and screenshots -----------------------------------------------------------


def test_gui_command_opens_a_bundle_into_a_folder(bundle: Path, tmp_path: Path) -> None:
    from PIL import Image

    from annotator.store.project import open_project
    from annotator.sync.offline import offline_info

    out, into = tmp_path / "offline.png", tmp_path / "laptop"
    result = subprocess.run(
        [sys.executable, "-m", "annotator", "gui", "--open-bundle", str(bundle), "--into",
         str(into), "--screenshot", str(out), "--size", "1366x768"],
        capture_output=True, text=True, timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert "a1's project with 4 case(s) is ready in" in result.stdout
    assert Image.open(out).size == (1366, 768)
    project = open_project(into, create=False, backup=False)
    try:
        info = offline_info(project)
        assert info is not None and info.annotator == ANNOTATOR
    finally:
        project.close()
    again = subprocess.run(
        [sys.executable, "-m", "annotator", "gui", "--open-bundle", str(bundle), "--into",
         str(into), "--screenshot", str(out)],
        capture_output=True, text=True, timeout=120,
    )
    assert again.returncode != 0 and "Traceback" not in again.stderr
    assert f"annotator --project {into} gui" in again.stderr


def test_render_the_round_trip_view_and_an_offline_annotate_page(  # type: ignore[no-untyped-def]
    qtbot, make_window, window_on, laptop, tmp_path
) -> None:
    from PIL import Image, ImageStat

    window = window_on(laptop, ANNOTATOR)
    page = window.page("annotate")
    page.open_case("T1")
    qtbot.keyClick(page.viewer, "e")
    qtbot.waitUntil(window.ready, timeout=WAIT)
    shot = tmp_path / "annotate-offline.png"
    assert window.grab().save(str(shot), "PNG")
    curator = make_window(user=CURATOR)
    view = open_view(qtbot, curator)
    view.resize(1000, 560)
    view_shot = tmp_path / "roundtrip.png"
    assert view.grab().save(str(view_shot), "PNG")
    for path in (shot, view_shot):
        image = Image.open(path).convert("L")
        assert ImageStat.Stat(image).stddev[0] > 10  # drawn content, not a blank window
