"""The agreement report of a project, for curators only (annotators stay blind).

Loads the basis from the store (every case's current draft, the labels each annotator
submitted, submission times, progress per annotator) and hands it to the pure core
(:mod:`annotator.agreement.report`).
"""

from __future__ import annotations

import hashlib
import uuid
from collections import defaultdict
from collections.abc import Collection
from functools import lru_cache
from typing import Any

from sqlalchemy import String, cast, delete, func, insert, select
from sqlalchemy import case as sql_case
from sqlalchemy.orm import Session

from annotator.agreement.case_stats import add_stats, case_stats, estimates
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
from annotator.store.schema import AgreementStats, Annotation, Case, CaseRevision, User, UserRole
from annotator.store.settings import DEID_SEED

DOING = "viewing inter-annotator agreement"


def load_basis(session: Session, case_ids: Collection[str] | None = None) -> ProjectBasis:
    """Every case (or only those in ``case_ids``) with its active annotations, as the core's
    basis (rules applied there). The annotators' progress counts their work on every case
    either way, so the basis of named cases is the whole basis's, restricted to them."""
    cases = _cases(session, case_ids)
    query = select(Annotation).where(Annotation.withdrawn_at.is_(None))
    if case_ids is None:
        active = list(session.scalars(query))
    else:
        pks = [c.id for c in cases]
        active = [a for start in range(0, len(pks), _CHUNK) for a in session.scalars(
            query.where(Annotation.case_pk.in_(pks[start:start + _CHUNK])))]
    return build_basis(_records(session, cases, active), _progress(session))


def _cases(session: Session, case_ids: Collection[str] | None) -> list[Case]:
    """Every case, or those named, by case id."""
    if case_ids is None:
        return list(session.scalars(select(Case).order_by(Case.case_id)))
    wanted = sorted(set(case_ids))
    found = [c for start in range(0, len(wanted), _CHUNK) for c in session.scalars(
        select(Case).where(Case.case_id.in_(wanted[start:start + _CHUNK])))]
    return sorted(found, key=lambda c: c.case_id)


def _work_counts(session: Session) -> list[Any]:
    """(annotator id, active annotations, submitted ones) per annotator with any: counted by
    the database, so a basis of a few cases does not read every annotation."""
    submitted = func.sum(sql_case((Annotation.state == AnnotationState.SUBMITTED.value, 1),
                                  else_=0))
    return list(session.execute(
        select(Annotation.annotator_id, func.count(), submitted)
        .where(Annotation.withdrawn_at.is_(None))
        .group_by(Annotation.annotator_id).order_by(Annotation.annotator_id)).all())


def _progress(session: Session) -> list[AnnotatorProgress]:
    """Each person with work, or who takes work, by name: active and submitted case work."""
    counts = {row[0]: (int(row[1]), int(row[2] or 0)) for row in _work_counts(session)}
    progress = []
    for user in session.scalars(select(User).order_by(User.name)):
        if user.id not in counts and not takes_work(user):
            continue
        assigned, submitted = counts.get(user.id, (0, 0))
        progress.append(AnnotatorProgress(str(user.id), user.name, assigned, submitted))
    return progress


def _records(
    session: Session, cases: list[Case], active: list[Annotation]
) -> list[CaseRecord]:
    """``cases`` as the core's records, with their ``active`` (not withdrawn) annotations."""
    revision_ids = [c.current_revision_id for c in cases if c.current_revision_id is not None]
    contents = {
        r.id: r.content
        for r in session.scalars(select(CaseRevision).where(CaseRevision.id.in_(revision_ids)))
    }
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
    return records


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

    Computed from the released cases alone (and every annotator's counts of work), so a
    release of a few cases reads a few cases. Cached like :func:`agreement_report`, keyed by
    the released case ids and their inputs. The caller checks that the actor is a curator.
    """
    seed = project.setting(DEID_SEED)
    keep = sorted(released)
    with project.read() as session:
        key = agreement_cache.input_key("release", [seed, keep, input_rows(session, keep)])
        cached = agreement_cache.lookup(session, "release", key)
        if cached is not None:
            return cached
        basis = load_basis(session, keep)
    report = build_report(release_basis(basis, seed, keep))
    return agreement_cache.store(project, "release", key, report)


def release_agreement_part(project: Project, released: Collection[str]) -> AgreementPart:
    """What a release carries of the agreement report: JSON, HTML and the Table 8 rows."""
    report = release_report(project, released)
    return release_agreement(report, html=render_html(report), header=TABLE8_HEADER,
                             rows=table8_rows(report))


def input_rows(session: Session, case_ids: Collection[str] | None = None) -> list[Any]:
    """What :func:`load_basis` reads (of the cases in ``case_ids``, if given), as row
    identities and versions, without the JSON.

    A case's current revision is named by its content hash (draft and images); an
    annotation's submitted labels change only with its version, state or submission time
    (every ORM update bumps ``version``); people by name and roles; for named cases, every
    annotator's counts of work too. Reading these is a fraction of decoding every draft and
    label map, so an unchanged project is answered from the cache quickly.
    """
    case_query = (
        select(Case.id, Case.case_id, Case.state, Case.state_reason, Case.version,
               CaseRevision.content_hash)
        .outerjoin(CaseRevision, CaseRevision.id == Case.current_revision_id)
    )
    annotation_query = (
        select(Annotation.id, Annotation.case_pk, Annotation.annotator_id, Annotation.state,
               Annotation.version, Annotation.submitted_at, Annotation.withdrawn_at)
    )
    if case_ids is None:
        cases = session.execute(case_query.order_by(Case.case_id)).all()
        annotations = session.execute(annotation_query.order_by(Annotation.id)).all()
    else:
        wanted = sorted(set(case_ids))
        cases = sorted((row for start in range(0, len(wanted), _CHUNK) for row in
                        session.execute(case_query.where(
                            Case.case_id.in_(wanted[start:start + _CHUNK])))),
                       key=lambda row: row.case_id)
        pks = [row.id for row in cases]
        annotations = sorted((row for start in range(0, len(pks), _CHUNK) for row in
                              session.execute(annotation_query.where(
                                  Annotation.case_pk.in_(pks[start:start + _CHUNK])))),
                             key=lambda row: str(row.id))
    users = session.execute(
        select(User.id, User.name, UserRole.role)
        .outerjoin(UserRole, UserRole.user_id == User.id)
        .order_by(User.name, UserRole.role)
    ).all()
    tables = [[row[1:] for row in cases], annotations, users]
    if case_ids is not None:
        tables.append(_work_counts(session))
    return [[list(map(str, row)) for row in rows] for rows in tables]


def forget_cached_report(project: Project) -> None:
    """Drop the cached reports, so the next one is computed afresh."""
    agreement_cache.forget(project)



# --- point estimates from stored per-case statistics (issue 27) ---------------------------

TOTALS_PK = uuid.UUID(int=0)  # the agreement_stats row holding the sum of every case's row
_CHUNK = 500


@lru_cache(maxsize=1)
def _stats_code() -> str:
    """What the stored statistics were computed by: a changed statistic recomputes them all."""
    return agreement_cache.input_key("case_stats", None)


def case_keys(session: Session) -> dict[str, str]:
    """Each case's statistics key by its id as text: a hash of what :func:`load_basis` reads
    of it (state, reason, draft by content hash, active annotations by annotator, state,
    version and submission time) and of the code. One light query per table, ids and times
    read as the database's text (no JSON, no UUID or datetime objects)."""
    code = _stats_code()
    parts: dict[str, list[str]] = {}
    for pk, case_id, state, reason, content_hash in session.execute(
        select(cast(Case.id, String), Case.case_id, Case.state, Case.state_reason,
               CaseRevision.content_hash)
        .outerjoin(CaseRevision, CaseRevision.id == Case.current_revision_id)
    ):
        parts[pk] = [code, case_id, state, reason or "", content_hash or ""]
    for case_pk, annotator, state, version, submitted_at in session.execute(
        select(cast(Annotation.case_pk, String), cast(Annotation.annotator_id, String),
               Annotation.state, Annotation.version, cast(Annotation.submitted_at, String))
        .where(Annotation.withdrawn_at.is_(None), Annotation.repeat_of.is_(None),
               Annotation.kind == "case")
        .order_by(Annotation.case_pk, Annotation.annotator_id)
    ):
        found = parts.get(case_pk)
        if found is not None:
            found.append(f"{annotator}/{state}/{version}/{submitted_at}")
    return {pk: hashlib.sha256("\x1f".join(p).encode()).hexdigest() for pk, p in parts.items()}


def _stored(session: Session, pks: list[uuid.UUID] | None = None) -> dict[str, str]:
    """The stored statistics keys by case id as text (of ``pks``, else of every case)."""
    query = select(cast(AgreementStats.case_pk, String), AgreementStats.key).where(
        AgreementStats.case_pk != TOTALS_PK)
    if pks is None:
        return {pk: key for pk, key in session.execute(query)}
    out: dict[str, str] = {}
    for start in range(0, len(pks), _CHUNK):
        out.update((pk, key) for pk, key in session.execute(
            query.where(AgreementStats.case_pk.in_(pks[start:start + _CHUNK]))))
    return out


def _totals(session: Session, lock: bool = False) -> tuple[str | None, dict[str, Any]]:
    """The stored sum's key and statistics (``lock``: held until the transaction ends)."""
    query = select(AgreementStats.key, AgreementStats.stats).where(
        AgreementStats.case_pk == TOTALS_PK)
    row = session.execute(query.with_for_update() if lock else query).first()
    return (None, {}) if row is None else (row[0], dict(row[1] or {}))


def _rows(session: Session, pks: list[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
    out: dict[uuid.UUID, dict[str, Any]] = {}
    for start in range(0, len(pks), _CHUNK):
        chunk = pks[start:start + _CHUNK]
        out.update((pk, stats) for pk, stats in session.execute(
            select(AgreementStats.case_pk, AgreementStats.stats)
            .where(AgreementStats.case_pk.in_(chunk))))
    return out


def _case_stats_of(session: Session, pks: list[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
    """Fresh statistics of ``pks`` (an empty dict for a case that does not contribute)."""
    out: dict[uuid.UUID, dict[str, Any]] = {}
    for start in range(0, len(pks), _CHUNK):
        chunk = pks[start:start + _CHUNK]
        by_id = {c.id: c for c in session.scalars(select(Case).where(Case.id.in_(chunk)))}
        cases = [by_id[pk] for pk in chunk if pk in by_id]
        active = list(session.scalars(select(Annotation).where(
            Annotation.withdrawn_at.is_(None), Annotation.case_pk.in_(chunk))))
        for case, record in zip(cases, _records(session, cases, active), strict=True):
            contributing = build_basis([record]).cases
            out[case.id] = case_stats(contributing[0]) if contributing else {}
    return out


def _fresh(session: Session, pks: list[str]) -> dict[str, dict[str, Any]]:
    """:func:`_case_stats_of` by case id as text."""
    computed = _case_stats_of(session, [uuid.UUID(pk) for pk in pks])
    return {pk: computed.get(uuid.UUID(pk), {}) for pk in pks}


def _apply(
    session: Session, current: dict[str, str], seen: dict[str, str],
    fresh: dict[str, dict[str, Any]], whole: bool,
) -> dict[str, Any]:
    """Write the statistics computed from a read snapshot, in one write transaction.

    ``seen`` are the stored keys the snapshot had for the cases in ``fresh`` (recomputed)
    and those gone; a case whose stored row another caller changed meanwhile is left to
    it. The sum row is locked first and always equals the sum of the stored case rows.
    """
    key, totals = _totals(session, lock=True)
    if whole or key != _stats_code():
        session.execute(delete(AgreementStats))
        totals, now = {}, {}
        if not whole:  # another version of the code wrote the rows meanwhile: all afresh
            fresh = _fresh(session, list(current))
        seen = {}
    else:
        now = _stored(session, [uuid.UUID(pk) for pk in seen.keys() | fresh.keys()])
    write = {pk: stats for pk, stats in fresh.items() if now.get(pk) == seen.get(pk)}
    gone = [pk for pk in seen if pk not in current and now.get(pk) == seen[pk]]
    old = [uuid.UUID(pk) for pk in [*write, *gone] if pk in now]
    for stats in _rows(session, old).values():
        totals = add_stats(totals, stats, -1)
    for stats in write.values():
        totals = add_stats(totals, stats)
    touched = [uuid.UUID(pk) for pk in [*write, *gone]] + [TOTALS_PK]
    for start in range(0, len(touched), _CHUNK):
        session.execute(delete(AgreementStats).where(
            AgreementStats.case_pk.in_(touched[start:start + _CHUNK])))
    session.execute(insert(AgreementStats), [
        {"case_pk": uuid.UUID(pk), "key": current[pk], "stats": stats}
        for pk, stats in write.items()
    ] + [{"case_pk": TOTALS_PK, "key": _stats_code(), "stats": totals}])
    return totals


def point_estimates(
    project: Project, actor: str, options: ReportOptions | None = None
) -> dict[str, Any]:
    """Every family's coefficients as point estimates, without intervals (issue 27).

    Summed from the per-case statistics stored in ``agreement_stats``: only the cases whose
    inputs changed since the last call are recomputed, so after one more submission this
    reads the stored sum and recomputes one case. The values equal the full report's
    (:func:`agreement_report`, which adds the bootstrap intervals and every other figure;
    the GUI shows these first and the report when it is ready). Curators only.
    Returns ``{"families": [{"id", "title", "level", "n_units", "coefficients"}],
    "recomputed": cases recomputed by this call}``.
    """
    with project.read() as session:
        require(session, actor, Action.READ_AGREEMENT)
        key, totals = _totals(session)
        whole = key != _stats_code()
        current, stored = case_keys(session), ({} if whole else _stored(session))
        changed = [pk for pk, k in current.items() if stored.get(pk) != k]
        gone = [pk for pk in stored if pk not in current]
        if changed or gone or whole:
            fresh = _fresh(session, changed)
            seen = {pk: stored[pk] for pk in [*changed, *gone] if pk in stored}
    if changed or gone or whole:
        with project.tx() as session:
            require(session, actor, Action.READ_AGREEMENT)
            totals = _apply(session, current, seen, fresh, whole)
    return {"families": estimates(totals, options), "recomputed": len(changed)}
