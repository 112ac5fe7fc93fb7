"""Warnings of the export's pre-flight list that concern the release as a whole.

Licence compatibility (:mod:`annotator.export.licences`) and images filed twice under
different exams of one case (:func:`annotator.domain.release_rules.release_warnings`).
They do not stop an export; the card states the licence verdict.
"""

from __future__ import annotations

from collections import Counter

from annotator.domain.release_rules import release_warnings as case_warnings
from annotator.export.licences import check_licences
from annotator.export.release_input import ReleaseInput
from annotator.export.settings import CardSettings


def source_licences(data: ReleaseInput, settings: CardSettings) -> Counter[str]:
    """Licence text -> number of released images (and cases, for the source licence)."""
    found: Counter[str] = Counter()
    for case in data.cases:
        for image in case.images:
            licence = image.attribution.get("license") or case.release.get("license")
            if isinstance(licence, str) and licence.strip():
                found[licence.strip()] += 1
    if settings.source_license:
        found[settings.source_license] += len(data.cases)
    return found


def release_warnings(data: ReleaseInput, settings: CardSettings) -> list[str]:
    """Pre-flight warnings: licence conflicts and duplicate image bytes across exams."""
    found: list[str] = []
    check = check_licences(settings.license, source_licences(data, settings))
    if check.verdict is False:
        found += [f"release licence {settings.license}: {line}" for line in check.lines
                  if ": NOT compatible:" in line]
    elif check.verdict is None and settings.license:
        found += [f"release licence {settings.license}: cannot check {line.split(' (')[0]}"
                  for line in check.lines if ": unknown:" in line]
    if not settings.source_license:
        found.append("the source collection's licence is not set (card field 'Source licence')")
    for case in data.cases:
        hashes = {image.draft_path: image.sha256 for image in case.images}
        found += [f"case {case.case_id}: {w}" for w in case_warnings(case.release, hashes)]
    return found
