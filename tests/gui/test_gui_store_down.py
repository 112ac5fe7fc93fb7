"""The team store goes away mid-session: the edit stays on screen and is saved on retry."""

from __future__ import annotations

import pytest

from annotator.domain.labels import LabelEdit
from annotator.errors import StoreUnavailable
from annotator.services import annotating, kinds

pytestmark = pytest.mark.gui


def test_an_edit_made_while_the_store_is_down_is_kept_and_saved_on_retry(
    qtbot, gui_project, monkeypatch: pytest.MonkeyPatch  # type: ignore[no-untyped-def]
) -> None:
    from annotator.gui.workspace.session import CaseSession

    session = CaseSession(gui_project, "a1")
    assert session.open("T1")
    messages: list[str] = []
    session.failed.connect(messages.append)
    def down(*args: object, **kwargs: object) -> object:
        raise StoreUnavailable("the project store cannot be reached (connection refused)")

    monkeypatch.setattr(kinds.CASES, "set_fields", down)
    assert session.apply([LabelEdit("comment", "written while the server was down")], "comment")
    assert session.labels["comment"] == "written while the server was down"  # still visible
    assert session.pending and "kept on this screen" in messages[-1]
    assert session.retry_timer.isActive()
    assert "comment" not in annotating.view(gui_project, "a1", "T1").labels  # not stored yet
    assert session.retry_pending() is False  # still down: kept
    monkeypatch.delattr(kinds.CASES, "set_fields")  # the engine's own again
    with qtbot.waitSignal(session.saved, timeout=10_000):
        session.retry_timer.timeout.emit()  # what the timer does every few seconds
    assert session.pending == [] and not session.retry_timer.isActive()
    stored = annotating.view(gui_project, "a1", "T1").labels
    assert stored["comment"] == "written while the server was down"
