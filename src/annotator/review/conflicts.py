"""Conflict detection when a case enters review, reviewer letters, and item states.

Pure functions: the services store what these return. Every comparable item of a case is
either a conflict (the reviewers differ) or an auto-resolution (they agree); both are kept,
because an adjudicator may still override an auto-resolution.
"""

from __future__ import annotations

import hashlib
import json
import random
import string
from collections.abc import Collection, Sequence
from dataclasses import dataclass
from typing import Any

from annotator.domain.labels import split_key
from annotator.review.disagreement import disagreement
from annotator.review.items import case_items

LETTERS = string.ascii_uppercase
KINDS = ("conflict", "auto_resolved")
# open -> decided; auto_resolved -> overridden; moot: closed because the case is out.
STATUSES = ("open", "decided", "moot", "auto_resolved", "overridden")


@dataclass(frozen=True)
class Detection:
    """One item as found when the case entered review; values keyed by reviewer letter."""

    key: str
    family: str
    kind: str  # "conflict" or "auto_resolved"
    disagreement: str | None
    by_letter: dict[str, Any]


def fingerprint(revision_id: str, submitted: dict[str, dict[str, Any]]) -> str:
    """A hash of what a detection reads: the draft revision and every submitted label map."""
    payload = json.dumps({"revision": revision_id, "labels": submitted}, sort_keys=True)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def assign_letters(
    existing: dict[str, str], annotators: Sequence[str], rng: random.Random
) -> dict[str, str]:
    """Letters for annotators that have none yet, shuffled among the next free letters.

    Letters already given are never changed, so a letter means the same annotator on the
    page, on the command line and in the release for the whole life of the case.
    """
    new = sorted(a for a in annotators if a not in existing)
    used = set(existing.values())
    free = [letter for letter in LETTERS if letter not in used][: len(new)]
    rng.shuffle(free)
    return dict(zip(new, free, strict=True))


def detect(
    content: dict[str, Any], submitted: dict[str, dict[str, Any]], letters: dict[str, str]
) -> list[Detection]:
    """Every comparable item of the case as a conflict or an auto-resolution."""
    found: list[Detection] = []
    for item in case_items(content, submitted):
        by_letter = {
            letters[a]: item.values[a] for a in sorted(item.values, key=letters.__getitem__)
        }
        if item.unanimous:
            found.append(Detection(item.key, item.family, "auto_resolved", None, by_letter))
        else:
            kind = disagreement(item.family, list(item.values.values()))
            found.append(Detection(item.key, item.family, "conflict", kind, by_letter))
    return found


def item_status(kind: str, key: str, decided: Collection[str], case_out: bool) -> str:
    """The state of a detected item given the decisions and whether the case is out.

    ``case_out`` is true when a discard was upheld or the case was excluded: its undecided
    conflicts are then moot.
    """
    if key in decided:
        return "decided" if kind == "conflict" else "overridden"
    if kind == "auto_resolved":
        return "auto_resolved"
    return "moot" if case_out else "open"


def item_label(key: str) -> str:
    """A reader's name for an item key (``importance:Figure 2`` -> ``importance of Figure 2``)."""
    family, item = split_key(key)
    if family == "order":
        return "order board"
    if family == "meta":
        figure, _, field = item.rpartition("/")
        return f"{figure} {field.replace('_', ' ')}"
    if family == "step":
        index, _, field = item.partition("/")
        return f"step {int(index) + 1 if index.isdigit() else index} {field}"
    if family == "rubric":
        parts = item.split("/")
        level = f" level {parts[1]}" if len(parts) == 2 and parts[1].isdigit() else ""
        rest = " ".join(parts[1:]) if not level else ""
        return f"{parts[0]} rubric{level}{(' ' + rest.replace('_', ' ')) if rest else ''}"
    return f"{family} of {item}" if item else family
