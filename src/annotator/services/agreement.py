"""The agreement report of a project, for curators only (annotators stay blind).

Loads the basis from the store (every case's current draft, the labels each annotator
submitted, submission times, progress per annotator) and hands it to the pure core
(:mod:`annotator.agreement.report`).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Collection
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.agreement.html_report import render_html
from annotator.agreement.options import ReportOptions
from annotator.agreement.project_data import (
    AnnotatorProgress,
    CaseRecord,
    ProjectBasis,
    Submission,
    build_basis,
)
from annotator.agreement.report import build_report
from annotator.agreement.tables import TABLE8_HEADER, table8_rows
from annotator.domain.permissions import Action
from annotator.domain.states import AnnotationState
from annotator.export.agreement import AgreementPart, release_agreement, release_basis
from annotator.services import agreement_cache
from annotator.services.users import require, takes_work
from annotator.store.project import Project
from annotator.store.schema import Annotation, Case, CaseRevision, User, UserRole
from annotator.store.settings import DEID_SEED

DOING = "viewing inter-annotator agreement"


def load_basis(session: Session) -> ProjectBasis:
    """Every case with its active annotations, as the core's basis (rules applied there)."""
    cases = list(session.scalars(select(Case).order_by(Case.case_id)))
    revision_ids = [c.current_revision_id for c in cases if c.current_revision_id is not None]
    contents = {
        r.id: r.content
        for r in session.scalars(select(CaseRevision).where(CaseRevision.id.in_(revision_ids)))
    }
    active = list(session.scalars(select(Annotation).where(Annotation.withdrawn_at.is_(None))))
    by_case: dict[Any, list[Annotation]] = defaultdict(list)
    for annotation in active:
        by_case[annotation.case_pk].append(annotation)
    records = []
    for case in cases:
        rows = by_case.get(case.id, [])
        submissions = [
            Submission(str(a.annotator_id), dict(a.submitted_labels or {}), a.submitted_at)
            for a in rows
            if a.state == AnnotationState.SUBMITTED.value
        ]
        records.append(CaseRecord(
            case.case_id,
            case.state,
            contents.get(case.current_revision_id, {}) if case.current_revision_id else {},
            submissions,
            tuple(str(a.annotator_id) for a in rows),
            case.state_reason or "",
        ))
    progress = []
    with_work = {a.annotator_id for a in active}
    for user in session.scalars(select(User).order_by(User.name)):
        if user.id not in with_work and not takes_work(user):
            continue
        mine = [a for a in active if a.annotator_id == user.id]
        submitted = sum(a.state == AnnotationState.SUBMITTED.value for a in mine)
        progress.append(AnnotatorProgress(str(user.id), user.name, len(mine), submitted))
    return build_basis(records, progress)


def agreement_report(
    project: Project, actor: str, options: ReportOptions | None = None
) -> dict[str, Any]:
    """The agreement report (see :func:`annotator.agreement.report.build_report`).

    Raises PermissionDenied unless ``actor`` has the curator role.
    """
    with project.read() as session:
        require(session, actor, Action.READ_AGREEMENT)
        key = agreement_cache.input_key("project", input_rows(session), options)
        cached = agreement_cache.lookup(session, "project", key)
        if cached is not None:
            return cached
        basis = load_basis(session)  # in the snapshot the key was computed from
    return agreement_cache.store(project, "project", key, build_report(basis, options))


def release_report(project: Project, released: Collection[str]) -> dict[str, Any]:
    """The agreement report a release ships: the released cases only, reviewers as pseudonyms.

    Cached like :func:`agreement_report`, keyed by the inputs and the released case ids.
    The caller checks that the actor is a curator.
    """
    seed = project.setting(DEID_SEED)
    keep = sorted(released)
    with project.read() as session:
        key = agreement_cache.input_key("release", [seed, keep, input_rows(session)])
        cached = agreement_cache.lookup(session, "release", key)
        if cached is not None:
            return cached
        basis = load_basis(session)
    report = build_report(release_basis(basis, seed, keep))
    return agreement_cache.store(project, "release", key, report)


def release_agreement_part(project: Project, released: Collection[str]) -> AgreementPart:
    """What a release carries of the agreement report: JSON, HTML and the Table 8 rows."""
    report = release_report(project, released)
    return release_agreement(report, html=render_html(report), header=TABLE8_HEADER,
                             rows=table8_rows(report))


def input_rows(session: Session) -> list[Any]:
    """What :func:`load_basis` reads, as row identities and versions, without the JSON.

    A case's current revision is named by its content hash (draft and images); an
    annotation's submitted labels change only with its version, state or submission time
    (every ORM update bumps ``version``); people by name and roles. Reading these is a
    fraction of decoding every draft and label map, so an unchanged project is answered
    from the cache quickly.
    """
    cases = session.execute(
        select(Case.case_id, Case.state, Case.state_reason, Case.version,
               CaseRevision.content_hash)
        .outerjoin(CaseRevision, CaseRevision.id == Case.current_revision_id)
        .order_by(Case.case_id)
    ).all()
    annotations = session.execute(
        select(Annotation.id, Annotation.case_pk, Annotation.annotator_id, Annotation.state,
               Annotation.version, Annotation.submitted_at, Annotation.withdrawn_at)
        .order_by(Annotation.id)
    ).all()
    users = session.execute(
        select(User.id, User.name, UserRole.role)
        .outerjoin(UserRole, UserRole.user_id == User.id)
        .order_by(User.name, UserRole.role)
    ).all()
    return [[list(map(str, row)) for row in rows] for rows in (cases, annotations, users)]


def forget_cached_report(project: Project) -> None:
    """Drop the cached reports, so the next one is computed afresh."""
    agreement_cache.forget(project)

