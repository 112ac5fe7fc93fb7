"""A cancelled export stops between cases and leaves nothing behind (``annotator.tasks``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from annotator.services.export import export_release
from annotator.store.project import Project
from annotator.tasks import Cancelled, TaskState
from conftest import CURATOR


def test_a_cancelled_export_leaves_no_folder(released: Project, tmp_path: Path) -> None:
    heard: list[str] = []

    def listen(_fraction: float, message: str) -> None:
        heard.append(message)
        if message.startswith("case "):
            state.cancel()  # the Cancel button, while the first case is written

    state = TaskState(listen)
    out = tmp_path / "releases" / "1.0.0"
    with pytest.raises(Cancelled):
        export_release(released, CURATOR, out, date="2026-05-06", task=state)
    assert not out.exists()
    assert list((tmp_path / "releases").iterdir()) == []  # no staging folder left either
    assert heard[0] == "reading the project"


def test_an_export_reports_progress_to_the_end(released: Project, tmp_path: Path) -> None:
    heard: list[float] = []
    export_release(released, CURATOR, tmp_path / "r", date="2026-05-06",
                   task=TaskState(lambda f, _m: heard.append(f)))
    assert heard == sorted(heard) and heard[-1] == 1.0
