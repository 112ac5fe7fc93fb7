"""What reading draft case files produces: accepted candidates and reasoned rejections.

Plain data, no I/O: the store decides what to do with each candidate (new, updated,
unchanged, refused), the command line and the GUI print the report.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from annotator.domain.checks import Problem
from annotator.ingest.pixel_text import PixelCheck
from annotator.store.image_record import ImageRecord


@dataclass(frozen=True)
class Rejection:
    """A case (or a whole file) that was not imported, and why.

    ``case_id`` is None when the file or object gave none; ``field`` is a readable path such
    as ``imaging_examinations[2].preferred_order`` or None when the reason is not one field.
    """

    file: Path
    case_id: str | None
    field: str | None
    reason: str

    def describe(self) -> str:
        """One report line: ``cases/a.json: case 17761: imaging_...: must be ...``."""
        parts = [str(self.file)]
        if self.case_id is not None:
            parts.append(f"case {self.case_id}")
        if self.field:
            parts.append(self.field)
        return ": ".join([*parts, self.reason])


@dataclass(frozen=True, kw_only=True)
class CandidateImage(ImageRecord):
    """One image of a case, read, probed and cleaned; ``data`` are the bytes to store."""

    data: bytes
    pixel_check: PixelCheck | None = None  # None: checked before (cached by content hash)


@dataclass
class CaseCandidate:
    """A case that passed the format checks; ``problems`` non-empty means ``needs_fix``."""

    file: Path
    case_id: str
    content: dict[str, Any]  # normalised draft; all other keys exactly as in the file
    original_values: dict[str, Any]  # e.g. {"difficulty": "extrem hard"}
    images: list[CandidateImage]
    problems: list[Problem]
    warnings: list[Problem]
    content_hash: str

    @property
    def needs_fix(self) -> bool:
        """True when a problem blocks the green light until a physician fixes it."""
        return bool(self.problems)


@dataclass(frozen=True)
class DuplicateCase:
    """The same case id met twice in one import run; the later one is rejected."""

    case_id: str
    first_file: Path
    later_file: Path


@dataclass
class IngestResult:
    """Everything one import run read; rejections never stop the other cases."""

    accepted: list[CaseCandidate] = field(default_factory=list)
    rejected: list[Rejection] = field(default_factory=list)
    duplicates_in_input: list[DuplicateCase] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """False when anything was rejected (the command line then exits non-zero)."""
        return not self.rejected
