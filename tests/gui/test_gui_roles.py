"""The app is shaped by role: the page bar shows the pages the core's table gives the user's
roles, each role lands on its own page, and an action a role cannot take is disabled with a
tooltip naming the role it needs (not refused after the user typed their work)."""

from __future__ import annotations

import pytest
from PySide6.QtWidgets import QLineEdit, QPlainTextEdit

from annotator.domain.permissions import pages_for

pytestmark = pytest.mark.gui


def _bar(window) -> list[str]:  # type: ignore[no-untyped-def]
    return [window.tabs.tabText(i) for i in range(window.tabs.count())]


@pytest.mark.parametrize(
    ("user", "roles", "titles"),
    [
        ("a1", ["annotator"], ["Annotate", "SME review", "Judge scoring"]),
        ("adj", ["adjudicator"], ["Desk", "Annotate", "Meta-review", "SME review",
                                  "Judge scoring"]),
        ("cu", ["curator"], ["Desk", "Annotate", "Meta-review", "SME review", "Judge scoring",
                             "Agreement", "Redaction", "Export"]),
    ],
)
def test_the_page_bar_shows_the_pages_of_the_users_roles(  # type: ignore[no-untyped-def]
    make_window, user, roles, titles
) -> None:
    from annotator.gui.main_window import TITLES

    window = make_window(user=user)
    assert window.context.roles == roles
    assert window.page_ids == [p for p in pages_for(roles) if p in TITLES]
    assert window.page_ids == pages_for(roles)  # every page of the core's table is built
    assert _bar(window) == titles


def test_each_role_lands_on_its_page_on_a_first_start(make_window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    for user, landing in (("a1", "annotate"), ("adj", "review"), ("cu", "desk")):
        QSettings().remove("window/page")  # a first start: no page remembered
        window = make_window(user=user)
        assert window.page_ids[window.tabs.currentIndex()] == landing, user
        assert window.stack.currentWidget() is window.built[landing]
        window.close()


def test_a_restored_page_wins_only_if_the_role_may_see_it(make_window) -> None:  # type: ignore[no-untyped-def]
    from PySide6.QtCore import QSettings

    QSettings().setValue("window/page", "export")
    annotator = make_window(user="a1")
    assert annotator.page_ids[annotator.tabs.currentIndex()] == "annotate"
    assert "export" not in annotator.built  # never built for somebody who may not use it
    annotator.close()
    QSettings().setValue("window/page", "export")
    curator = make_window(user="cu")
    assert curator.page_ids[curator.tabs.currentIndex()] == "export"


def test_a_page_the_role_does_not_see_cannot_be_opened(make_window, project_dir) -> None:  # type: ignore[no-untyped-def]
    from annotator.cli import build_parser
    from annotator.errors import PermissionDenied
    from annotator.gui.app import open_window

    window = make_window(user="a1")
    with pytest.raises(PermissionDenied, match="Export page is not shown to a1"):
        window.show_page("export")
    args = build_parser().parse_args(
        ["--project", str(project_dir), "--as", "a1", "gui", "--page", "agreement"])
    with pytest.raises(PermissionDenied, match="Agreement page"):
        open_window(args)


def test_switching_user_reshapes_the_page_bar(make_window) -> None:  # type: ignore[no-untyped-def]
    window = make_window(user="cu")
    assert "Export" in _bar(window)
    window.set_identity("a1")
    assert _bar(window) == ["Annotate", "SME review", "Judge scoring"]
    assert window.page_ids[window.tabs.currentIndex()] == "annotate"


def _export_page(qtbot, gui_project, user: str, roles: list[str]):  # type: ignore[no-untyped-def]
    from annotator.gui.context import GuiContext
    from annotator.gui.main_window import make_page

    page = make_page("export", "Export", GuiContext(gui_project, user, roles=roles))
    qtbot.addWidget(page)
    qtbot.waitUntil(page.ready, timeout=10_000)
    return page


def test_export_and_the_card_are_disabled_for_a_non_curator_before_any_typing(  # type: ignore[no-untyped-def]
    qtbot, gui_project
) -> None:
    page = _export_page(qtbot, gui_project, "a1", ["annotator"])
    assert not page.export_button.isEnabled()
    assert not page.save_button.isEnabled()
    assert "curator role" in page.export_button.toolTip()
    assert "Exporting a release" in page.export_button.toolTip()
    editors = list(page.fields.values())
    assert editors and all(e.isReadOnly() for e in editors)
    assert all("editing the benchmark card needs the curator role" in e.toolTip().lower()
               for e in editors)
    assert all(isinstance(e, QLineEdit | QPlainTextEdit) for e in editors)


def test_a_curator_may_export_and_edit_the_card(qtbot, gui_project) -> None:  # type: ignore[no-untyped-def]
    page = _export_page(qtbot, gui_project, "cu", ["curator"])
    assert page.export_button.isEnabled() and page.save_button.isEnabled()
    assert not any(e.isReadOnly() for e in page.fields.values())
    assert page.export_button.toolTip() == ""


def test_roles_of_reads_the_store(gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.services.users import roles_of

    assert roles_of(gui_project, "cu") == ["curator"]
    assert roles_of(gui_project, "adj") == ["adjudicator"]
    assert roles_of(gui_project, "nobody-here") == []
    assert roles_of(gui_project, None) == []


def test_a_curator_reads_conflicts_but_the_decision_panel_is_the_adjudicators(  # type: ignore[no-untyped-def]
    make_window,
) -> None:
    curator = make_window(user="cu")
    curator.show_page("review")
    panel = curator.built["review"].panel
    assert not panel.isEnabled()
    assert "Adjudicating cases needs the adjudicator role" in panel.toolTip()
    curator.close()
    adjudicator = make_window(user="adj")
    assert adjudicator.built["review"].panel.isEnabled()
