"""Conflicts waiting for a senior outside the case meta-review queue.

SME verdicts and judge scoring keep their own conflict lists (their items are not cases), so
the meta-review page and ``review --status`` name them here: a senior sees every queue that
needs a decision from one place.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotator.services import judge_review, sme_adjudication
from annotator.store.project import Project


@dataclass(frozen=True)
class OtherQueue:
    key: str  # JSON key
    page: str  # where the conflicts are decided
    items: int  # outputs or tasks with an open conflict
    open_conflicts: int  # undecided conflicting fields

    def describe(self) -> str:
        return (f"{self.items} {'item' if self.items == 1 else 'items'} with "
                f"{self.open_conflicts} open conflict(s) in {self.page}")


def other_queues(project: Project, reader: str) -> list[OtherQueue]:
    """Open SME-verdict and judge-scoring conflicts (seniors and curators only)."""
    sme = sme_adjudication.list_conflicts(project, reader, open_only=True)
    judge = judge_review.list_conflicts(project, reader, open_only=True)
    return [
        OtherQueue("sme_verdicts", "SME review › Conflicts",
                   len({c.task_id for c in sme}), len(sme)),
        OtherQueue("judge_scoring", "Judge scoring › Conflicts",
                   len({c.item_id for c in judge}), len(judge)),
    ]
