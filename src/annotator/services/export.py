"""Releases: the benchmark card's settings, the pre-flight list, and the export itself.

The curator's actions; the GUI's export page and ``annotator export`` both call these.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from annotator.domain.permissions import Action
from annotator.export.checks import release_warnings
from annotator.export.errors import ExportError
from annotator.export.release_input import HeldBack, ReleaseInput
from annotator.export.settings import (
    FIELDS,
    CardSettings,
    check_date,
    check_version,
)
from annotator.export.writer import ExportOptions, ExportResult, write_release
from annotator.services.agreement import release_agreement_part
from annotator.services.release import collect_release
from annotator.services.users import require
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.settings import CARD, PROJECT_NAME, get_settings
from annotator.tasks import TaskState


def card_settings(project: Project) -> CardSettings:
    """The card fields as stored (defaults for those never edited), read in one query (a
    transaction each took 8 ms of an export's 0.37 s)."""
    defaults = CardSettings()
    with project.read() as session:
        *stored_fields, name = get_settings(
            session, *((CARD, f.key) for f in FIELDS), (PROJECT_NAME, ""))
    values = {f.key: stored for f, stored in zip(FIELDS, stored_fields, strict=True)
              if isinstance(stored, str)}
    if "name" not in values and isinstance(name, str):
        values["name"] = name
    return dataclasses.replace(defaults, **values)


def save_card_settings(project: Project, actor: str, **changes: str) -> CardSettings:
    """Change card fields (curators only); returns the new settings. Raises ExportError."""
    with project.tx() as session:
        require(session, actor, Action.EDIT_CARD)
    current = card_settings(project)
    updated = current.replace(**changes)
    for key in sorted(changes):
        before, after = getattr(current, key), getattr(updated, key)
        if before != after:
            project.set_setting(CARD, after, key)
            with project.tx() as session:
                record(session, actor, "card_edited", key=key, before=before, after=after)
    return updated


@dataclass
class Preflight:
    """What an export would release now, what it holds back and why, and warnings."""

    released: list[str]
    held_back: list[HeldBack]
    excluded: list[HeldBack]
    images: int
    warnings: list[str] = field(default_factory=list)


def _warnings(data: ReleaseInput, settings: CardSettings) -> list[str]:
    found: list[str] = []
    if not data.cases:
        found.append("no case is green-lit: there is nothing to release")
    if not settings.license:
        found.append("no licence is set for the release (card field 'Licence')")
    lacking = sorted({c.case_id for c in data.cases for img in c.images
                      if not img.attribution.get("license")
                      and not c.release.get("license")})
    if lacking:
        found.append("images without a licence in case(s): " + ", ".join(lacking))
    found += release_warnings(data, settings)
    return found


def preflight(project: Project) -> Preflight:
    """The pre-flight list (no files are read or written)."""
    data = collect_release(project)
    return Preflight(
        released=[c.case_id for c in data.cases], held_back=data.held_back,
        excluded=data.excluded, images=sum(len(c.images) for c in data.cases),
        warnings=_warnings(data, card_settings(project)) + data.unresolved_images,
    )


def read_case_list(path: Path) -> list[str]:
    """The case ids of ``export --cases FILE``: one a line; blank lines and ``#`` comments
    are skipped."""
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ExportError(f"--cases {path}: {exc}") from exc
    found = [line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#")]
    if not found:
        raise ExportError(f"--cases {path}: names no case")
    return found


def export_release(
    project: Project,
    actor: str,
    out: Path,
    *,
    version: str | None = None,
    date: str | None = None,
    previous: Path | None = None,
    include_comments: bool = False,
    include_dicom: bool = False,
    task: TaskState | None = None,
    cases: Collection[str] | None = None,
) -> ExportResult:
    """Write the release of every green-lit case to the new folder ``out`` (curators only).

    ``cases`` names the only cases read (``export --cases FILE``): a release of those, as if
    the project held nothing else; a name the project does not hold is an ExportError.

    ``task`` hears the progress as images are written and may cancel (``Cancelled``, nothing
    written) until the release is moved into place. Raises ExportError
    (PrivacyError for identifying content) and PermissionDenied; nothing is left behind on
    failure.
    """
    with project.tx() as session:
        require(session, actor, Action.EXPORT)
    settings = card_settings(project)
    options = ExportOptions(
        version=check_version(version or settings.version),
        # Explicit in the card and as Croissant's datePublished: the export date by default.
        date=check_date(date) if date else datetime.now(UTC).date().isoformat(),
        previous=previous, include_comments=include_comments, include_dicom=include_dicom,
    )
    if previous is not None and not previous.is_dir():
        raise ExportError(f"--previous {previous}: not a folder")
    state = task or TaskState()
    state.progress(0.0, "reading the project")
    data = collect_release(project, include_comments=include_comments, only=cases)
    if not data.cases:
        raise ExportError("no case is green-lit: there is nothing to release")
    pending = data.unresolved_images  # read with the cases, in the same transaction
    if pending:
        raise ExportError(
            f"{len(pending)} image(s) of the release may show burned-in text and nobody"
            " reviewed them (annotator redact --list); nothing was written:\n"
            + "\n".join(f"  {p}" for p in pending))
    state.check()
    agreement = release_agreement_part(project, [c.case_id for c in data.cases])
    state.check()
    result = write_release(data, out, settings, options, agreement, state.part(0.05, 1.0))
    with project.tx() as session:
        record(session, actor, "release_exported",
               after={"version": options.version, "cases": result.cases,
                      "folder": str(result.folder)})
    return result
