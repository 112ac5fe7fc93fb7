"""What a release is made of: released cases with their images and provenance, and the
cases held back. :func:`annotator.services.release.collect_release` fills it from a project.

Reviewers appear only under pseudonyms (a keyed hash of the name with the project's
de-identification seed), so the same person has the same pseudonym in every release and on
every database back end.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class SourceImage:
    """One stored image of a released case (bytes fetched by SHA-256 when written)."""

    draft_path: str
    sha256: str
    media_type: str
    figures: tuple[str, ...]
    name: str | None
    caption: str | None
    attribution: dict[str, Any]
    text_reviewed: bool = False  # a curator redacted it or cleared it of patient data


@dataclass
class ReleasedCase:
    case_id: str
    release: dict[str, Any]  # final content, draft image paths still in place
    images: list[SourceImage]
    provenance: dict[str, Any]


@dataclass(frozen=True)
class HeldBack:
    """A case that stays out of this release, and why (excluded ones have a reason code)."""

    case_id: str
    state: str
    reason: str
    reason_code: str = ""


@dataclass
class ReleaseInput:
    cases: list[ReleasedCase]
    excluded: list[HeldBack]
    held_back: list[HeldBack]
    project_cases: int
    annotated_candidates: int
    user_names: list[str]
    annotators: int  # distinct reviewers of the released cases
    adjudicators: int  # distinct adjudicators (decisions or green light) of released cases
    # The stored bytes of images by hash, read together (one case's at a time).
    image_bytes: Callable[[Sequence[str]], dict[str, bytes]] = field(repr=False)
    renders_dir: Path | None = None  # where DICOM renders are cached (a project folder's)
    history_head: str = ""  # the project history's hash chain head (store/chain.py)
    verdicts_dir: Path | None = None  # where the gate's burned-in text verdicts are cached
    # The released images the pixel check holds back (unchecked, or flagged and unreviewed),
    # described: read in the same transaction as the cases, so export refuses exactly these.
    unresolved_images: list[str] = field(default_factory=list)


def pseudonym(seed: str, name: str) -> str:
    """A stable reviewer id that does not reveal the name (keyed with the project seed)."""
    digest = hmac.new(seed.encode("utf-8"), f"reviewer:{name}".encode(), hashlib.sha256)
    return f"reviewer-{digest.hexdigest()[:8]}"
