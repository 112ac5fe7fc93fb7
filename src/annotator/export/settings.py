"""The benchmark card's prose and identity fields, kept as project settings.

The curator edits them in the app (export page) or through ``services.export``; each is
stored under ``card.<field>``. Defaults follow the paper's benchmark card (Appendix K,
Tables 11-12) where a sensible general default exists; the rest start empty and the card
says "not stated".
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from annotator.export.errors import ExportError

SETTING_PREFIX = "card."
VERSION_PATTERN = re.compile(r"^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)$")
DATE_PATTERN = re.compile(r"^\d{4}-\d{2}-\d{2}$")


@dataclass(frozen=True)
class CardField:
    key: str
    label: str
    multiline: bool = False


FIELDS = (
    CardField("name", "Benchmark name"),
    CardField("version", "Version (MAJOR.MINOR.PATCH)"),
    CardField("license", "Licence (URL or SPDX id)"),
    CardField("description", "Description", True),
    CardField("domain", "Clinical domain"),
    CardField("source_collection", "Source collection"),
    CardField("dataset_url", "Dataset URL"),
    CardField("code_url", "Scoring-code URL"),
    CardField("citation", "Cite as", True),
    CardField("team", "Annotation team (roles, clinical background)", True),
    CardField("intended_use", "Intended use", True),
    CardField("non_use", "Non-use", True),
    CardField("risks", "Risks and limitations", True),
    CardField("maintenance", "Maintenance and deprecation policy", True),
    CardField("contact", "Contact and issue reporting", True),
    CardField("changelog", "Changelog", True),
)


@dataclass(frozen=True)
class CardSettings:
    """Every card field as text ("" = not stated)."""

    name: str = "Benchmark release"
    version: str = "0.1.0"
    license: str = ""
    description: str = ""
    domain: str = "neuroradiology"
    source_collection: str = ""
    dataset_url: str = ""
    code_url: str = ""
    citation: str = ""
    team: str = ""
    intended_use: str = (
        "Research evaluation of multimodal diagnostic workup trajectories; model comparison;"
        " error analysis; process-aware benchmark development. Research benchmark only; not"
        " clinical decision support."
    )
    non_use: str = (
        "Direct patient care, triage, treatment decisions, credentialing clinicians, or claims"
        " of clinical safety without separate validation."
    )
    risks: str = (
        "Published-case leakage, shortcut use of textual histories, incomplete clinical"
        " context, publication bias, image subsets rather than full studies, single-domain"
        " scope."
    )
    maintenance: str = (
        "Releases are versioned (MAJOR.MINOR.PATCH) with checksums (MANIFEST.sha256) and a"
        " changelog; a superseded version stays available and is marked as such."
    )
    contact: str = ""
    changelog: str = ""

    def replace(self, **changes: str) -> CardSettings:
        """A copy with ``changes``; raises ExportError for an unknown field or a bad version."""
        known = {f.key for f in FIELDS}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ExportError(f"unknown card field(s): {', '.join(unknown)}")
        updated = dataclasses.replace(self, **{k: str(v).strip() for k, v in changes.items()})
        check_version(updated.version)
        return updated


def check_version(version: str) -> str:
    """Return ``version`` when it is MAJOR.MINOR.PATCH, else raise ExportError."""
    if not VERSION_PATTERN.match(version):
        raise ExportError(f"version {version!r} is not MAJOR.MINOR.PATCH (e.g. 1.0.0)")
    return version


def check_date(date: str) -> str:
    """Return ``date`` when it is a real YYYY-MM-DD date, else raise ExportError."""
    import datetime

    try:
        if not DATE_PATTERN.match(date):
            raise ValueError
        datetime.date.fromisoformat(date)
    except ValueError:
        raise ExportError(f"date {date!r} is not a YYYY-MM-DD date") from None
    return date
