"""An SME task's hidden repeat (issue 26): served blind in the queue and the page's view,
excluded from conflicts; its pair counts in the SME's intra-rater figures."""

from __future__ import annotations

from typing import Any

from annotator.services import kinds
from annotator.services.quality import snapshot
from annotator.services.rating.repeats import add_repeats
from annotator.services.sme import review as sme_review

from .test_services import _give, _reviewers, _task, sme  # noqa: F401 (the fixture)


def test_an_sme_repeat_is_blind_and_out_of_conflicts(sme: Any) -> None:  # noqa: F811
    task = _task(sme, "it-05", "A-NEG1")
    a, b = _reviewers(sme, task)
    _give(sme, a, task, applicability="applicable", outcome="pass", score=1)
    _give(sme, b, task, applicability="applicable", outcome="pass", score=1)
    conflicts = kinds.SME.conflicts(sme, "adj", task)
    assert add_repeats(sme, "cu", "sme", 1.0, 0).count == 2
    entry = next(e for e in sme_review.queue(sme, a) if e.task_id == task)
    assert entry.state == "assigned"
    view = sme_review.view(sme, a, task)
    assert not view.submitted and view.fields == {}
    _give(sme, a, task, applicability="applicable", outcome="pass", score=0)
    assert kinds.SME.conflicts(sme, "adj", task) == conflicts
    mine = next(q for q in snapshot(sme, "cu").raters if q.rater == a)
    intra = {r["family"]: r for r in mine.intra}
    assert intra["outcome"]["kind"] == "sme" and intra["outcome"]["agreement"]["value"] == 1.0
    assert intra["score"]["scale"] == "scores" and intra["score"]["agreement"]["value"] == 1.0
