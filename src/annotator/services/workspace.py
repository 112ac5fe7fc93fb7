"""What the annotation workspace reads: the annotator's case list and a case's images.

Blinding holds here as in ``annotating``: every query is addressed by the annotator and
reads only their own annotation rows (progress and state come from their labels alone).
Images are returned by SHA-256 and their bytes read through the project's image store, so
a folder project and a PostgreSQL team store look the same to the GUI.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
from dataclasses import dataclass, field, fields
from datetime import datetime
from pathlib import Path
from typing import Any, cast

from sqlalchemy import (
    JSON,
    DateTime,
    Select,
    Text,
    Uuid,
    and_,
    bindparam,
    column,
    func,
    select,
    text,
    true,
)
from sqlalchemy import case as sql_case
from sqlalchemy.orm import Session, lazyload

from annotator.domain import queue_order
from annotator.domain.labels import (
    SUGGESTIBLE,
    LabelEdit,
    label_key,
    missing_for_submit,
    split_key,
)
from annotator.domain.permissions import Action, may
from annotator.domain.states import AnnotationState
from annotator.domain.suggestions import accept_edits as suggestion_accept_edits
from annotator.domain.suggestions import figures
from annotator.errors import NotFound, ValidationError
from annotator.services.users import get_user, list_users
from annotator.store.bulk import chunks
from annotator.store.calibration import first_for
from annotator.store.db_roles import walled
from annotator.store.image_record import ImageRecord
from annotator.store.project import Project
from annotator.store.repeats import WITH_REPEATS, served
from annotator.store.schema import (
    Annotation,
    Case,
    CaseImage,
    CaseRevision,
    RatedWork,
    User,
    utcnow,
)

# Filters of the case list (id -> label shown in the GUI).
FILTERS: dict[str, str] = {
    "all": "All cases",
    "todo": "Not submitted",
    "assigned": "Not started",
    "in_progress": "In progress",
    "submitted": "Submitted",
    "recheck": "Needs re-check",
    "needs_fix": "Draft needs a fix",
    "red_flag": "Red-flagged by me",
    "open_conflict": "Open conflict",
}
# Cases with an undecided conflict between annotators: other people's work, so the filter
# is offered only to those who may read it (annotators work blind and never see it).
OPEN_CONFLICT = "open_conflict"
ANY_MODALITY = ""  # the modality filter's "every modality"


def case_filters(roles: list[str]) -> dict[str, str]:
    """The case-list filters a person with ``roles`` is offered (id -> label)."""
    shown = may(roles, Action.READ_OTHERS_WORK)
    return {key: text for key, text in FILTERS.items() if key != OPEN_CONFLICT or shown}


@dataclass(frozen=True)
class CaseRow:
    """One line of the annotator's case list."""

    case_id: str
    title: str
    state: str  # the annotation's state (assigned / in_progress / submitted)
    case_state: str
    done: int  # submit requirements met (importance and stage per exam, difficulty, rarity)
    required: int
    needs_recheck: bool
    needs_fix: bool  # the draft has problems a physician may fix
    discarded: bool
    updated_at: datetime | None
    modalities: tuple[str, ...] = ()  # of the case's exams, sorted, as the draft gives them
    red_flag: bool = False  # the annotator flagged at least one exam as unsafe

    @property
    def progress(self) -> float:
        """Share of the submit requirements met, 0..1 (1 for a discarded case)."""
        return 1.0 if self.required == 0 else self.done / self.required


@dataclass(frozen=True)
class CaseList:
    """The rows that pass the filter and search, with counts over all assigned cases."""

    rows: list[CaseRow]
    total: int
    submitted: int
    counts: dict[str, int] = field(default_factory=dict)  # filter id -> rows it would show
    modalities: list[str] = field(default_factory=list)  # every modality of the assigned cases

    @property
    def summary(self) -> str:
        """``"34 of 120 submitted"``."""
        return f"{self.submitted} of {self.total} submitted"


def _matches(row: CaseRow, show: str, conflicted: frozenset[str] | None = None) -> bool:
    if show == "all":
        return True
    if show == "todo":
        return row.state != AnnotationState.SUBMITTED.value
    if show == "recheck":
        return row.needs_recheck
    if show == "needs_fix":
        return row.needs_fix
    if show == "red_flag":
        return row.red_flag
    if show == OPEN_CONFLICT:
        return conflicted is not None and row.case_id in conflicted
    return row.state == show


def next_open(rows: list[CaseRow], after: str) -> str | None:
    """The first case after ``after`` in ``rows`` that is not submitted, wrapping around to
    the top (the annotate page goes on to it after a submit); None when all are submitted."""
    ids = [r.case_id for r in rows]
    done = [r.state == AnnotationState.SUBMITTED.value or r.case_id == after for r in rows]
    found = queue_order.next_open(done, ids.index(after) if after in ids else -1)
    return ids[found] if found is not None else None


def _assigned(user_id: uuid.UUID) -> Select[Any]:
    """The annotator's assigned cases (withdrawn ones excluded): each annotation, its case's
    id and state, and the revision it is made on (its id, content hash and problems: the
    draft itself is read once per revision, :func:`_drafts`)."""
    return (
        select(Annotation, Case.case_id, Case.state, CaseRevision.id,
               CaseRevision.content_hash, CaseRevision.problems)
        .join(Case, Annotation.case_pk == Case.id)
        .join(CaseRevision, Annotation.revision_id == CaseRevision.id)
        .where(Annotation.annotator_id == user_id, Annotation.withdrawn_at.is_(None))
    )


def _assigned_columns(user_id: uuid.UUID) -> Select[Any]:
    """:func:`_assigned` as plain columns, without the labels: the list reads each row's
    labels only when they changed since it last read them (:func:`_summaries`)."""
    query = (
        select(Annotation.id, Annotation.version, Annotation.updated_at, Annotation.state,
               Annotation.needs_recheck, Annotation.repeat_of, Case.case_id,
               Case.state.label("case_state"), CaseRevision.id.label("revision_id"),
               CaseRevision.content_hash, CaseRevision.problems)
        .join(Case, Annotation.case_pk == Case.id)
        .join(CaseRevision, Annotation.revision_id == CaseRevision.id)
        .where(Annotation.annotator_id == user_id, Annotation.withdrawn_at.is_(None))
    )
    return cast(Select[Any], query)


@dataclass(frozen=True)
class _Work:
    """The columns of a rated work row the case list shows (not its labels)."""

    id: uuid.UUID
    version: int
    updated_at: datetime | None
    state: str
    needs_recheck: bool
    repeat_of: uuid.UUID | None

    @property
    def key(self) -> tuple[Any, ...]:
        # Every edit of the row bumps its version and its time: its labels are the same
        # while both are.
        return (self.id, self.version, self.updated_at)


def _served_columns(session: Session, firsts: list[_Work]) -> list[_Work]:
    """:func:`~annotator.store.repeats.served_all` on columns: each row, or its latest due
    repeat, in one query per 500 rows."""
    latest: dict[uuid.UUID, tuple[int, _Work]] = {}
    ids = [w.id for w in firsts if w.repeat_of is None]
    now = utcnow()
    for chunk in chunks(ids):
        repeats = (
            select(RatedWork.id, RatedWork.version, RatedWork.updated_at, RatedWork.state,
                   RatedWork.needs_recheck, RatedWork.repeat_of, RatedWork.repeat_no,
                   RatedWork.kind)
            .where(RatedWork.repeat_of.in_(chunk),
                   RatedWork.withdrawn_at.is_(None), RatedWork.due_at <= now)
            .execution_options(**WITH_REPEATS)
        )
        for work_id, version, updated_at, state, recheck, repeat_of, repeat_no, kind in \
                session.execute(repeats):
            work = _Work(work_id, version, updated_at, state, recheck, repeat_of)
            held = latest.get(work.repeat_of) if work.repeat_of else None
            if kind == "case" and work.repeat_of and (held is None or repeat_no > held[0]):
                latest[work.repeat_of] = (repeat_no, work)
    return [latest[w.id][1] if w.id in latest else w for w in firsts]


@dataclass(frozen=True)
class _Summary:
    """What the list shows of a row's labels against its draft's figures."""

    done: int
    required: int
    discarded: bool
    red_flag: bool


def _summary(labels: dict[str, Any], figs: list[str]) -> _Summary:
    required = 2 * len(figs) + 2
    discarded = "discard" in labels
    return _Summary(
        done=required if discarded else required - len(missing_for_submit(labels, figs)),
        required=required, discarded=discarded,
        red_flag=any(split_key(k)[0] == "red_flag" and v for k, v in labels.items()))


# Kept by (row id, version, last edit, revision id, content hash): a refresh decodes only
# the labels edited since the list last read them (a thousand rows: one row's labels).
_SUMMARIES: dict[tuple[Any, ...], _Summary] = {}
_SUMMARIES_KEPT = 50_000


def _summaries(session: Session, rows: list[tuple[_Work, tuple[uuid.UUID, str]]],
               drafts: dict[tuple[uuid.UUID, str], _Draft]) -> dict[tuple[Any, ...], _Summary]:
    with _KEPT_LOCK:
        found = {w.key + d: _SUMMARIES[w.key + d] for w, d in rows if w.key + d in _SUMMARIES}
    missing = {w.id: (w, d) for w, d in rows if w.key + d not in found}
    for chunk in chunks(missing):
        # In the same read transaction as the columns: the labels of the versions listed.
        for work_id, labels in session.execute(
            select(RatedWork.id, RatedWork.values)
            .where(RatedWork.id.in_(chunk))
            .execution_options(**WITH_REPEATS)
        ):
            work, draft = missing[work_id]
            found[work.key + draft] = _summary(labels or {}, drafts[draft].figures)
    with _KEPT_LOCK:
        _SUMMARIES.update(found)
        while len(_SUMMARIES) > _SUMMARIES_KEPT:
            _SUMMARIES.pop(next(iter(_SUMMARIES)))
    return found


def _listed(work: _Work, case_id: str, case_state: str, problems: list[Any] | None,
            draft: _Draft, summary: _Summary) -> tuple[CaseRow, str]:
    """A case list row (from columns and the row's label summary) and its search text."""
    row = CaseRow(
        case_id=case_id,
        title=draft.title,
        state=work.state,
        case_state="annotating" if work.repeat_of is not None else case_state,
        done=summary.done,
        required=summary.required,
        needs_recheck=work.needs_recheck,
        needs_fix=bool(problems),
        discarded=summary.discarded,
        updated_at=work.updated_at,
        modalities=draft.modalities,
        red_flag=summary.red_flag,
    )
    return row, draft.haystack


@dataclass(frozen=True)
class _Draft:
    """What the case list shows of a revision's draft, and the text a search looks in."""

    title: str
    figures: list[str]
    modalities: tuple[str, ...]
    haystack: str


# A revision never changes (a new draft is a new revision), so what the list shows of it is
# kept by (revision id, content hash): a refresh reads no draft it has read before.
_DRAFTS: dict[tuple[uuid.UUID, str], _Draft] = {}
_DRAFTS_KEPT = 50_000
_KEPT_LOCK = threading.Lock()  # drafts, summaries, listings: the GUI reads on worker threads


_DRAFT_FIELDS = ("case_id", "case_title", "section", "area_of_interest", "final_diagnosis",
                 "imaging_examinations")


def _draft_of(content: dict[str, Any]) -> _Draft:
    haystack = " ".join(
        str(content.get(k) or "")
        for k in ("case_id", "case_title", "section", "area_of_interest", "final_diagnosis")
    ).lower()
    return _Draft(str(content.get("case_title") or ""), figures(content),
                  _modalities(content), haystack)


def _draft_fields(dialect: str) -> Select[Any]:
    """Each revision's id, hash and the draft's fields the list shows and searches,
    extracted by the database: a third of the draft's JSON to decode (not its history,
    rubrics, steps or image list). PostgreSQL parses a ``json`` value again for each
    ``->>``: six fields of 1,000 drafts took 323 ms, one ``json_to_record`` each 70 ms."""
    if dialect == "postgresql":
        draft = func.json_to_record(CaseRevision.content).table_valued(
            *(column(key, Text) for key in _DRAFT_FIELDS[:-1]),
            column(_DRAFT_FIELDS[-1], JSON)).render_derived("draft", with_types=True)
        return (select(CaseRevision.id, CaseRevision.content_hash,
                       *(draft.c[key] for key in _DRAFT_FIELDS))
                .select_from(CaseRevision).join(draft, true()))
    fields = [CaseRevision.content[key].as_string() for key in _DRAFT_FIELDS[:-1]]
    fields.append(CaseRevision.content[_DRAFT_FIELDS[-1]])  # the exams: JSON
    return select(CaseRevision.id, CaseRevision.content_hash, *fields)


def _drafts(session: Session, revisions: list[tuple[uuid.UUID, str]]
            ) -> dict[tuple[uuid.UUID, str], _Draft]:
    """The drafts of ``revisions`` (id, content hash), reading only those not kept yet."""
    with _KEPT_LOCK:
        found = {key: _DRAFTS[key] for key in revisions if key in _DRAFTS}
    missing = list({rid for rid, content_hash in revisions if (rid, content_hash) not in found})
    query = _draft_fields(session.get_bind().dialect.name)
    for chunk in chunks(missing):
        for rid, content_hash, *values in session.execute(
                query.where(CaseRevision.id.in_(chunk))):
            content = {k: v for k, v in zip(_DRAFT_FIELDS, values, strict=True) if v is not None}
            found[(rid, content_hash)] = _draft_of(content)
    with _KEPT_LOCK:
        _DRAFTS.update(found)
        while len(_DRAFTS) > _DRAFTS_KEPT:
            _DRAFTS.pop(next(iter(_DRAFTS)))
    return found


def case_list(project: Project, annotator: str, *, show: str = "all", search: str = "",
              modality: str = ANY_MODALITY, conflicted: frozenset[str] | None = None
              ) -> CaseList:
    """The annotator's assigned cases (withdrawn ones excluded), filtered and searched.

    ``show`` is a key of :data:`FILTERS`; ``search`` matches case id, title, section, area
    and final diagnosis, case-insensitively, every word anywhere; ``modality`` keeps the
    cases with an exam of that modality. Rows are sorted by case id (numbers in ids compare
    as numbers: case 9 before case 10). ``conflicted`` holds the ids of cases with an open
    conflict (``annotating.my_cases`` reads them for those who may see them); without it the
    open-conflict filter shows nothing and is not counted.
    """
    if show not in FILTERS:
        raise ValidationError(f"unknown case filter {show!r} (one of {', '.join(FILTERS)})")
    words = search.lower().split()
    # One build of an annotator's list at a time: a second caller (the page's first refresh
    # while start-up's warm-up builds it, :func:`warm_case_list`) waits and uses that one.
    with _builder(project, annotator):
        with project.read() as session:
            user = _person(session, annotator)
            file = _kept_file(project, user.id)
            listing, built = _listing(session, user, file)
        if built:
            _write_kept(file, listing)  # for the next start: outside the read transaction
    searched = [row for row, hay in listing.rows if all(w in hay for w in words)
                and (modality == ANY_MODALITY or modality in row.modalities)]
    counts = dict(listing.counts)
    if conflicted is not None:
        counts[OPEN_CONFLICT] = sum(1 for r, _ in listing.rows if r.case_id in conflicted)
    return CaseList(
        rows=[row for row in searched if _matches(row, show, conflicted)],
        modalities=listing.modalities, total=len(listing.rows), submitted=listing.submitted,
        counts=counts)


_BUILDERS: dict[tuple[int, str], threading.Lock] = {}


def _builder(project: Project, annotator: str) -> threading.Lock:
    """The lock held while ``annotator``'s list is built from ``project``."""
    with _KEPT_LOCK:
        return _BUILDERS.setdefault((id(project), annotator), threading.Lock())


def warm_case_list(project: Project, annotator: str) -> threading.Thread:
    """Build ``annotator``'s case list on a thread of its own, for the page that shows it
    next (the app starts it before making its window: on a team store the build waits on
    the server for most of its 150-200 ms, which then overlaps the window's making).
    A failure is left to the page's own read, which reports it."""
    def build() -> None:
        try:
            case_list(project, annotator)
        except Exception:  # noqa: BLE001 - the page reads again and says what went wrong
            return

    thread = threading.Thread(target=build, name="case-list-warm-up", daemon=True)
    thread.start()
    return thread


def _person(session: Session, name: str) -> User:
    """The annotator's row without their roles (which ``get_user`` loads with a second
    query): a list refresh needs only their id and name."""
    user = session.scalars(select(User).where(User.name == name)
                           .options(lazyload(User.roles))).first()
    if user is None:
        raise NotFound(f"no user named {name!r} in this project")
    return user


@dataclass(frozen=True)
class _Listing:
    """An annotator's whole list, sorted, with what :func:`case_list` counts over it, and
    the mark (:func:`_mark`) of the rows it was built from."""

    mark: tuple[Any, ...]
    rows: list[tuple[CaseRow, str]]  # each row and its search text
    counts: dict[str, int]  # every filter but the open-conflict one
    modalities: list[str]
    submitted: int


# The last listing built for each annotator (by user id): a refresh whose rows did not change
# since (same mark) filters and searches it instead of building it again.
_LISTINGS: dict[uuid.UUID, _Listing] = {}
_LISTINGS_KEPT = 64


def _mark(session: Session, user_id: uuid.UUID) -> tuple[Any, ...]:
    """What changes whenever a row of the annotator's list could show something else, read
    with one aggregate through the rater's index instead of the rows themselves.

    Every ORM write of a work row or a case bumps its ``version`` (optimistic locking) and a
    row's edit its ``updated_at``; an assignment adds a row (count, latest ``created_at``),
    a withdrawal takes one away; a draft never changes in place (a new draft is a new
    revision, which the work row is moved to). Repeats count once they are due, so one that
    falls due changes the mark too."""
    now = utcnow()
    if walled(session):
        # The rater's own rows through annotator_my_case_work (0027), past the row policy
        # the plain aggregate runs every case through; "mine" says the connection is the
        # rater's own (else, a senior reading another's list, the plain aggregate below).
        mine, *mark = session.execute(_OWN_MARK, {"me": user_id, "now": now}).one()
        if mine:
            return tuple(mark)
    due = sql_case((and_(Annotation.repeat_of.is_not(None), Annotation.due_at <= now), 1),
                   else_=0)
    query = (
        select(func.count(), func.sum(Annotation.version), func.max(Annotation.updated_at),
               func.max(Annotation.created_at), func.sum(Case.version), func.sum(due))
        .select_from(Annotation)
        .join(Case, Annotation.case_pk == Case.id)
        .where(Annotation.annotator_id == user_id, Annotation.withdrawn_at.is_(None))
        .execution_options(**WITH_REPEATS)
    )
    return tuple(session.execute(query).one())


_OWN_MARK = text(
    "SELECT coalesce((SELECT annotator_me()) = :me, false), count(*), sum(version),"
    " max(updated_at), max(created_at), sum(case_version),"
    " sum(CASE WHEN repeat_of IS NOT NULL AND due_at <= :now THEN 1 ELSE 0 END)"
    " FROM annotator_my_case_work"
).bindparams(bindparam("me", type_=Uuid), bindparam("now", type_=DateTime))


def _listing(session: Session, user: Any, file: Path | None = None
             ) -> tuple[_Listing, bool]:
    """The annotator's whole list: the one kept when its mark (and calibration) is unchanged,
    in memory or, the first time in this process, in ``file``; else built again (reading
    only the labels and drafts changed since, :func:`_summaries`). True: it was built."""
    first = first_for(session, user, "case")
    mark = (*_mark(session, user.id), tuple(sorted(first)))
    with _KEPT_LOCK:
        kept = _LISTINGS.get(user.id)
    if kept is None:  # a listing kept in memory is newer than the file written with it
        kept = _read_kept(file, mark)
        if kept is not None:
            _keep(user.id, kept)
    if kept is not None and kept.mark == mark:
        return kept, False
    found = session.execute(_assigned_columns(user.id)).all()
    works = _served_columns(session, [_Work(*f[:6]) for f in found])
    drafts = _drafts(session, [(f.revision_id, f.content_hash) for f in found])
    summaries = _summaries(session, [(w, (f.revision_id, f.content_hash))
                                     for w, f in zip(works, found, strict=True)], drafts)
    everything = [
        _listed(work, f.case_id, f.case_state, f.problems, drafts[draft], summaries[key])
        for work, f in zip(works, found, strict=True)
        for draft in [(f.revision_id, f.content_hash)]
        for key in [work.key + draft]
    ]
    # Calibration items first for a rater in calibration, then by case id.
    everything.sort(key=lambda pair: (pair[0].case_id not in first, natural_key(pair[0].case_id)))
    listing = _listing_of(mark, everything)
    _keep(user.id, listing)
    return listing, True


def _listing_of(mark: tuple[Any, ...], everything: list[tuple[CaseRow, str]]) -> _Listing:
    rows = [row for row, _ in everything]
    return _Listing(
        mark=mark, rows=everything,
        counts={key: sum(1 for r in rows if _matches(r, key)) for key in FILTERS
                if key != OPEN_CONFLICT},
        modalities=sorted({m for r in rows for m in r.modalities}),
        submitted=sum(1 for r in rows if r.state == AnnotationState.SUBMITTED.value))


def _keep(user_id: uuid.UUID, listing: _Listing) -> None:
    with _KEPT_LOCK:
        _LISTINGS.pop(user_id, None)
        _LISTINGS[user_id] = listing
        while len(_LISTINGS) > _LISTINGS_KEPT:
            _LISTINGS.pop(next(iter(_LISTINGS)))


# -- the listing kept on disk ------------------------------------------------------------------
# A folder project keeps each annotator's last listing in its cache folder, so the first list
# of a new process (the app starting) reads one small file instead of every row's labels and
# draft when nothing changed since: the same mark decides. Any unreadable, foreign or older
# file is ignored and written again.
_KEPT_FORMAT = 1
_KEPT_MAX_BYTES = 64 * 1024 * 1024  # 1,000 rows take about 0.3 MB


_ROW_FIELDS = tuple(f.name for f in fields(CaseRow))  # a row is kept as its values, in order


def _json_value(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else str(value)


def _row_from(values: list[Any]) -> CaseRow:
    row = dict(zip(_ROW_FIELDS, values, strict=True))
    updated = row["updated_at"]
    return CaseRow(**{**row, "modalities": tuple(row["modalities"]),
                      "updated_at": datetime.fromisoformat(updated) if updated else None})


def _kept_file(project: Project, user_id: uuid.UUID) -> Path | None:
    if project.folder is None:
        return None
    return project.folder / "cache" / "case-lists" / f"{user_id.hex}.json"


def _mark_text(mark: tuple[Any, ...]) -> str:
    return json.dumps(mark, default=str)


def _read_kept(file: Path | None, mark: tuple[Any, ...]) -> _Listing | None:
    if file is None:
        return None
    try:
        if file.stat().st_size > _KEPT_MAX_BYTES:  # not one this app wrote: built again
            return None
        data = json.loads(file.read_bytes())
        if (data["format"] != _KEPT_FORMAT or data["fields"] != list(_ROW_FIELDS)
                or data["mark"] != _mark_text(mark)):
            return None
        everything = [(_row_from(values), hay) for values, hay in data["rows"]]
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return _listing_of(mark, everything)


def _write_kept(file: Path | None, listing: _Listing) -> None:
    if file is None:
        return
    rows = [([getattr(row, name) for name in _ROW_FIELDS], hay) for row, hay in listing.rows]
    text = json.dumps({"format": _KEPT_FORMAT, "fields": _ROW_FIELDS,
                       "mark": _mark_text(listing.mark), "rows": rows}, default=_json_value)
    try:
        file.parent.mkdir(parents=True, exist_ok=True)
        part = file.with_name(f"{file.name}.{uuid.uuid4().hex}.part")
        part.write_text(text, encoding="utf-8")
        part.replace(file)  # whole or not at all, whoever writes last
    except OSError:
        pass  # a cache: a read-only folder only costs the next start its time


def has_cases(project: Project, annotator: str) -> bool:
    """True when ``annotator`` has an assigned case (what :func:`case_list` would list
    unfiltered), read with one short query instead of the whole list."""
    with project.read() as session:
        user = get_user(session, annotator)
        return session.execute(_assigned(user.id).limit(1)).first() is not None


def case_row(project: Project, annotator: str, case_id: str) -> CaseRow:
    """One row of the annotator's case list (the list updates it after an edit or submit).

    Raises NotFound when the case is not (or no longer) assigned to ``annotator``.
    """
    with project.read() as session:
        user = get_user(session, annotator)
        found = session.execute(_assigned(user.id).where(Case.case_id == case_id)).first()
        if found is None:
            raise NotFound(f"case {case_id} is not assigned to {annotator}")
        draft = _drafts(session, [(found[3], found[4])])[(found[3], found[4])]
        return _row(served(session, found[0]), found[1], found[2], found[5], draft)[0]


def _row(annotation: Annotation, case_id: str, case_state: str, problems: list[Any] | None,
         draft: _Draft) -> tuple[CaseRow, str]:
    """A case list row from a loaded annotation, and the text a search looks in."""
    work = _Work(annotation.id, annotation.version, annotation.updated_at, annotation.state,
                 annotation.needs_recheck, annotation.repeat_of)
    return _listed(work, case_id, case_state, problems, draft,
                   _summary(annotation.labels or {}, draft.figures))


def _modalities(content: dict[str, Any]) -> tuple[str, ...]:
    exams = content.get("imaging_examinations") or []
    found = {str((exam.get("meta_info") or {}).get("modality") or "").strip()
             for exam in exams if isinstance(exam, dict)}
    return tuple(sorted(m for m in found if m))


def natural_key(text: str) -> tuple[Any, ...]:
    """Sort key that orders embedded numbers numerically (``demo-9`` < ``demo-10``)."""
    return tuple(int(p) if p.isdigit() else p.lower() for p in re.split(r"(\d+)", text))


def case_images(project: Project, annotator: str, case_id: str) -> dict[str, list[ImageRecord]]:
    """The images of each exam (figure -> images in the exam's ``image_paths`` order).

    Reads the revision the annotator's annotation is on; an exam without images maps to an
    empty list. Raises NotFound when the case is not assigned to ``annotator``.
    """
    with project.read() as session:
        user = get_user(session, annotator)
        row = session.execute(
            select(Annotation, CaseRevision)
            .join(Case, Annotation.case_pk == Case.id)
            .join(CaseRevision, Annotation.revision_id == CaseRevision.id)
            .where(
                Case.case_id == case_id,
                Annotation.annotator_id == user.id,
                Annotation.withdrawn_at.is_(None),
            )
        ).first()
        if row is None:
            raise NotFound(f"case {case_id} is not assigned to {annotator}")
        _annotation, revision = row
        return revision_images(session, revision)


def revision_images(session: Session, revision: CaseRevision) -> dict[str, list[ImageRecord]]:
    """The images of each exam of one draft revision (see :func:`case_images`)."""
    stored = list(session.scalars(select(CaseImage).where(CaseImage.revision_id == revision.id)))
    content = revision.content
    refs = {img.draft_path: ImageRecord.from_row(img) for img in stored}
    out: dict[str, list[ImageRecord]] = {}
    for exam in content.get("imaging_examinations") or []:
        if not isinstance(exam, dict) or "figure" not in exam:
            continue
        figure = str(exam["figure"])
        paths = [p for p in exam.get("image_paths") or [] if isinstance(p, str)]
        listed = [refs[p] for p in paths if p in refs]
        extra = sorted(
            (r for r in refs.values() if figure in r.figures and r not in listed),
            key=lambda r: natural_key(r.draft_path),
        )
        out[figure] = listed + extra
    return out


def image_bytes(project: Project, sha256: str) -> bytes:
    """The stored bytes of an image (safe to call from a worker thread)."""
    with project.read() as session:
        return project.images.get(session, sha256)


def annotators(project: Project) -> list[str]:
    """Names of the project's users who hold the annotator role, sorted."""
    return [u.name for u in list_users(project) if may(u.roles, Action.TAKE_ASSIGNED_WORK)]


def default_annotator(project: Project) -> str | None:
    """An annotator to show when nobody was chosen (screenshots): the first with open work."""
    names = annotators(project)
    for name in names:
        listed = case_list(project, name)
        if any(r.state == AnnotationState.IN_PROGRESS.value for r in listed.rows):
            return name
    return names[0] if names else None


def label_edits(family: str, item: str, value: Any) -> list[LabelEdit]:
    """The edits :func:`annotating.set_label` makes, for callers that apply them (undo)."""
    if family in SUGGESTIBLE and value is not None:
        value = {"value": value, "how": "set"}
    return [LabelEdit(label_key(family, item), value)]


def accept_edits(
    content: dict[str, Any], labels: dict[str, Any], keys: list[str] | None = None
) -> list[LabelEdit]:
    """Edits that accept the draft's suggestions (all, or ``keys``); set labels are kept."""
    return suggestion_accept_edits(content, labels, keys)


def exam_suggestion_keys(figure: str) -> list[str]:
    """The suggestion keys of one exam (accepted together with one key)."""
    return [label_key("importance", figure), label_key("stage", figure)]
