"""One annotator with the case open twice (two machines on a team store): no lost update.

An edit is written against the version the screen was showing; when the other window saved
in between, it is refused, the message names the latest value, and the screen shows it.
"""

from __future__ import annotations

import pytest

from annotator.domain.labels import LabelEdit
from annotator.errors import ConflictError
from annotator.services import annotating, kinds

pytestmark = pytest.mark.gui


def test_the_service_refuses_a_stale_version_and_names_the_latest_value(gui_project) -> None:  # type: ignore[no-untyped-def]
    seen = annotating.view(gui_project, "a1", "T1").version
    kinds.CASES.set_fields(gui_project, "a1", "T1", [LabelEdit("comment", "from the ward")],
                    expected_version=seen)
    with pytest.raises(ConflictError, match="comment is now 'from the ward'"):
        kinds.CASES.set_fields(gui_project, "a1", "T1", [LabelEdit("comment", "from home")],
                        expected_version=seen)
    assert annotating.view(gui_project, "a1", "T1").labels["comment"] == "from the ward"


def test_a_second_window_with_an_old_copy_cannot_overwrite_the_first(gui_project) -> None:  # type: ignore[no-untyped-def]
    from annotator.gui.workspace.session import CaseSession

    ward, home = CaseSession(gui_project, "a1"), CaseSession(gui_project, "a1")
    assert ward.open("T1") and home.open("T1")
    messages: list[str] = []
    home.failed.connect(messages.append)
    assert ward.apply([LabelEdit("comment", "from the ward")], "comment")
    assert not home.apply([LabelEdit("comment", "from home")], "comment")
    assert annotating.view(gui_project, "a1", "T1").labels["comment"] == "from the ward"
    assert messages and "changed elsewhere" in messages[-1] and "from the ward" in messages[-1]
    assert home.labels["comment"] == "from the ward"  # the screen now shows what is stored
    # Having seen the latest version, the second window's next edit goes through.
    assert home.apply([LabelEdit("comment", "from home, after reading the ward's")], "comment")
    assert ward.apply([LabelEdit("comment", "ward again")], "comment") is False
    assert annotating.view(gui_project, "a1", "T1").labels["comment"].startswith("from home")
