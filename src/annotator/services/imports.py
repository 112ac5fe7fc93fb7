"""Applying draft-case files to the project: new cases, updates, new revisions.

Reading and checking the files is :mod:`annotator.ingest`; this module decides, per case and
in one transaction per case, what the store does with each candidate.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.domain.case import content_hash
from annotator.domain.permissions import Action
from annotator.domain.states import AnnotationState, CaseState
from annotator.errors import AnnotatorError
from annotator.imaging.probe import PNG
from annotator.ingest import CaseCandidate
from annotator.ingest.deidentify import same_raster
from annotator.ingest.reader import iter_case_sources
from annotator.ingest.sources import find_case_files
from annotator.services.pixel_review import checked_hashes, redacted_hashes, store_checks
from annotator.services.review.caseflow import send_for_recheck
from annotator.services.users import require
from annotator.store.history import record
from annotator.store.image_record import new_rows
from annotator.store.project import Project
from annotator.store.schema import (
    Adjudication,
    Annotation,
    Case,
    CaseImage,
    CaseRevision,
    utcnow,
)
from annotator.store.settings import DEID_SEED
from annotator.tasks import Cancelled, TaskState

STORED = ("added", "updated", "new_version")  # outcomes that wrote a case


@dataclass
class CaseOutcome:
    """What happened to one case of an import."""

    case_id: str | None
    file: str
    status: str  # added | updated | unchanged | new_version | refused | rejected
    reason: str = ""
    field: str | None = None
    needs_fix: list[str] = dataclasses.field(default_factory=list)
    warnings: list[str] = dataclasses.field(default_factory=list)
    removed: list[str] = dataclasses.field(default_factory=list)
    normalised: dict[str, Any] = dataclasses.field(default_factory=dict)
    flagged_images: int = 0  # images to review for burned-in text (redact --list)


@dataclass
class ImportReport:
    outcomes: list[CaseOutcome] = dataclasses.field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for o in self.outcomes if o.status == status)

    @property
    def failed(self) -> bool:
        return any(o.status in ("refused", "rejected") for o in self.outcomes)

    @property
    def changed_nothing(self) -> bool:
        return all(o.status in ("unchanged", "refused", "rejected") for o in self.outcomes)


def _problem_text(problem: Any) -> str:
    return f"{problem.field}: {problem.message}" if problem.field else str(problem.message)


def _problem_dict(problem: Any) -> dict[str, str]:
    return {"code": problem.code, "field": problem.field, "message": problem.message}


def import_cases(
    project: Project,
    actor: str,
    paths: Sequence[Path],
    *,
    new_version: bool = False,
    deidentify: bool = True,
    task: TaskState | None = None,
    check_pixels: bool = True,
) -> ImportReport:
    """Import draft case files or folders; good cases go in even when others fail.

    ``task`` hears the progress (by files read) and may cancel: the import stops after the
    case it is storing, keeps every case stored so far (each whole) and raises
    ``Cancelled`` carrying the report of those. ``check_pixels=False`` leaves the burned-in
    text check out (the bench measures its cost); the images are then unchecked, and export
    refuses them until ``redact --scan``.
    """
    with project.read() as session:
        require(session, actor, Action.IMPORT_CASES)
        checked = set(checked_hashes(session))
    state = task or TaskState()
    seed = project.setting(DEID_SEED)
    report = ImportReport()
    total = max(len(find_case_files(list(paths))[0]), 1)
    files: set[Path] = set()
    for part in iter_case_sources(list(paths), deidentify=deidentify, seed=seed,
                                  checked=frozenset(checked), check_pixels=check_pixels):
        for rejection in part.rejected:
            report.outcomes.append(
                CaseOutcome(
                    rejection.case_id,
                    str(rejection.file),
                    "rejected",
                    rejection.reason,
                    rejection.field,
                )
            )
        report.outcomes += _apply_batch(project, actor, part.accepted, new_version, state,
                                        checked)
        files |= {c.file for c in part.accepted} | {Path(r.file) for r in part.rejected}
        state.progress(len(files) / total, f"{len(report.outcomes)} case(s) read")
        if state.cancelled:
            report.outcomes.sort(key=lambda o: (o.file, o.case_id or ""))
            stored = sum(1 for o in report.outcomes if o.status in STORED)
            raise Cancelled(f"import cancelled: {stored} case(s) were stored, each whole; "
                            "import again to add the rest", partial=report)
    report.outcomes.sort(key=lambda o: (o.file, o.case_id or ""))
    return report


def _apply_batch(
    project: Project,
    actor: str,
    candidates: list[CaseCandidate],
    new_version: bool,
    state: TaskState,
    checked: set[str],
) -> list[CaseOutcome]:
    """Store a batch of cases in one transaction, each case in its own savepoint.

    A case refused half-way rolls back to its savepoint only, so every case goes in whole
    or not at all, while the batch pays for one commit (and its disk flush), not one each.
    A cancel stops the batch between two cases; the cases stored so far are committed.
    """
    outcomes = []
    with project.tx() as session, project.images.batch():
        # Which images the project holds already: one query per batch, not one per image.
        known = project.images.stored(session, (i.sha256 for c in candidates for i in c.images))
        for candidate in candidates:
            if state.cancelled:  # a safe point: between two whole cases
                break
            stored = set(known)  # grows with this case's images only if the case stays
            try:
                with session.begin_nested():
                    outcome = _apply(session, project, actor, candidate, new_version, stored)
                    if outcome.status != "unchanged":
                        outcome.flagged_images = store_checks(
                            session, candidate.images, candidate.content, checked)
                known = stored
            except AnnotatorError as exc:
                outcome = CaseOutcome(candidate.case_id, str(candidate.file), "refused",
                                      str(exc))
            outcomes.append(outcome)
    return outcomes


def _apply(
    session: Session, project: Project, actor: str, cand: CaseCandidate, new_version: bool,
    stored: set[str],
) -> CaseOutcome:
    outcome = CaseOutcome(
        cand.case_id,
        str(cand.file),
        "added",
        needs_fix=[_problem_text(p) for p in cand.problems],
        warnings=[_problem_text(p) for p in cand.warnings],
        removed=sorted(
            {f"{img.draft_path}: {item}" for img in cand.images for item in img.removed}
        ),
        normalised=dict(cand.original_values),
    )
    case = session.scalars(select(Case).where(Case.case_id == cand.case_id)).first()
    if case is None:
        case = Case(case_id=cand.case_id, state=CaseState.ANNOTATING.value)
        session.add(case)
        session.flush()
        revision = _add_revision(session, project, actor, case, cand, 1, stored)
        record(
            session,
            actor,
            "case_imported",
            case_pk=case.id,
            after={"revision": 1, "hash": cand.content_hash},
            file=str(cand.file),
        )
        return outcome
    current = session.get(CaseRevision, case.current_revision_id)
    assert current is not None
    if current.content_hash == cand.content_hash or _same_but_encoding(
            session, project, current, cand):
        outcome.status = "unchanged"
        return outcome
    annotations = list(session.scalars(select(Annotation).where(Annotation.case_pk == case.id)))
    touched = [a for a in annotations if a.labels or a.state != AnnotationState.ASSIGNED.value]
    number = 1 + (
        session.scalar(select(func.max(CaseRevision.number)).where(CaseRevision.case_pk == case.id))
        or 0
    )
    if not touched:
        revision = _add_revision(session, project, actor, case, cand, number, stored)
        for annotation in annotations:
            annotation.revision_id = revision.id
        outcome.status = "updated"
        record(session, actor, "case_updated", case_pk=case.id,
               before={"hash": current.content_hash},
               after={"revision": number, "hash": cand.content_hash})
        return outcome
    if not new_version:
        outcome.status = "refused"
        outcome.reason = (
            f"case {cand.case_id} differs from the stored draft and has been annotated "
            f"({len(touched)} annotation(s)); import with --new-version to store a new revision "
            "and send those annotations back for re-check"
        )
        return outcome
    revision = _add_revision(session, project, actor, case, cand, number, stored)
    for annotation in annotations:
        annotation.revision_id = revision.id
        if annotation in touched and annotation.withdrawn_at is None:
            send_for_recheck(session, case, annotation, actor, number)
    for decision in session.scalars(
        select(Adjudication).where(
            Adjudication.case_pk == case.id, Adjudication.superseded.is_(False)
        )
    ):
        decision.superseded = True
    before_state = case.state
    if case.state != CaseState.EXCLUDED.value:
        case.state = CaseState.ANNOTATING.value
        case.green_lit_at = None
        case.green_lit_by = None
    record(
        session,
        actor,
        "case_new_version",
        case_pk=case.id,
        before={"hash": current.content_hash, "state": before_state},
        after={"revision": number, "hash": cand.content_hash, "state": case.state},
    )
    outcome.status = "new_version"
    return outcome


def _add_revision(
    session: Session, project: Project, actor: str, case: Case, cand: CaseCandidate, number: int,
    stored: set[str],
) -> CaseRevision:
    revision = CaseRevision(
        case_pk=case.id,
        number=number,
        content_hash=cand.content_hash,
        content=cand.content,
        original_values=dict(cand.original_values),
        problems=[_problem_dict(p) for p in cand.problems],
        warnings=[_problem_dict(p) for p in cand.warnings],
        source_file=str(cand.file),
        imported_by=actor,
    )
    session.add(revision)
    session.flush()
    # An image a curator redacted keeps its redaction: the stored, redacted bytes stand in
    # for the draft's original, which never enters the store again.
    redacted = redacted_hashes(session, [image.sha256 for image in cand.images])
    # Blobs first (each an INSERT of its own), then the image rows, which the next flush
    # writes together: no flush per image.
    rows = new_rows(session, revision.id, cand.images)
    for image, row in zip(cand.images, rows, strict=True):
        if image.sha256 in redacted:
            row.sha256 = redacted[image.sha256]
        else:
            project.images.put(session, image.data, image.media_type, known=stored,
                               sha=image.sha256)
            stored.add(image.sha256)
    session.add_all(rows)
    case.current_revision_id = revision.id
    case.updated_at = utcnow()
    return revision


def _same_but_encoding(
    session: Session, project: Project, current: CaseRevision, cand: CaseCandidate
) -> bool:
    """Whether ``cand`` is the stored revision but for how its PNGs were re-encoded.

    A re-encoded PNG's bytes (and so the case's hash) depend on the encoder's settings and
    zlib: a draft imported by another version is unchanged when its case content is, and
    each image that differs decodes to the very pixels of the stored one.
    """
    stored = {row.draft_path: row for row in session.scalars(
        select(CaseImage).where(CaseImage.revision_id == current.id))}
    images: dict[str, str] = {}
    for image in cand.images:
        row = stored.get(image.draft_path)
        if row is None or row.media_type != image.media_type:
            return False
        images[image.draft_path] = row.sha256
    if content_hash({"case": cand.content, "images": images}) != current.content_hash:
        return False  # the text or the set of images changed: no need to decode anything
    for image in cand.images:
        old = stored[image.draft_path].sha256
        if image.sha256 != old and not (
                image.media_type == PNG
                and same_raster(project.images.get(session, old), image.data)):
            return False
    return True
