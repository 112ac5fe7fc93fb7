"""Work bundles: the curator's file for one annotator (unbundling is sync.unbundle).

A bundle holds the annotator's assigned cases (current revisions, already de-identified at
import, image files named neutrally: see sync.neutral_paths), the images those revisions use,
and the annotator's own annotation and history on each case: nothing of anybody else (no
other annotator's labels, no curator or adjudicator names).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator import __version__
from annotator.domain.permissions import Action
from annotator.errors import ValidationError
from annotator.services.pixel_status import unresolved
from annotator.services.users import get_user, require, require_takes_work
from annotator.store.history import record
from annotator.store.image_record import ImageRecord
from annotator.store.project import Project
from annotator.store.repeats import case_state_for_rater, served
from annotator.store.schema import (
    Annotation,
    Case,
    CaseImage,
    CaseRevision,
    SyncBundle,
    User,
    utcnow,
)
from annotator.store.settings import PROJECT_ID, PROJECT_NAME, get_setting
from annotator.sync.container import CONTENT, Container, read_container, write_container
from annotator.sync.formats import (
    BUNDLE_FORMAT_VERSION,
    BUNDLE_KIND,
    BundleCase,
    BundleContent,
    BundleImage,
    BundleManifest,
    CaseRef,
    RevisionRecord,
    SyncFileError,
)
from annotator.sync.neutral_paths import neutralise
from annotator.sync.offline import require_curator_side
from annotator.sync.records import annotation_record, foreign_actors
from annotator.sync.signing import new_secret, remember_bundle_key
from annotator.tasks import TaskState


@dataclass(frozen=True)
class BundleResult:
    path: Path
    bundle_id: uuid.UUID
    annotator: str
    case_ids: list[str]
    images: int
    left_out: dict[str, str] = field(default_factory=dict)  # case id -> why not bundled


def image_member(sha: str) -> str:
    return f"images/{sha}"


def make_bundle(
    project: Project, actor: str, annotator: str, out: Path, task: TaskState | None = None
) -> BundleResult:
    """Write ``annotator``'s work bundle to ``out`` (curators only) and record it.

    ``task`` hears the progress and may cancel until the file is written (``Cancelled``:
    no file, no record of a bundle).
    """
    state = task or TaskState()
    require_curator_side(project, "bundling")
    with project.tx() as session:
        state.progress(0.0, f"reading {annotator}'s cases and images")
        require(session, actor, Action.BUNDLE)
        user = get_user(session, annotator)
        require_takes_work(user)
        cases, images, left_out = _bundle_cases(session, project, user)
        if not cases and left_out:
            raise ValidationError(f"every case of {annotator} waits for an image review: "
                                  + "; ".join(left_out.values()))
        if not cases:
            raise ValidationError(f"{annotator} has no assigned cases; there is nothing to bundle")
        bundle = SyncBundle(
            id=uuid.uuid4(), annotator_id=user.id, created_by=actor, created_at=utcnow()
        )
        bundle.case_ids = [c.case_id for c in cases]
        manifest = BundleManifest(
            format_version=BUNDLE_FORMAT_VERSION,
            app_version=__version__,
            project_id=get_setting(session, PROJECT_ID),
            annotator=user.name,
            created_at=bundle.created_at,
            cases=[
                CaseRef(case_id=c.case_id, revision_hash=c.revision.content_hash) for c in cases
            ],
            files=[],
            checksum="0" * 64,
            bundle_id=bundle.id,
            project_name=_project_name(session),
        )
        secret = new_secret()
        remember_bundle_key(session, bundle.id, user.id, secret)
        content = BundleContent(annotator_id=user.id, annotator=user.name, cases=cases,
                                package_secret=secret)
        members = {CONTENT: content.model_dump_json(indent=1).encode()}
        members.update({image_member(sha): data for sha, data in images.items()})
        state.check()  # the last safe point: nothing is written yet
        state.progress(0.5, f"writing the bundle ({len(images)} image(s))")
        # Written inside the transaction: a failed write leaves no record of a bundle.
        path = write_container(out, manifest, members)
        session.add(bundle)
        record(
            session,
            actor,
            "bundled",
            after={"annotator": user.name, "cases": len(cases)},
            bundle_id=str(bundle.id),
        )
    return BundleResult(path, bundle.id, user.name, bundle.case_ids, len(images), left_out)


def _project_name(session: Session) -> str | None:
    return get_setting(session, PROJECT_NAME)


def _bundle_cases(
    session: Session, project: Project, user: User
) -> tuple[list[BundleCase], dict[str, bytes], dict[str, str]]:
    """The cases to bundle and their images, and the cases left out with the reason: an
    image that may show burned-in text and that no curator reviewed (an exam missing one
    image could not be labelled fairly)."""
    rows = session.execute(
        select(Annotation, Case)
        .join(Case, Case.id == Annotation.case_pk)
        .where(Annotation.annotator_id == user.id, Annotation.withdrawn_at.is_(None))
        .order_by(Case.case_id)
    ).all()
    pending = unresolved(session, [case.case_id for _, case in rows])
    never = [p for p in pending if p.status == "unchecked"]
    if never:
        raise ValidationError(f"{len(never)} image(s) were never checked for burned-in text"
                              " (run: annotator redact --scan), e.g. " + never[0].describe())
    left_out: dict[str, str] = {}
    for item in pending:
        left_out.setdefault(item.case_id, item.describe())
    cases: list[BundleCase] = []
    images: dict[str, bytes] = {}
    for first, case in rows:
        if case.case_id in left_out:
            continue
        annotation = served(session, first)  # a due hidden repeat travels as any assignment
        revision = session.get(CaseRevision, case.current_revision_id)
        assert revision is not None
        case_images = list(
            session.scalars(
                select(CaseImage)
                .where(CaseImage.revision_id == revision.id)
                .order_by(CaseImage.draft_path)
            )
        )
        for image in case_images:
            if image.sha256 not in images:
                images[image.sha256] = project.images.get(session, image.sha256)
        # Uploaded file names stay here: the laptop sees images/1.png, images/2.dcm...
        record_, images_ = neutralise(
            RevisionRecord(
                id=revision.id,
                number=revision.number,
                content_hash=revision.content_hash,
                content=revision.content,
                original_values=dict(revision.original_values),
                problems=list(revision.problems),
                warnings=list(revision.warnings),
            ),
            [_image_record(i) for i in case_images],
        )
        cases.append(
            BundleCase(
                case_uuid=case.id,
                case_id=case.case_id,
                case_state=case_state_for_rater(  # type: ignore[arg-type]  # CHECK-constrained
                    case.state, annotation),
                revision=record_,
                images=images_,
                annotation=annotation_record(session, annotation, user.name),
            )
        )
    return cases, images, left_out


def _image_record(image: CaseImage) -> BundleImage:
    return BundleImage(**ImageRecord.from_row(image).as_dict())


class BundleImages(Mapping[str, bytes]):
    """A bundle's images by SHA-256, each read (and checked again) only when asked for."""

    def __init__(self, container: Container, members: dict[str, str]) -> None:
        self._container, self._members = container, members

    def __getitem__(self, sha256: str) -> bytes:
        return self._container.member(self._members[sha256])

    def __iter__(self) -> Iterator[str]:
        return iter(self._members)

    def __len__(self) -> int:
        return len(self._members)

    def close(self) -> None:
        """Close the bundle file the images are read from."""
        self._container.close()


def read_bundle(path: Path) -> tuple[BundleManifest, BundleContent, BundleImages]:
    """Read and verify a bundle: manifest, content and its images by SHA-256."""
    container = read_container(path, BUNDLE_KIND)
    manifest = container.model(BundleManifest)
    content = container.content(BundleContent)
    if content.annotator != manifest.annotator:
        raise SyncFileError(path, "damaged: content and manifest name different annotators")
    images: dict[str, str] = {}
    for case in content.cases:
        if foreign_actors(case.annotation, content.annotator):
            raise SyncFileError(path, f"damaged: {case.case_id} carries another person's history")
        for image in case.images:
            member = image_member(image.sha256)
            if member not in container.listed:
                raise SyncFileError(path, f"damaged: image {image.sha256[:12]} is missing")
            images[image.sha256] = member
    return manifest, content, BundleImages(container, images)
