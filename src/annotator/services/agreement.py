"""The agreement report of a project, for curators only (annotators stay blind).

Loads the basis from the store (every case's current draft, the labels each annotator
submitted, submission times, progress per annotator) and hands it to the pure core
(:mod:`annotator.agreement.report`).
"""

from __future__ import annotations

import copy
import hashlib
import json
import uuid
from collections import defaultdict
from collections.abc import Collection, Iterator
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from sqlalchemy import delete, insert, select
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
from annotator.services.users import people, require
from annotator.store import agreement_stale, counts
from annotator.store.bulk import chunks
from annotator.store.project import Project
from annotator.store.schema import (
    AgreementPairSum,
    AgreementStats,
    Annotation,
    Case,
    CaseRevision,
    RatedWork,
    User,
    UserRole,
)
from annotator.store.settings import DEID_SEED

DOING = "viewing inter-annotator agreement"


def load_basis(session: Session, case_ids: Collection[str] | None = None) -> ProjectBasis:
    """Every case (or only those in ``case_ids``) with its active annotations, as the core's
    basis (rules applied there). The annotators' progress counts their work on every case
    either way, so the basis of named cases is the whole basis's, restricted to them."""
    cases = _cases(session, case_ids)
    if case_ids is None:
        active = list(session.scalars(select(Annotation).where(
            Annotation.withdrawn_at.is_(None))))
    else:  # through the case's index, as _case_stats_of (see _WORK)
        pks = [c.id for c in cases]
        active = [a for start in range(0, len(pks), _CHUNK) for a in session.scalars(
            select(RatedWork).where(RatedWork.withdrawn_at.is_(None),
                                    _WORK.case_pk.in_(pks[start:start + _CHUNK])))
            if isinstance(a, Annotation)]
    return build_basis(_records(session, cases, active), _progress(session))


def _cases(session: Session, case_ids: Collection[str] | None) -> list[Case]:
    """Every case, or those named, by case id."""
    if case_ids is None:
        return list(session.scalars(select(Case).order_by(Case.case_id)))
    wanted = sorted(set(case_ids))
    found = [c for start in range(0, len(wanted), _CHUNK) for c in session.scalars(
        select(Case).where(Case.case_id.in_(wanted[start:start + _CHUNK])))]
    return sorted(found, key=lambda c: c.case_id)


def _work_counts(session: Session) -> list[tuple[uuid.UUID, int, int]]:
    """(annotator id, active annotations, submitted ones) per annotator with any, by id; first
    ratings only, as every plain query of annotations reads them (store/repeats.py).

    Read from the counters the writes keep (``rater:<id>:<state>``, store/counts.py): a
    GROUP BY over every annotation took 300 ms of a release's export at 100,000 cases."""
    raters = counts.rater_states(counts.read(session.connection(), prefix="rater:"))
    return sorted((uuid.UUID(rater), sum(states.values()),
                   states.get(AnnotationState.SUBMITTED.value, 0))
                  for rater, states in raters.items())


def _progress(session: Session) -> list[AnnotatorProgress]:
    """Each person with work, or who takes work, by name: active and submitted case work."""
    counts = {row[0]: (int(row[1]), int(row[2] or 0)) for row in _work_counts(session)}
    progress = []
    for user in people(session):
        if user.id not in counts and not user.takes_work:
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
    # Statistics up to date first (every case's the first time, the marked ones after),
    # so the report is keyed like the desk's point estimates read them.
    _refresh(project)
    options = options or ReportOptions()  # the defaults keyed alike, however they are given
    with project.read() as session:
        key, cached = _cached(session, options)
        if cached is not None:
            return cached
        basis = load_basis(session)  # in the snapshot the key was computed from
    return agreement_cache.store(project, "project", key, build_report(basis, options))


def _cached(session: Session, options: ReportOptions) -> tuple[str, dict[str, Any] | None]:
    """The project report's cache key for the stored statistics and ``options``, and the
    report cached under it (None if none is)."""
    key = agreement_cache.input_key("project", report_inputs(session), options)
    return key, agreement_cache.lookup(session, "project", key)


def current_report(project: Project, actor: str) -> dict[str, Any] | None:
    """The cached agreement report if it is still current (after the statistics of the
    cases marked stale are brought up to date, which its key is made of), else None.

    Never computes the report: the desk shows the point estimates at once and the
    intervals of this report when it is current, and asks for :func:`agreement_report` in
    the background when it is not (at 100,000 cases a full report takes minutes).
    Curators only.
    """
    _curators_refresh(project, actor)
    with project.read() as session:
        return _cached(session, ReportOptions())[1]


def release_report(project: Project, released: Collection[str]) -> dict[str, Any]:
    """The agreement report a release ships: the released cases only, reviewers as pseudonyms.

    Computed from the released cases alone (and every annotator's counts of work), so a
    release of a few cases reads a few cases. Cached like :func:`agreement_report`, keyed by
    the released case ids and their inputs. The caller checks that the actor is a curator.
    """
    seed = project.setting(DEID_SEED)
    keep = sorted(released)
    _refresh(project, fill=False)
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
    annotator's counts of work too. Without ``case_ids`` it reads every case and annotation:
    the project-wide cached reports are keyed by :func:`report_inputs` instead.
    """
    case_query = (
        select(Case.id, Case.case_id, Case.state, Case.state_reason, Case.version,
               CaseRevision.content_hash)
        .outerjoin(CaseRevision, CaseRevision.id == Case.current_revision_id)
    )
    # The table's columns, first ratings only, as Annotation reads them: Annotation's own
    # kind filter led SQLite to the (kind, state) index, every case's work, for a release's
    # 100 cases (220 ms of its export at 100,000 cases); only case work has a case.
    annotation_query = (
        select(_WORK.id, _WORK.case_pk, _WORK.rater_id, _WORK.state, _WORK.version,
               _WORK.submitted_at, _WORK.withdrawn_at)
        .where(_WORK.repeat_of.is_(None))
    )
    if case_ids is None:
        cases = session.execute(case_query.order_by(Case.case_id)).all()
        annotations = session.execute(
            annotation_query.where(_WORK.kind == "case").order_by(_WORK.id)).all()
    else:
        wanted = sorted(set(case_ids))
        cases = sorted((row for start in range(0, len(wanted), _CHUNK) for row in
                        session.execute(case_query.where(
                            Case.case_id.in_(wanted[start:start + _CHUNK])))),
                       key=lambda row: row.case_id)
        pks = [row.id for row in cases]
        annotations = sorted((row for start in range(0, len(pks), _CHUNK) for row in
                              session.execute(annotation_query.where(
                                  _WORK.case_pk.in_(pks[start:start + _CHUNK])))),
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
# The row whose key is the XOR of a hash of (case id, key) over every case's row: with the
# marks, what the cached reports are keyed by (see report_inputs).
INPUTS_PK = uuid.UUID(int=1)
RESERVED = (TOTALS_PK, INPUTS_PK)
_CHUNK = 500
REFRESH_CASES = 2_000  # cases recomputed per write transaction
# A case's work is read through the table (only case work has a case): Annotation's own
# ``kind`` filter leads SQLite to the (kind, state) index, every case's work, not these.
_WORK = RatedWork.__table__.c


@lru_cache(maxsize=1)
def _stats_code() -> str:
    """What the stored statistics were computed by: a changed statistic recomputes them all."""
    return agreement_cache.input_key("case_stats", None)


def _where(column: Any, pks: list[uuid.UUID] | None) -> Iterator[tuple[Any, ...]]:
    if pks is None:
        yield ()
        return
    for start in range(0, len(pks), _CHUNK):
        yield (column.in_(pks[start:start + _CHUNK]),)


def case_keys(session: Session, pks: list[uuid.UUID] | None = None) -> dict[uuid.UUID, str]:
    """Each case's statistics key (of ``pks``, else of every case): a hash of what
    :func:`load_basis` reads of it (case id, state, reason, draft by content hash; the
    active annotations' annotator, state, submission time and submitted labels) and of the
    code. Read for the marked cases only, except by :func:`unmarked`."""
    code = _stats_code()
    parts: dict[uuid.UUID, list[str]] = {}
    for where in _where(Case.id, pks):
        for pk, case_id, state, reason, content_hash in session.execute(
            select(Case.id, Case.case_id, Case.state, Case.state_reason,
                   CaseRevision.content_hash)
            .outerjoin(CaseRevision, CaseRevision.id == Case.current_revision_id).where(*where)
        ):
            parts[pk] = [code, case_id, state, reason or "", content_hash or ""]
    for where in _where(_WORK.case_pk, pks):
        for case_pk, annotator, state, submitted_at, labels in session.execute(
            select(_WORK.case_pk, _WORK.rater_id, _WORK.state, _WORK.submitted_at,
                   _WORK.submitted)
            .where(_WORK.withdrawn_at.is_(None), _WORK.repeat_of.is_(None),
                   _WORK.case_pk.is_not(None), *where)
            .order_by(_WORK.case_pk, _WORK.rater_id)
        ):
            found = parts.get(case_pk)
            if found is not None:
                found.append(f"{annotator}/{state}/{submitted_at}/"
                             + json.dumps(labels, sort_keys=True, default=str))
    return {pk: hashlib.sha256("\x1f".join(p).encode()).hexdigest() for pk, p in parts.items()}


def _digest(pk: uuid.UUID, key: str) -> int:
    return int.from_bytes(hashlib.sha256(f"{pk.hex}:{key}".encode()).digest(), "big")


def _reserved(session: Session, lock: bool = False) -> tuple[str | None, dict[str, Any], int]:
    """The stored code key, sum and inputs hash (``lock``: held until the transaction ends).

    The sum (its row and the pairs' tables, :func:`_with_pairs`) grows with the rater pairs
    (300 KB at the bench's 100,000 cases); it is read only when its keys differ from the
    last sum this process read or wrote for the store (:data:`_SUMS`)."""
    query = select(AgreementStats.case_pk, AgreementStats.key).where(
        AgreementStats.case_pk.in_(RESERVED))
    keys = {pk: key for pk, key in session.execute(query.with_for_update() if lock else query)}
    code, inputs = keys.get(TOTALS_PK), keys.get(INPUTS_PK)
    store = _store(session)
    kept = _SUMS.get(store)
    if kept is not None and kept.code == code and kept.inputs == inputs:
        totals = kept.totals
    else:  # in the same snapshot (or under the same lock) as the keys
        totals = _with_pairs(session, session.scalar(select(AgreementStats.stats).where(
            AgreementStats.case_pk == TOTALS_PK)) or {})
        if code is not None and inputs is not None:
            _SUMS[store] = _Sums(code, inputs, totals)
    return code, dict(totals), int(inputs, 16) if inputs else 0


def _with_pairs(session: Session, row: dict[str, Any]) -> dict[str, Any]:
    """The sum row with each family's pair tables put back in (``agreement_pair_sums``)."""
    totals = {fid: {**(sums or {}), "pairs": {}} for fid, sums in row.items()}
    for family, pair, table in session.execute(select(
            AgreementPairSum.family, AgreementPairSum.pair, AgreementPairSum.counts)):
        totals.setdefault(family, {"pairs": {}})["pairs"][pair] = table
    return totals


def _write_sum(session: Session, totals: dict[str, Any], parts: list[dict[str, Any]]) -> None:
    """Store ``totals``: the sum row without the pair tables, and of those only the pairs
    that ``parts`` (the case rows added or taken away) touch: one submission rewrites its
    case's few pairs, not every pair of the project."""
    touched: dict[str, set[str]] = defaultdict(set)
    for part in parts:
        for fid, sums in part.items():
            touched[fid].update((sums or {}).get("pairs") or ())
    for fid, pairs in touched.items():
        chosen = sorted(pairs)
        for chunk in chunks(chosen):
            session.execute(delete(AgreementPairSum).where(
                AgreementPairSum.family == fid, AgreementPairSum.pair.in_(chunk)))
        kept = (totals.get(fid) or {}).get("pairs") or {}
        rows = [{"family": fid, "pair": pair, "counts": kept[pair]}
                for pair in chosen if pair in kept]
        if rows:
            session.execute(insert(AgreementPairSum), rows)
    row = {fid: {name: value for name, value in sums.items() if name != "pairs"}
           for fid, sums in totals.items()}
    session.execute(insert(AgreementStats), [
        {"case_pk": TOTALS_PK, "key": _stats_code(), "stats": row}])


@dataclass(frozen=True)
class _Sums:
    """A sum row as stored, under its keys: the code key of the sum row and the inputs row's
    key, the XOR over every case row of a hash of (case, key). A change to any case row, so
    to the sum, changes the inputs key; the same keys always mean the same sum. The sum and
    the estimates are shared, never changed in place (``add_stats`` returns a new dict)."""

    code: str
    inputs: str
    totals: dict[str, Any]
    estimates: list[dict[str, Any]] | None = None


_SUMS: dict[str, _Sums] = {}  # store (its URL, password hidden) -> the last sum seen


def _store(session: Session) -> str:
    return session.connection().engine.url.render_as_string(hide_password=True)


def _store_of(project: Project) -> str:
    return project.engine.url.render_as_string(hide_password=True)


def _rows(session: Session, pks: list[uuid.UUID]) -> dict[uuid.UUID, tuple[str, dict[str, Any]]]:
    out: dict[uuid.UUID, tuple[str, dict[str, Any]]] = {}
    for where in _where(AgreementStats.case_pk, pks):
        out.update((pk, (key, stats)) for pk, key, stats in session.execute(
            select(AgreementStats.case_pk, AgreementStats.key, AgreementStats.stats)
            .where(*where)))
    return out


def _case_stats_of(session: Session, pks: list[uuid.UUID]) -> dict[uuid.UUID, dict[str, Any]]:
    """Fresh statistics of ``pks`` (an empty dict for a case that does not contribute)."""
    out: dict[uuid.UUID, dict[str, Any]] = {}
    for start in range(0, len(pks), _CHUNK):
        chunk = pks[start:start + _CHUNK]
        by_id = {c.id: c for c in session.scalars(select(Case).where(Case.id.in_(chunk)))}
        cases = [by_id[pk] for pk in chunk if pk in by_id]
        active = [a for a in session.scalars(select(RatedWork).where(
            RatedWork.withdrawn_at.is_(None), _WORK.case_pk.in_(chunk)))
            if isinstance(a, Annotation)]
        for case, record in zip(cases, _records(session, cases, active), strict=True):
            contributing = build_basis([record]).cases
            out[case.id] = case_stats(contributing[0]) if contributing else {}
    return out


def _apply(
    session: Session, seen: dict[uuid.UUID, uuid.UUID], keys: dict[uuid.UUID, str],
    fresh: dict[uuid.UUID, dict[str, Any]],
) -> _Sums | None:
    """Write the statistics computed from a read snapshot, in one write transaction.

    ``seen`` are the marks the snapshot read; a mark whose token changed since (the case
    was written again) or that is gone (another caller applied it) is left alone. The sum
    row is locked first and always equals the sum of the stored case rows; the inputs row
    the XOR of their hashes.
    """
    conn = session.connection()
    code, totals, inputs = _reserved(session, lock=True)
    if code != _stats_code():  # another version of the code restarted them meanwhile
        _restart(session)
        return None
    now = agreement_stale.marked(conn, list(seen))
    handle = [pk for pk, token in seen.items() if now.get(pk) == token]
    old = _rows(session, handle)
    cleared = {pk: seen[pk] for pk in handle}
    parts: list[dict[str, Any]] = []
    for pk in handle:
        if pk in old:
            totals = add_stats(totals, old[pk][1], -1)
            inputs ^= _digest(pk, old[pk][0])
            parts.append(old[pk][1])
        if pk in keys:
            totals = add_stats(totals, fresh[pk])
            inputs ^= _digest(pk, keys[pk])
            parts.append(fresh[pk])
    for where in _where(AgreementStats.case_pk, [*handle, *RESERVED]):
        session.execute(delete(AgreementStats).where(*where))
    session.execute(insert(AgreementStats), [
        {"case_pk": pk, "key": keys[pk], "stats": fresh[pk]} for pk in handle if pk in keys
    ] + [{"case_pk": INPUTS_PK, "key": f"{inputs:064x}", "stats": {}}])
    _write_sum(session, totals, parts)
    agreement_stale.clear(conn, cleared)
    return _Sums(_stats_code(), f"{inputs:064x}", totals)


def _refresh(project: Project, fill: bool = True) -> tuple[_Sums | None, int]:
    """Bring the stored statistics up to date: the marked cases recomputed (every case if
    the stored ones are from other code or missing; with ``fill`` only), ``REFRESH_CASES``
    at a time, each batch in its own write transaction, so memory stays that of one batch
    however many cases are marked (a clone or new statistics code marks them all). Returns
    the sum under its keys (None while the stored one is from other code and not filled)
    and the number of cases recomputed. The caller checks that the actor is a curator."""
    with project.read() as session:
        code, _totals, _inputs = _reserved(session)
    store = _store_of(project)
    if code != _stats_code():
        if not fill:
            return None, 0
        with project.tx() as session:
            _restart(session)
    recomputed = 0
    before: dict[uuid.UUID, uuid.UUID] = {}
    while True:
        with project.read() as session:
            # The marks first: a write after them is marked again, with a new token.
            seen = agreement_stale.marked(session.connection(), limit=REFRESH_CASES)
            if not seen or seen == before:  # none left, or this batch could not be applied
                break
            keys = case_keys(session, list(seen))
            fresh = _case_stats_of(session, list(keys))
        with project.tx() as session:
            written = _apply(session, seen, keys, fresh)
        if written is not None:  # committed: the next read of these keys needs no decoding
            _SUMS[store] = written
        recomputed += len(keys)
        before = seen
    with project.read() as session:
        _reserved(session)  # the keys as they stand now (the sum read only if changed)
    return _SUMS.get(store), recomputed


def _restart(session: Session) -> None:
    """Statistics from other code (or none yet): drop them all, start the sums at zero under
    this code's key and mark every case, so the batches of :func:`_refresh` fill them."""
    code, _totals, _inputs = _reserved(session, lock=True)
    if code == _stats_code():
        return  # another caller restarted them meanwhile
    session.execute(delete(AgreementStats))
    session.execute(delete(AgreementPairSum))
    session.execute(insert(AgreementStats), [
        {"case_pk": TOTALS_PK, "key": _stats_code(), "stats": {}},
        {"case_pk": INPUTS_PK, "key": f"{0:064x}", "stats": {}}])
    agreement_stale.mark(session.connection(), session.scalars(select(Case.id)))


def point_estimates(
    project: Project, actor: str, options: ReportOptions | None = None
) -> dict[str, Any]:
    """Every family's coefficients as point estimates, without intervals (issue 27).

    Summed from the per-case statistics stored in ``agreement_stats``: only the cases the
    writers marked stale since the last call (``agreement_stale``) are recomputed, so after
    one more submission this reads the stored sum and the mark and recomputes one case,
    whatever the project's size. The values equal the full report's
    (:func:`agreement_report`, which adds the bootstrap intervals and every other figure;
    the GUI shows these first and the report when it is ready). Curators only.
    Returns ``{"families": [{"id", "title", "level", "n_units", "coefficients"}],
    "recomputed": cases recomputed by this call}``.
    """
    return _estimates(project, *_curators_refresh(project, actor), options)


def estimates_and_report(project: Project, actor: str) -> tuple[dict[str, Any],
                                                                 dict[str, Any] | None]:
    """:func:`point_estimates` and :func:`current_report` together (the desk's headline):
    one permission check and one refresh of the statistics for both. Curators only."""
    found = _estimates(project, *_curators_refresh(project, actor), None)
    with project.read() as session:
        return found, _cached(session, ReportOptions())[1]


def _curators_refresh(project: Project, actor: str) -> tuple[_Sums | None, int]:
    """:func:`_refresh` for a curator (``actor`` is checked first)."""
    with project.read() as session:
        require(session, actor, Action.READ_AGREEMENT)
    return _refresh(project)


def _estimates(project: Project, sums: _Sums | None, recomputed: int,
               options: ReportOptions | None) -> dict[str, Any]:
    if sums is None:
        return {"families": estimates({}, options), "recomputed": recomputed}
    if options is not None:
        return {"families": estimates(sums.totals, options), "recomputed": recomputed}
    if sums.estimates is None:  # the defaults' estimates kept with the sum they came from
        sums = replace(sums, estimates=estimates(sums.totals))
        _SUMS[_store_of(project)] = sums
    return {"families": copy.deepcopy(sums.estimates), "recomputed": recomputed}


def report_inputs(session: Session) -> list[Any]:
    """What the cached reports are keyed by, without reading every case: the marks (case
    and token: what changed since the statistics were last brought up to date), then the
    XOR of the stored case keys (everything before), and people by name and roles."""
    marks = sorted(f"{pk.hex}:{token.hex}"
                   for pk, token in agreement_stale.marked(session.connection()).items())
    inputs = session.execute(select(AgreementStats.key).where(
        AgreementStats.case_pk == INPUTS_PK)).scalar()
    # People by their unique names (a report names its raters by name, never by id): at
    # the bench's 100,000 cases 302 people, whose ids made this read three times as long.
    users = session.execute(
        select(User.name, UserRole.role)
        .outerjoin(UserRole, UserRole.user_id == User.id)
        .order_by(User.name, UserRole.role)
    ).all()
    return [marks, inputs, "\n".join(f"{name}\t{role or ''}" for name, role in users)]


def unmarked(session: Session) -> list[uuid.UUID]:
    """Cases whose statistics key differs from the stored row's but that no writer marked:
    a writer that forgot to mark (the safety net; reads every case: tests, not the app)."""
    code, _totals, _inputs = _reserved(session)
    if code != _stats_code():
        return []  # every case is recomputed next time anyway
    current = case_keys(session)
    stored = {pk: key for pk, key in session.execute(
        select(AgreementStats.case_pk, AgreementStats.key)
        .where(AgreementStats.case_pk.not_in(RESERVED)))}
    marks = agreement_stale.marked(session.connection())
    return sorted((pk for pk in current.keys() | stored.keys()
                   if current.get(pk) != stored.get(pk) and pk not in marks), key=str)
