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
HISTORY_CHOICES = ("withheld", "shipped")
ORIGINAL_HISTORY_KEY = "original_clinical_history"


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
    CardField("source_license", "Source licence (of the source cases; SPDX id or URL)"),
    CardField("source_dates", "Source publication dates (e.g. 2008-2024)"),
    CardField("dataset_url", "Dataset URL"),
    CardField("code_url", "Scoring-code URL"),
    CardField("citation", "Cite as", True),
    CardField("team", "Annotation team (roles, clinical background)", True),
    CardField("intended_use", "Intended use", True),
    CardField("non_use", "Non-use", True),
    CardField("risks", "Risks and limitations", True),
    CardField("biases", "Known biases of the data", True),
    CardField("validation_status", "Validation status", True),
    CardField("leakage_audit", "Leakage-audit status", True),
    CardField("original_history", "Original clinical history: withheld or shipped"),
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
    source_license: str = ""
    source_dates: str = ""
    biases: str = (
        "Selection and publication bias of a teaching collection (instructive, often rare"
        " presentations are over-represented); image subsets chosen by case authors rather"
        " than full studies; one clinical domain; a small annotation team whose shared"
        " training may bias importance and order labels."
    )
    validation_status: str = (
        "The release is checked by `annotator validate` (scoring-core contract, manifest"
        " checksums, card and Croissant counts). Labels are physician-reviewed and"
        " adjudicated; no external clinical validation."
    )
    leakage_audit: str = (
        "Not audited: the source cases are published and may be in model training data;"
        " no contamination test was run for this release."
    )
    original_history: str = "withheld"

    def replace(self, **changes: str) -> CardSettings:
        """A copy with ``changes``; raises ExportError for an unknown field or a bad version."""
        known = {f.key for f in FIELDS}
        unknown = sorted(set(changes) - known)
        if unknown:
            raise ExportError(f"unknown card field(s): {', '.join(unknown)}")
        updated = dataclasses.replace(self, **{k: str(v).strip() for k, v in changes.items()})
        check_version(updated.version)
        if updated.original_history not in HISTORY_CHOICES:
            raise ExportError(f"original_history {updated.original_history!r}: use "
                              + " or ".join(HISTORY_CHOICES))
        return updated

    @property
    def ships_original_history(self) -> bool:
        """Whether ``original_clinical_history`` (unredacted source text) is released."""
        return self.original_history == "shipped"


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
