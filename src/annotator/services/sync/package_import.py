"""Importing annotation packages at the curator: idempotent, per case all-or-nothing.

A package is refused whole (nothing applied, :class:`SyncFileError`) when it cannot be read,
is damaged, is of a newer format, belongs to another project or names an unknown annotator.
Otherwise the import is one transaction with one savepoint per case, and each case is
``added`` (the annotator's work and history applied), ``unchanged`` (nothing new, or older
than work already here), ``stale`` (made on a revision that has since changed: not merged,
the annotation goes back to in_progress for re-check) or ``refused`` (not assigned to the
annotator any more, or the case is already in review or later, or the labels are invalid).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.domain import labels as L
from annotator.domain.permissions import Action
from annotator.domain.states import AnnotationState, CaseState
from annotator.domain.suggestions import figures
from annotator.errors import AnnotatorError, NotFound
from annotator.services.review.base import active_annotation
from annotator.services.review.caseflow import refresh_case_state, send_for_recheck
from annotator.services.sync.package import read_package
from annotator.services.sync.recorded import take_recorded
from annotator.services.users import get_user, require
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.repeats import WITH_REPEATS
from annotator.store.schema import (
    Annotation,
    Case,
    CaseRevision,
    HistoryEntry,
    SyncPackage,
    User,
    utcnow,
)
from annotator.store.settings import PROJECT_ID, get_setting
from annotator.sync.formats import HistoryItem, PackageCase, PackageManifest, SyncFileError
from annotator.sync.import_report import STATUSES, CaseResult, PackageImportReport
from annotator.sync.offline import offline_info
from annotator.sync.signing import bundle_key, verify
from annotator.tasks import TaskState

# What the package's row keeps of its manifest, under the same names.
_KEPT = {"source_id", "sequence", "bundle_id", "created_at", "checksum"}


class _CaseRefused(AnnotatorError):
    """Raised inside a case's savepoint: that case is rolled back and reported refused."""


def import_package(project: Project, actor: str, path: Path) -> PackageImportReport:
    """Import one package into the curator's project (see the module docstring)."""
    info = offline_info(project)
    if info is not None:
        raise SyncFileError(
            path, f"packages are imported in the curator's project, not {info.annotator}'s copy"
        )
    with project.tx() as session:
        require(session, actor, Action.IMPORT_PACKAGE)
        found: list[User] = []

        def trust(manifest: PackageManifest, raw: dict[str, Any]) -> None:
            found.append(_signed_by(session, path, manifest, raw))

        # The signature is checked on the manifest before any other member is inflated.
        manifest, content, _ = read_package(Path(path), trust)
        user = found[0]
        report = PackageImportReport(
            str(path),
            str(manifest.package_id),
            manifest.annotator,
            manifest.sequence,
            manifest.created_at,
        )
        report.note = _already(session, manifest)
        if report.note:
            report.cases = [CaseResult(c.case_id, "unchanged") for c in content.cases]
            return report
        for pcase in content.cases:
            try:
                with session.begin_nested():
                    result = _apply_case(session, actor, user, manifest, pcase)
            except _CaseRefused as exc:
                result = CaseResult(pcase.case_id, "refused", str(exc))
            report.cases.append(result)
        kept = manifest.model_dump(include=_KEPT)
        outcome = {s: [c.case_id for c in report.cases if c.status == s] for s in STATUSES}
        session.add(SyncPackage(**kept, id=manifest.package_id, annotator_id=user.id,
                                imported_at=utcnow(), imported_by=actor, outcome=outcome))
        record(
            session,
            actor,
            "package_imported",
            after={s: report.count(s) for s in STATUSES},
            package_id=str(manifest.package_id),
            annotator=user.name,
        )
    return report


def _signed_by(session: Session, path: Path, manifest: PackageManifest,
               raw: dict[str, Any]) -> User:
    """The annotator who signed the package for this project; SyncFileError otherwise."""
    here = str(get_setting(session, PROJECT_ID))
    if manifest.project_id != here:
        raise SyncFileError(
            path,
            f"made for another project (id {manifest.project_id}); this project's id is "
            f"{here}: nothing was imported",
        )
    try:
        user = get_user(session, manifest.annotator)
    except NotFound:
        raise SyncFileError(
            path, f"{manifest.annotator!r} is not a user of this project: nothing imported"
        ) from None
    key = bundle_key(session, manifest.bundle_id, user.id)
    if key is None or not verify(key, raw, manifest.signature):
        raise SyncFileError(
            path,
            "the package's signature does not match a bundle made for "
            f"{manifest.annotator} in this project (forged, altered or unsigned): nothing "
            "was imported",
        )
    return user


def _already(session: Session, manifest: PackageManifest) -> str:
    """Why the whole package changes nothing (already imported, or older), or ''."""
    same = session.get(SyncPackage, manifest.package_id)
    if same is not None:
        return f"package already imported on {same.imported_at:%Y-%m-%d %H:%M}; nothing changed"
    newer = session.scalars(
        select(SyncPackage)
        .where(
            SyncPackage.source_id == manifest.source_id,
            SyncPackage.sequence >= manifest.sequence,
        )
        .order_by(SyncPackage.sequence.desc())
    ).first()
    if newer is not None:
        return (
            f"package {manifest.sequence} is older than package {newer.sequence} from the same "
            f"offline project, imported on {newer.imported_at:%Y-%m-%d %H:%M}; nothing changed"
        )
    return ""


def _apply_case(
    session: Session, actor: str, user: User, manifest: PackageManifest, pcase: PackageCase
) -> CaseResult:
    case = session.scalars(select(Case).where(Case.case_id == pcase.case_id)).first()
    if case is None:
        raise _CaseRefused(f"no case {pcase.case_id} in this project")
    first = active_annotation(session, case, user.id)
    if first is None:
        raise _CaseRefused(f"no longer assigned to {user.name}")
    annotation = _row_of(session, first, pcase.annotation.id)
    repeat = annotation.repeat_of is not None
    incoming = pcase.annotation.history
    known = set(
        session.scalars(
            select(HistoryEntry.id).where(HistoryEntry.id.in_([h.id for h in incoming]))
        )
    )
    new = _not_after(utcnow(), [h for h in incoming if h.id not in known])
    if not new:
        return CaseResult(pcase.case_id, "unchanged", "nothing new")
    latest_here = session.scalar(
        select(func.max(HistoryEntry.at)).where(
            HistoryEntry.case_pk == annotation.case_pk,  # the index: history by case
            HistoryEntry.annotation_id == annotation.id, HistoryEntry.actor == user.name
        )
    )
    if latest_here is not None and latest_here > max(h.at for h in new):
        return CaseResult(
            pcase.case_id,
            "unchanged",
            f"older than {user.name}'s work already here "
            f"(last change {latest_here:%Y-%m-%d %H:%M})",
        )
    if case.state != CaseState.ANNOTATING.value and not repeat:
        raise _CaseRefused(f"the case is already {case.state.replace('_', ' ')}")
    current = session.get(CaseRevision, case.current_revision_id)
    assert current is not None
    if pcase.revision_hash != current.content_hash:
        return _stale(session, actor, case, annotation, manifest, len(new), current.number)
    _check_labels(pcase, figures(current.content))
    a = pcase.annotation
    take_recorded(session, annotation, a, new)
    record(
        session,
        actor,
        "package_applied",
        case_pk=case.id,
        annotation_id=annotation.id,
        after={"state": a.state, "entries": len(new)},
        package_id=str(manifest.package_id),
    )
    session.flush()
    if not repeat:  # a hidden repeat never moves the case
        refresh_case_state(session, case, user.name)
    return CaseResult(pcase.case_id, "added", f"{len(new)} change(s), {a.state.replace('_', ' ')}")


def _row_of(session: Session, first: Annotation, record_id: uuid.UUID) -> Annotation:
    """The row a package entry is work on, by the entry's id (a bundle carries the id of the
    row it served): the first rating or one of its hidden repeats. Work on a first rating
    never lands on its repeat, nor a repeat's on the first or a later repeat, whatever is
    due when the package arrives. An id of neither (work from before a reassignment) goes
    to the first rating, as before repeats."""
    if record_id == first.id:
        return first
    row = session.scalars(
        select(Annotation)
        .where(Annotation.id == record_id, Annotation.repeat_of == first.id)
        .execution_options(**WITH_REPEATS)
    ).first()
    if row is None:
        return first
    if row.withdrawn_at is not None:
        raise _CaseRefused("that work was withdrawn")
    return row


def _stale(
    session: Session,
    actor: str,
    case: Case,
    annotation: Annotation,
    manifest: PackageManifest,
    entries: int,
    number: int,
) -> CaseResult:
    """Work on an earlier revision: keep it out, send the annotation back for re-check."""
    send_for_recheck(
        session,
        case,
        annotation,
        actor,
        number,
        reason="package made on an earlier revision of the case; not merged",
        package_id=str(manifest.package_id),
        entries_not_merged=entries,
    )
    session.flush()
    refresh_case_state(session, case, actor)
    return CaseResult(
        case.case_id,
        "stale",
        f"made on an earlier revision (now revision {number}); not merged, back to re-check",
    )


def _not_after(now: datetime, items: list[HistoryItem]) -> list[HistoryItem]:
    """History stamped in the future (a laptop clock ahead) is stamped now, so it cannot make
    the annotator's later, correctly stamped packages look older than it."""
    return [h.model_copy(update={"at": now}) if h.at > now else h for h in items]


def _check_labels(pcase: PackageCase, figs: list[str]) -> None:
    labels = pcase.annotation.labels
    try:
        for key, value in labels.items():
            L.validate_edit(L.LabelEdit(key, value), figs)
    except AnnotatorError as exc:
        raise _CaseRefused(f"invalid label: {exc}") from None
    try:
        for key, value in (pcase.annotation.submitted_labels or {}).items():
            L.validate_edit(L.LabelEdit(key, value), figs)
    except (AnnotatorError, TypeError, ValueError, KeyError) as exc:
        raise _CaseRefused(f"invalid submitted label: {exc}") from None
    if pcase.annotation.state == AnnotationState.SUBMITTED.value:
        missing = L.missing_for_submit(labels, figs)
        if missing or pcase.annotation.submitted_labels is None:
            raise _CaseRefused("submitted but incomplete: " + "; ".join(missing or ["no labels"]))


def import_packages(
    project: Project, actor: str, paths: list[Path], task: TaskState | None = None
) -> list[PackageImportReport | SyncFileError]:
    """Import several packages, each in its own transaction; refusals are returned, not raised.

    ``task`` hears the progress and may cancel between packages (``Cancelled`` carrying the
    results of the packages imported, each whole).
    """
    state = task or TaskState()
    results: list[PackageImportReport | SyncFileError] = []
    for number, path in enumerate(paths):
        state.check(partial=results)  # a safe point: between two whole packages
        state.progress(number / max(len(paths), 1), f"package {Path(path).name}")
        try:
            results.append(import_package(project, actor, path))
        except SyncFileError as exc:
            results.append(exc)
    state.progress(1.0, f"{len(paths)} package(s) read")
    return results


__all__ = ["CaseResult", "PackageImportReport", "import_package", "import_packages"]
