"""Rated work on one engine: a case's labels, an SME's verdict, a physician's scores.

:mod:`.engine` holds the operations (set a field against a version, submit, blind view,
reveal, conflicts, adjudicate, undo by writing back what a set replaced); :mod:`.cases`,
:mod:`.sme` and :mod:`.judge` say what each kind has of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from annotator.services.rating.cases import CASES
from annotator.services.rating.engine import FieldEdit, RatingKind, SetResult
from annotator.services.rating.judge import JUDGE
from annotator.services.rating.sme import SME
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
        found = KINDS[name].open_conflicts(project, reader)
        out.append(WaitingQueue(key, page, len(found), sum(map(len, found.values()))))
    return out

__all__ = [
    "CASES", "JUDGE", "KINDS", "SME", "FieldEdit", "RatingKind", "SetResult", "WaitingQueue",
    "waiting_elsewhere",
]
