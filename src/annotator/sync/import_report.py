"""What a package import did: one status per case (added, unchanged, stale, refused)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime

STATUSES = ("added", "unchanged", "stale", "refused")


@dataclass(frozen=True)
class CaseResult:
    case_id: str
    status: str  # one of STATUSES
    reason: str = ""


@dataclass
class PackageImportReport:
    """What one package import did, case by case."""

    path: str
    package_id: str
    annotator: str
    sequence: int
    created_at: datetime
    cases: list[CaseResult] = field(default_factory=list)
    note: str = ""  # set when the package as a whole changed nothing

    def count(self, status: str) -> int:
        return sum(1 for c in self.cases if c.status == status)

    @property
    def changed_nothing(self) -> bool:
        return all(c.status in ("unchanged", "refused") for c in self.cases)
