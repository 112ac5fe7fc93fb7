"""Annotation packages: the annotator's work, from their offline project, in one file.

A package covers every case the annotator has worked on (any history entry of theirs): the
revision hash the work was done on, the annotation as it stands and the annotator's history.
Packages from one offline project are numbered 1, 2, 3... so the curator recognises an
older one arriving after a newer one.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator import __version__
from annotator.domain.states import ANNOTATOR_ACTIONS
from annotator.errors import ValidationError
from annotator.services.users import get_user
from annotator.store.project import Project
from annotator.store.schema import Annotation, Case, CaseRevision, utcnow
from annotator.store.settings import (
    LAST_PACKAGE,
    PACKAGE_SECRET,
    PACKAGE_SEQUENCE,
    PACKAGED_CHANGES,
    PROJECT_ID,
    get_setting,
    put_setting,
)
from annotator.sync.container import CONTENT, MANIFEST, read_container, validated, write_container
from annotator.sync.formats import (
    PACKAGE_FORMAT_VERSION,
    PACKAGE_KIND,
    TWO_ENTRIES_PER_CASE,
    CaseRef,
    PackageCase,
    PackageContent,
    PackageManifest,
    SyncFileError,
)
from annotator.sync.offline import (
    require_offline_side,
)
from annotator.sync.records import annotation_record, foreign_actors, own_change_count
from annotator.sync.signing import sign, signing_key


@dataclass(frozen=True)
class PackageResult:
    path: Path
    package_id: uuid.UUID
    sequence: int
    annotator: str
    case_ids: list[str]
    changes: int  # history entries not in any earlier package


def make_package(project: Project, out: Path) -> PackageResult:
    """Write the offline annotator's work to ``out``; refuses a project not made by unbundle."""
    info = require_offline_side(project)
    with project.tx() as session:
        user = get_user(session, info.annotator)
        cases = _package_cases(session, user.id, user.name)
        if not cases:
            raise ValidationError("nothing to package yet: no case has been labelled")
        sequence = get_setting(session, PACKAGE_SEQUENCE) + 1
        total = own_change_count(session, user.name)
        changes = total - get_setting(session, PACKAGED_CHANGES)
        manifest = PackageManifest(
            format_version=PACKAGE_FORMAT_VERSION,
            app_version=__version__,
            project_id=get_setting(session, PROJECT_ID),
            annotator=user.name,
            created_at=utcnow(),
            cases=[CaseRef(case_id=c.case_id, revision_hash=c.revision_hash) for c in cases],
            files=[],
            checksum="0" * 64,
            package_id=uuid.uuid4(),
            source_id=info.source_id,
            sequence=sequence,
            bundle_id=info.bundle_id,
        )
        content = PackageContent(annotator=user.name, cases=cases)
        secret = get_setting(session, PACKAGE_SECRET)
        if not secret:
            raise ValidationError("this offline project has no package secret (made from an"
                                  " older bundle): ask the curator for a new bundle")
        key = signing_key(str(secret))
        path = write_container(out, manifest, {CONTENT: content.model_dump_json(indent=1).encode()},
                               signer=lambda header: sign(key, header))
        put_setting(session, PACKAGE_SEQUENCE, sequence)
        put_setting(session, PACKAGED_CHANGES, total)
        put_setting(
            session,
            LAST_PACKAGE,
            {
                "package_id": str(manifest.package_id),
                "sequence": sequence,
                "created_at": manifest.created_at.isoformat(),
                "path": str(path),
            },
        )
    return PackageResult(
        path, manifest.package_id, sequence, user.name, [c.case_id for c in cases], changes
    )


def _package_cases(session: Session, annotator_id: uuid.UUID, name: str) -> list[PackageCase]:
    rows = session.execute(
        select(Annotation, Case, CaseRevision)
        .join(Case, Case.id == Annotation.case_pk)
        .join(CaseRevision, CaseRevision.id == Annotation.revision_id)
        .where(Annotation.annotator_id == annotator_id)
        .order_by(Case.case_id)
    )
    cases = []
    for annotation, case, revision in rows:
        record = annotation_record(session, annotation, name)
        if record.history:  # untouched cases carry no news
            cases.append(
                PackageCase(
                    case_id=case.case_id, revision_hash=revision.content_hash, annotation=record
                )
            )
    return cases


def unpackaged_changes(project: Project) -> int:
    """How many of the annotator's changes are in no package yet ("Send my work" shows it)."""
    info = require_offline_side(project)
    with project.read() as session:
        return own_change_count(session, info.annotator) - int(
            get_setting(session, PACKAGED_CHANGES)
        )


def read_package(
    path: Path, trust: Callable[[PackageManifest, dict[str, Any]], None] | None = None
) -> tuple[PackageManifest, PackageContent, dict[str, Any]]:
    """Read and verify a package (checksum, format version, consistent content).

    ``trust`` (the importer's signature check, which holds the key) is called with the
    manifest before any other member is read. Returns the manifest model, the content and
    the raw manifest (what the signature covers).
    """

    def verify(raw: dict[str, Any]) -> None:
        if trust is not None:
            trust(validated(path, PackageManifest, raw, MANIFEST), raw)

    container = read_container(path, PACKAGE_KIND, verify)
    manifest = container.model(PackageManifest)
    content = container.content(PackageContent)
    if content.annotator != manifest.annotator:
        raise SyncFileError(path, "damaged: content and manifest name different annotators")
    listed = [(c.case_id, c.revision_hash) for c in manifest.cases]
    if listed != [(c.case_id, c.revision_hash) for c in content.cases]:
        raise SyncFileError(path, "damaged: the manifest's case list does not match the content")
    # From version 3 a case may be listed twice, once per work row (the first rating and its
    # hidden repeat), told apart by the annotation's id; the same row twice is damage.
    per_row = manifest.format_version >= TWO_ENTRIES_PER_CASE
    entries = {(c.case_id, c.annotation.id if per_row else None) for c in content.cases}
    if len(entries) != len(content.cases) or len(
        {c.annotation.id for c in content.cases}
    ) != len(content.cases):
        raise SyncFileError(path, "damaged: a case appears twice")
    for case in content.cases:
        others = foreign_actors(case.annotation, content.annotator)
        if others:
            raise SyncFileError(path, f"damaged: {case.case_id} carries history of other people")
        foreign = {h.action for h in case.annotation.history} - ANNOTATOR_ACTIONS
        if foreign:
            raise SyncFileError(path, f"refused: {case.case_id} carries history an annotator"
                                      f" cannot make ({', '.join(sorted(foreign))})")
    return manifest, content, container.manifest
