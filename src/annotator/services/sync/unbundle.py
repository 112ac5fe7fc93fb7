"""Unbundling: the annotator's own project, built from a work bundle.

The new SQLite project carries the curator's project id (so packages written from it are
recognised at the curator), a marker naming its annotator and a fresh ``source_id`` that
orders its packages, the annotator as its only user and default identity, and the bundle's
cases, images and the annotator's earlier work with its history.
"""

from __future__ import annotations

import shutil
import uuid
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy.orm import Session

from annotator.domain.states import Role
from annotator.errors import ProjectError
from annotator.services.sync.bundle import BundleImages, read_bundle
from annotator.services.sync.recorded import take_recorded
from annotator.staging import move_into_place, staging_dir
from annotator.store.history import record
from annotator.store.image_record import ImageRecord, new_rows
from annotator.store.project import Project, is_url, open_project
from annotator.store.schema import (
    Annotation,
    Case,
    CaseRevision,
    User,
    UserRole,
    utcnow,
)
from annotator.store.settings import (
    LOCAL_USER,
    OFFLINE_PROJECT,
    PACKAGE_SECRET,
    PACKAGE_SEQUENCE,
    PACKAGED_CHANGES,
    PROJECT_ID,
    PROJECT_NAME,
    put_setting,
)
from annotator.sync.formats import BundleCase, BundleContent, BundleManifest, SyncFileError
from annotator.sync.offline import OfflineInfo
from annotator.sync.records import own_change_count
from annotator.tasks import TaskState


@dataclass(frozen=True)
class UnbundleResult:
    folder: Path
    annotator: str
    project_id: str
    case_ids: list[str]


def unbundle(
    bundle: Path, folder: str | Path, task: TaskState | None = None
) -> UnbundleResult:
    """Create the annotator's own project in ``folder`` (a new or empty folder) from a bundle.

    The project is built in a hidden sibling folder and renamed into place at the end, so a
    failure leaves nothing behind. ``task`` hears the progress and may cancel until the
    rename (``Cancelled``: the hidden folder is removed).
    """
    state = task or TaskState()
    if is_url(str(folder)):
        raise ProjectError("an annotator's offline project is a folder, not a database URL")
    state.progress(0.0, "reading the bundle")
    manifest, content, images = read_bundle(Path(bundle))
    try:
        return _unbundle(Path(bundle), folder, manifest, content, images, state)
    finally:
        images.close()


def _unbundle(bundle: Path, folder: str | Path, manifest: BundleManifest,
              content: BundleContent, images: BundleImages, state: TaskState) -> UnbundleResult:
    if content.package_secret is None:
        raise SyncFileError(bundle, "made by an older annotator without a package secret; ask"
                                    " the curator for a new bundle")
    target = Path(folder).expanduser().resolve()
    if target.exists() and (not target.is_dir() or any(target.iterdir())):
        raise ProjectError(f"{target} is not empty; choose a new folder to unbundle into")
    # Named with this process's id: a run killed half-way leaves a folder the next run removes.
    staging = staging_dir(target, "unbundle")
    try:
        project = open_project(staging, backup=False)
        try:
            state.check()
            state.progress(0.3, f"storing {len(content.cases)} case(s)")
            _fill(project, manifest, content, images)
        finally:
            project.close()
        state.check()  # the last safe point: the project is not in place yet
        state.progress(1.0, "opening the project")
        move_into_place(staging, target)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return UnbundleResult(
        target, content.annotator, manifest.project_id, [c.case_id for c in content.cases]
    )


def _fill(
    project: Project, manifest: BundleManifest, content: BundleContent, images: BundleImages
) -> None:
    name = content.annotator
    info = OfflineInfo(name, manifest.bundle_id, uuid.uuid4(), manifest.created_at, utcnow())
    with project.tx() as session:
        put_setting(session, PROJECT_ID, manifest.project_id)
        put_setting(session, OFFLINE_PROJECT, info.to_json())
        put_setting(session, LOCAL_USER, name)
        put_setting(session, PACKAGE_SEQUENCE, 0)
        put_setting(session, PACKAGE_SECRET, content.package_secret)
        if manifest.project_name:
            put_setting(session, PROJECT_NAME, manifest.project_name)
        user = User(id=content.annotator_id, name=name)
        user.roles.append(UserRole(role=Role.ANNOTATOR.value))
        session.add(user)
        session.flush()
        for bc in content.cases:
            _add_case(session, project, user, bc, images)
        record(session, name, "unbundled", bundle_id=str(manifest.bundle_id))
        session.flush()
        # The earlier work came from the curator: it is not a change still to be sent.
        put_setting(session, PACKAGED_CHANGES, own_change_count(session, name))


def _add_case(
    session: Session, project: Project, user: User, bc: BundleCase, images: BundleImages
) -> None:
    rev = bc.revision
    case = Case(id=bc.case_uuid, case_id=bc.case_id, state=bc.case_state)
    session.add(case)
    session.flush()
    session.add(CaseRevision(**rev.model_dump(), case_pk=case.id, source_file="(work bundle)"))
    session.flush()
    for image in bc.images:
        project.images.put(session, images[image.sha256], image.media_type)
    session.add_all(new_rows(session, rev.id,
                             [ImageRecord(**image.model_dump()) for image in bc.images]))
    case.current_revision_id = rev.id
    a = bc.annotation
    annotation = Annotation(
        id=a.id, case_pk=case.id, annotator_id=user.id, revision_id=rev.id, created_at=a.created_at
    )
    take_recorded(session, annotation, a, a.history, updated_at=a.updated_at)
