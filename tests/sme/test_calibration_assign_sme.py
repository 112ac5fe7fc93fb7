"""SME calibration tasks (issue 26): ``sme-assign`` gives an SME in calibration the
calibration tasks they do not hold yet, on top of their share; their queue starts there."""

from __future__ import annotations

from typing import Any

import pytest

from annotator.cli import main
from annotator.services.quality import mark_item, set_in_calibration
from annotator.services.sme import review as sme_review

from .test_services import _reviewers, _task, sme  # noqa: F401 (the fixture)

REFERENCE = {"applicability": "applicable", "outcome": "pass"}


def test_sme_assign_gives_calibration_tasks_first(
    sme: Any, capsys: pytest.CaptureFixture[str]  # noqa: F811
) -> None:
    task = _task(sme, "it-05", "A-NEG1")
    outsider = ({"a1", "a2", "a3"} - set(_reviewers(sme, task))).pop()
    mark_item(sme, "cu", "sme", str(task), "calibration", REFERENCE, "the panel's verdict")
    assert sme_review.assign(sme, "cu", per_item=2) == 0  # nobody in calibration
    set_in_calibration(sme, "cu", outsider, True)
    capsys.readouterr()
    assert main(["--project", str(sme.location), "--as", "cu", "sme-assign",
                 "--per-item", "2"]) == 0
    assert capsys.readouterr().out == "1 assignment(s) added\n"
    queue = sme_review.queue(sme, outsider)
    assert queue[0].task_id == task and queue[0].state == "assigned"
    assert len(queue) == 5  # the balanced four, and the calibration task on top
    assert sme_review.assign(sme, "cu", per_item=2) == 0  # nothing twice
