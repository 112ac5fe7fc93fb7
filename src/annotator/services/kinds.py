"""The three kinds of rated work, by name: a case's labels, an SME's verdict, a physician's
scores. Each kind lives with its feature (:mod:`annotator.services.review.kind`,
:mod:`annotator.services.sme.kind`, :mod:`annotator.services.judging.kind`) on the one engine
(:mod:`annotator.services.rating`); this module names them together for the command line,
the GUI and the queues that span kinds.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotator.services.judging.kind import JUDGE
from annotator.services.rating.engine import RatingKind
from annotator.services.review.kind import CASES
from annotator.services.sme.kind import SME
from annotator.store.project import Project

KINDS: dict[str, RatingKind] = {kind.name: kind for kind in (CASES, SME, JUDGE)}


@dataclass(frozen=True)
class WaitingQueue:
    """Conflicts of one kind waiting for a senior outside the case meta-review queue."""

    key: str  # JSON key
    page: str  # where the conflicts are decided
    items: int  # items with an open conflict
    open_conflicts: int  # undecided conflicting fields

    def describe(self) -> str:
        return (f"{self.items} {'item' if self.items == 1 else 'items'} with "
                f"{self.open_conflicts} open conflict(s) in {self.page}")


# Kinds whose conflicts are decided on their own page: key and page name.
ELSEWHERE = {"sme": ("sme_verdicts", "SME review › Conflicts"),
             "judge": ("judge_scoring", "Judge scoring › Conflicts")}


def waiting_elsewhere(project: Project, reader: str) -> list[WaitingQueue]:
    """Open SME-verdict and judge-scoring conflicts, so the meta-review names every queue
    that needs a senior (seniors and curators only)."""
    out = []
    for name, (key, page) in ELSEWHERE.items():
        items, conflicts = KINDS[name].open_conflict_totals(project, reader)
        out.append(WaitingQueue(key, page, items, conflicts))
    return out

__all__ = ["CASES", "JUDGE", "KINDS", "SME", "WaitingQueue", "waiting_elsewhere"]
