"""Is the release licence compatible with the licences of what it is derived from?

A release of annotated cases is an adaptation of its sources. Creative Commons terms carry
over: NonCommercial (NC) sources need an NC release, ShareAlike (SA) sources need the same
licence elements, NoDerivatives (ND) sources may not be adapted at all. Public-domain and
permissive notices (CC0, MIT, BSD, Apache, "permission to use, copy, modify and
distribute") put no such condition. Anything else cannot be checked here and is said so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

PERMISSIVE = re.compile(
    r"\b(cc0|public domain|mit|bsd|apache|isc|zlib)\b|use, copy, modify,? and distribute",
    re.IGNORECASE,
)
_CC = re.compile(
    r"(?:creativecommons\.org/licenses/|\bcc[\s_-]+)"
    r"(?P<elements>by(?:[\s_/-]+(?:nc|sa|nd))*)(?:[\s_/-]+v?(?P<version>\d(?:\.\d)?))?",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Licence:
    """A licence as checked: ``kind`` is cc, permissive or unknown."""

    text: str
    kind: str
    elements: frozenset[str] = frozenset()
    version: str = ""

    @property
    def label(self) -> str:
        if self.kind != "cc":
            return self.text if len(self.text) <= 60 else self.text[:57].rstrip() + "..."
        order = [e for e in ("BY", "NC", "SA", "ND") if e in self.elements]
        return "CC " + "-".join(order) + (f" {self.version}" if self.version else "")


def parse_licence(text: str) -> Licence:
    """Read an SPDX id (``CC-BY-NC-SA-4.0``), a CC URL, a CC name or a permissive notice."""
    text = text.strip()
    match = _CC.search(text)
    if match:
        parts = re.split(r"[\s_/-]+", match.group("elements").upper())
        return Licence(text, "cc", frozenset(parts), match.group("version") or "")
    if PERMISSIVE.search(text):
        return Licence(text, "permissive")
    return Licence(text, "unknown")


def compatible(source: Licence, release: Licence) -> tuple[bool | None, str]:
    """Whether ``release`` may license an adaptation of ``source``, and why (None: unknown)."""
    if source.kind == "permissive":
        return True, f"{source.label} puts no condition on adaptations"
    if source.kind != "cc":
        return None, f"{source.text!r} is not a licence this check knows"
    if "ND" in source.elements:
        return False, f"{source.label} forbids adaptations (NoDerivatives)"
    if release.kind != "cc":
        return False, f"{source.label} needs a Creative Commons release licence"
    if "SA" in source.elements and release.elements != source.elements:
        return False, f"{source.label} is ShareAlike: the release must be {source.label} too"
    missing = sorted(source.elements - release.elements)
    if missing:
        return False, f"{source.label} requires {'/'.join(missing)} in the release licence"
    if "SA" in source.elements and release.version and source.version and (
            float(release.version) < float(source.version)):
        return False, f"{source.label} needs version {source.version} or later"
    return True, f"{release.label} keeps the terms of {source.label}"


@dataclass(frozen=True)
class LicenceCheck:
    """The verdict over every source licence: False if any conflicts, None if any unknown."""

    release: str
    verdict: bool | None
    lines: list[str]

    @property
    def summary(self) -> str:
        if not self.release:
            return "not checked: no release licence is set"
        if self.verdict is True:
            return "compatible with every source licence"
        if self.verdict is False:
            return "NOT compatible with a source licence"
        return "not fully checked: a source licence is unknown to the check"


def check_licences(release: str, sources: Mapping[str, int]) -> LicenceCheck:
    """Check ``release`` against each source licence (text -> number of items under it)."""
    if not release.strip():
        return LicenceCheck("", None, [])
    chosen = parse_licence(release)
    lines: list[str] = []
    verdicts: list[bool | None] = []
    for text, n in sorted(sources.items()):
        ok, why = compatible(parse_licence(text), chosen)
        verdicts.append(ok)
        word = {True: "compatible", False: "NOT compatible", None: "unknown"}[ok]
        lines.append(f"{parse_licence(text).label} ({n}): {word}: {why}")
    verdict: bool | None = (False if False in verdicts else
                            None if None in verdicts or not verdicts else True)
    return LicenceCheck(release, verdict, lines)
