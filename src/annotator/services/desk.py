"""The curator's desk: where the project stands, as one typed snapshot.

:func:`desk_snapshot` gathers every figure of the desk page and of ``annotator desk``: the
counts ``status --json`` prints (:func:`~annotator.services.status.project_status`), the
round trip of ``roundtrip-status --json``, the open conflicts of ``review --status --json``
(the keys the writes keep, :func:`~annotator.services.review.queue.open_conflict_totals`, and
:func:`~annotator.services.kinds.waiting_elsewhere`), the agreement headline of
``agreement --json`` and the SME progress of ``sme-results --json`` (its counts, read
without its intervals: :func:`~annotator.services.sme.results.progress`), so a figure on the
desk is the same number the command line prints. What no other command shows (per
annotator: work in progress and median active time; stuck work; submissions per day; the
progress of every kind of rated work) is read here, one aggregate query per question,
never a query per case. The annotator table is read a page at a time, by name
(:func:`annotator_rows`, keyset): the snapshot holds the first :data:`ANNOTATORS_SHOWN` rows
and the total, and the desk page reads further pages as its table scrolls, so the desk's
figures do not grow with the number of people (302 at the bench's 100,000 cases).
Each part is read in ``project.read()``. The agreement values are
the point estimates of the stored per-case statistics (current after every submission, at any
size); their intervals are those of the cached full report when it is current, and the desk
never computes that report itself (minutes at 100,000 cases): ``agreement_intervals`` says
so, and the desk page computes it in the background.

Seniors see the desk (``Action.VIEW_DESK``); the agreement headline is the curator's only
(``Action.READ_AGREEMENT``): an adjudicator's snapshot says so instead of a figure.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import exists, func, or_, select
from sqlalchemy.orm import Session

from annotator.agreement.tables import headline
from annotator.domain.permissions import Action, may, needed_roles, refusal
from annotator.domain.states import AnnotationState, CaseState
from annotator.errors import AnnotatorError, PermissionDenied, ValidationError
from annotator.services.agreement import estimates_and_report
from annotator.services.kinds import waiting_elsewhere
from annotator.services.review.queue import open_conflict_totals
from annotator.services.sme.results import progress as sme_progress
from annotator.services.status import project_status
from annotator.services.sync.status import roundtrip_status
from annotator.services.users import Person, people, require
from annotator.store import counts
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import Annotation, Case, RatedWork, User, UserRole, utcnow
from annotator.store.settings import STUCK_AFTER_DAYS, get_setting, put_setting

MAX_STUCK_DAYS = 3650
INTERVALS_PENDING = ("the values are current; their 95% intervals are being recomputed "
                     "(the full agreement report)")
UNFINISHED = (AnnotationState.ASSIGNED.value, AnnotationState.IN_PROGRESS.value)
STUCK_SHOWN = 100  # stuck work listed by name (oldest first); the total counts them all
# Annotator rows in the snapshot (by name): the desk's table shows ten, and reads the next
# page as it scrolls to the end of these.
ANNOTATORS_SHOWN = 20

# Where the conflicts of each kind are decided: the page id of the main window.
CONFLICT_PAGES = {"cases": "review", "sme_verdicts": "sme", "judge_scoring": "judge"}
CONFLICT_TITLES = {"cases": "Cases (meta-review)", "sme_verdicts": "SME review items",
                   "judge_scoring": "Judged outputs"}


@dataclass(frozen=True)
class AnnotatorRow:
    """One annotator's work on cases (assignments not withdrawn)."""

    name: str
    assigned: int
    in_progress: int
    submitted: int
    bundled: int | None  # None: not known here (an offline project)
    returned: int | None  # assigned cases whose work came back in a package
    median_active_seconds: float | None  # over their submitted cases with a measured time

    @property
    def not_started(self) -> int:
        return self.assigned - self.in_progress - self.submitted


@dataclass(frozen=True)
class ConflictQueue:
    """Conflicts of one kind waiting for a senior, and the page where they are decided."""

    key: str  # "cases" | "sme_verdicts" | "judge_scoring"
    title: str
    page: str  # the main window's page id
    items: int  # cases, SME items or judged outputs with an open conflict
    open_conflicts: int  # undecided conflicting fields


@dataclass(frozen=True)
class StuckWork:
    """An assignment nobody has edited for the stuck limit or longer."""

    case_id: str
    annotator: str
    state: str  # assigned | in_progress
    last_edit: datetime
    idle_days: float


@dataclass(frozen=True)
class FamilyHeadline:
    """One label family's headline agreement (the Table 8 "Annotator agreement" figure)."""

    id: str
    title: str
    agreement: float | None
    ci95: list[float] | None
    n_units: int
    alpha: float | None  # Krippendorff's alpha at the family's level


@dataclass(frozen=True)
class WorkProgress:
    """Assignments of one kind of rated work: how many are submitted."""

    kind: str  # "case" | "sme" | "judge"
    assigned: int
    in_progress: int
    submitted: int

    @property
    def fraction(self) -> float:
        return self.submitted / self.assigned if self.assigned else 0.0


@dataclass(frozen=True)
class BenchmarkProgress:
    """One SME benchmark's items: with a reference verdict, undecided, unsubmitted."""

    code: str
    label: str
    resolved: int
    undecided: int
    unsubmitted: int

    @property
    def total(self) -> int:
        return self.resolved + self.undecided + self.unsubmitted


@dataclass(frozen=True)
class DeskSnapshot:
    """Where the project stands (see the module docstring); ``as_json`` is ``desk --json``."""

    reader: str
    at: datetime
    status: dict[str, int]  # exactly ``status --json``
    cases_by_state: dict[str, int]
    needs_fix: int
    annotators: list[AnnotatorRow]  # the first page by name (all, when asked for all)
    annotators_total: int  # everyone the annotator table lists (:func:`annotator_rows`)
    conflicts: list[ConflictQueue]
    stuck_after_days: int
    stuck_total: int
    stuck: list[StuckWork]  # the oldest, at most STUCK_SHOWN
    agreement: list[FamilyHeadline] | None  # None: not computed for this reader
    agreement_note: str  # the report's basis statement, or why there is no figure
    sme_benchmarks: list[BenchmarkProgress]
    work: dict[str, WorkProgress]  # by kind
    submissions_per_day: list[tuple[str, int]]  # ISO date, case submissions that day
    notes: list[str] = field(default_factory=list)  # figures that could not be read, and why
    # False: the agreement values are current but their intervals wait for the full report
    # (agreement_report, which the desk page then computes in the background).
    agreement_intervals: bool = True

    def as_json(self) -> dict[str, Any]:
        def row(obj: Any, **extra: Any) -> dict[str, Any]:
            return {**asdict(obj), **extra}

        return {
            "reader": self.reader,
            "at": self.at.isoformat(timespec="seconds"),
            "status": self.status,
            "cases_by_state": self.cases_by_state,
            "needs_fix": self.needs_fix,
            "annotators": [row(a, not_started=a.not_started) for a in self.annotators],
            "annotators_total": self.annotators_total,
            "conflicts": [asdict(c) for c in self.conflicts],
            "stuck_after_days": self.stuck_after_days,
            "stuck_total": self.stuck_total,
            "stuck": [row(s, last_edit=s.last_edit.isoformat(timespec="seconds"))
                      for s in self.stuck],
            "agreement": None if self.agreement is None else [asdict(f) for f in self.agreement],
            "agreement_note": self.agreement_note,
            "agreement_intervals": self.agreement_intervals,
            "sme_benchmarks": [row(b, total=b.total) for b in self.sme_benchmarks],
            "work": {k: row(w, fraction=w.fraction) for k, w in self.work.items()},
            "submissions_per_day": [{"date": d, "submitted": n}
                                    for d, n in self.submissions_per_day],
            "notes": self.notes,
        }


def desk_snapshot(
    project: Project, reader: str, *, stuck_after_days: int | None = None,
    now: datetime | None = None, annotators: int | None = ANNOTATORS_SHOWN,
) -> DeskSnapshot:
    """Every figure of the desk for ``reader`` (an adjudicator or a curator).

    ``stuck_after_days`` overrides the project's setting for this call; ``now`` is the
    moment "no edit for N days" is measured from (the store's UTC clock by default);
    ``annotators``: how many annotator rows, by name, to read (``None``: all of them).
    """
    now = now or utcnow()
    _check_page_size(annotators)
    with project.read() as session:
        roles = _require_desk(session, reader)
        days = stuck_after_days if stuck_after_days is not None else get_setting(
            session, STUCK_AFTER_DAYS)
        if not 0 <= days <= MAX_STUCK_DAYS:
            raise ValidationError(f"the stuck limit is {days} days; give 0 to {MAX_STUCK_DAYS}")
        own = _own_figures(session, now - timedelta(days=days), now)
        page = _annotator_page(session, None, annotators)
        shown = len(page.people)
        total = shown if annotators is None or shown < annotators else int(
            session.scalar(select(func.count()).select_from(User).where(_lists_as_annotator()))
            or 0)
    notes: list[str] = []
    status = project_status(project)
    rows = _rows_of(project, page, notes)
    agreement, agreement_note, intervals = _agreement(project, reader, roles)
    return DeskSnapshot(
        reader=reader,
        at=now,
        status=status,
        cases_by_state={s.value: status[s.value] for s in CaseState},
        needs_fix=status["needs_fix"],
        annotators=rows,
        annotators_total=total,
        conflicts=_conflicts(project, reader),
        stuck_after_days=days,
        stuck_total=own.stuck_total,
        stuck=own.stuck,
        agreement=agreement,
        agreement_note=agreement_note,
        sme_benchmarks=_sme_progress(project, reader),
        work=own.work,
        submissions_per_day=own.per_day,
        notes=notes,
        agreement_intervals=intervals,
    )


def set_stuck_after_days(project: Project, actor: str, days: int) -> int:
    """Keep ``days`` as the project's stuck limit (curators only), recorded in the history
    with the value it replaced; returns that value."""
    if isinstance(days, bool) or not isinstance(days, int) or not 0 <= days <= MAX_STUCK_DAYS:
        raise ValidationError(f"the stuck limit is a whole number of days from 0 to "
                              f"{MAX_STUCK_DAYS}, not {days!r}")
    with project.tx() as session:
        require(session, actor, Action.SET_STUCK_LIMIT)
        before = get_setting(session, STUCK_AFTER_DAYS)
        if before != days:
            put_setting(session, STUCK_AFTER_DAYS, days)
            record(session, actor, "setting_changed", key=STUCK_AFTER_DAYS.key, before=before,
                   after=days)
        return before


def annotator_rows(project: Project, reader: str, *, after: str | None = None,
                   limit: int | None = ANNOTATORS_SHOWN) -> list[AnnotatorRow]:
    """The annotator table's rows by name, the first ``limit`` after the name ``after``
    (keyset: a page reads its own people and their counters, never everyone's); ``None``
    for ``limit``: all of them. Everyone who takes work is listed, and anyone else with
    case work not withdrawn (a former annotator's assignments)."""
    _check_page_size(limit)
    with project.read() as session:
        _require_desk(session, reader)
        page = _annotator_page(session, after, limit)
    return _rows_of(project, page, [])


def _check_page_size(limit: int | None) -> None:
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, int)
                              or limit < 1):
        raise ValidationError(f"a page of annotator rows holds at least one, not {limit!r}")


def _require_desk(session: Session, reader: str) -> list[str]:
    roles = _roles(session, reader)
    if not may(roles, Action.VIEW_DESK):
        raise PermissionDenied(refusal(Action.VIEW_DESK, reader))
    return roles


def _roles(session: Session, name: str) -> list[str]:
    return sorted(session.scalars(
        select(UserRole.role).join(User, User.id == UserRole.user_id).where(User.name == name)))


def _lists_as_annotator() -> Any:
    """Whom the annotator table lists: a role that takes work, or case work that counts
    (not withdrawn, not a hidden repeat: the ``rater:`` counters' rows), each found through
    an index, user by user."""
    takes_work = exists().where(UserRole.user_id == User.id,
                                UserRole.role.in_(needed_roles(Action.TAKE_ASSIGNED_WORK)))
    has_case_work = exists().where(RatedWork.rater_id == User.id, RatedWork.kind == "case",
                                   RatedWork.withdrawn_at.is_(None),
                                   RatedWork.repeat_of.is_(None))
    return or_(takes_work, has_case_work)


@dataclass
class _Page:
    """A page of the annotator table as read in one transaction: its people by name, their
    ``rater:`` counters (rater hex id -> state -> case work) and everyone's medians."""

    people: list[Person]
    raters: dict[str, dict[str, int]]
    medians: dict[str, float]


def _annotator_page(session: Session, after: str | None, limit: int | None) -> _Page:
    query = select(User.id).where(_lists_as_annotator()).order_by(User.name)
    if after is not None:
        query = query.where(User.name > after)
    if limit is not None:
        query = query.limit(limit)
    ids = list(session.scalars(query))
    if not ids:
        return _Page([], {}, {})
    conn = session.connection()
    return _Page(people(session, ids), counts.rater_counters(conn, ids),
                 counts.active_medians(conn))  # the medians: kept by this process


@dataclass
class _Own:
    """The figures read here (not by another command's function)."""

    stuck_total: int
    stuck: list[StuckWork]
    work: dict[str, WorkProgress]
    per_day: list[tuple[str, int]]


def _own_figures(session: Session, stuck_before: datetime, now: datetime) -> _Own:
    active = Annotation.withdrawn_at.is_(None)
    # Assignments per kind and state, and submissions per day: the counters the writes
    # keep (store.counts), a few rows per kind and per day, none per case.
    kept = counts.read(session.connection(), prefix=("day:", "work:"))
    work: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    per_day = []
    for key, n in kept.items():
        if not n:
            continue
        head, _, rest = key.partition(":")
        if head == "work":
            kind, _, state = rest.partition(":")
            work[kind][state] += n
        elif head == "day":
            per_day.append((rest, n))
    idle = (
        select(Case.case_id, User.name, Annotation.state, Annotation.updated_at)
        .join(Case, Case.id == Annotation.case_pk).join(User, User.id == Annotation.annotator_id)
        # Unfinished work by its last edit (ix_rated_work_state_updated_at): the rows read
        # are the stuck ones, not every assignment.
        .where(active, Annotation.state.in_(UNFINISHED),
               Case.state == CaseState.ANNOTATING.value, Annotation.updated_at <= stuck_before)
    )
    total = session.scalar(select(func.count()).select_from(idle.subquery())) or 0
    stuck = [
        StuckWork(case_id, name, state, at, round((now - at).total_seconds() / 86400, 1))
        for case_id, name, state, at in session.execute(
            idle.order_by(Annotation.updated_at, Case.case_id).limit(STUCK_SHOWN))
    ]
    per_day.sort()
    return _Own(
        stuck_total=int(total),
        stuck=stuck,
        work={kind: WorkProgress(kind, sum(work[kind].values()),
                                 work[kind].get(AnnotationState.IN_PROGRESS.value, 0),
                                 work[kind].get(AnnotationState.SUBMITTED.value, 0))
              for kind in ("case", "sme", "judge")},
        per_day=per_day,
    )


def _rows_of(project: Project, page: _Page, notes: list[str]) -> list[AnnotatorRow]:
    """The rows of ``page``'s people: their counters (``rater:`` rows read by their keys),
    median active time and round trip."""
    if not page.people:
        return []
    try:
        trips = {r.annotator: r for r in roundtrip_status(project, page.people, page.raters)}
    except AnnotatorError as exc:  # an annotator's offline project: no round trip here
        trips = {}
        notes.append(f"bundles and packages: {exc}")
    rows = []
    for person in page.people:
        rater = counts.hexid(person.id)
        states = page.raters.get(rater, {})
        trip = trips.get(person.name)
        rows.append(AnnotatorRow(
            name=person.name,
            assigned=sum(states.values()),
            in_progress=states.get(AnnotationState.IN_PROGRESS.value, 0),
            submitted=states.get(AnnotationState.SUBMITTED.value, 0),
            bundled=trip.bundled if trip else None,
            returned=trip.returned if trip else None,
            median_active_seconds=page.medians.get(rater),
        ))
    return rows


def _conflicts(project: Project, reader: str) -> list[ConflictQueue]:
    cases, conflicts = open_conflict_totals(project, reader)  # kept by the writes
    queues = [ConflictQueue("cases", CONFLICT_TITLES["cases"], CONFLICT_PAGES["cases"],
                            cases, conflicts)]
    for other in waiting_elsewhere(project, reader):
        queues.append(ConflictQueue(other.key, CONFLICT_TITLES.get(other.key, other.key),
                                    CONFLICT_PAGES.get(other.key, ""), other.items,
                                    other.open_conflicts))
    return queues


def _agreement(
    project: Project, reader: str, roles: list[str]
) -> tuple[list[FamilyHeadline] | None, str, bool]:
    """The headline per family: the point estimates from the stored per-case statistics
    (current after every submission, whatever the project's size), with the intervals of
    the cached full report when it is current; the report itself is never computed here."""
    if not may(roles, Action.READ_AGREEMENT):
        return None, refusal(Action.READ_AGREEMENT, reader), True
    estimates, report = estimates_and_report(project, reader)
    sections = {s["id"]: s for s in report["families"]} if report else {}
    families = []
    for family in estimates["families"]:
        strict = (family.get("details") or {}).get("strict_agreement")
        value = strict["value"] if family["id"] == "order" and strict else (
            family["coefficients"].get("percent_agreement"))
        ci = headline(sections[family["id"]])[1] if family["id"] in sections else None
        families.append(FamilyHeadline(family["id"], family["title"], value, ci,
                                       int(family["n_units"]),
                                       family["coefficients"].get("krippendorff_alpha")))
    if report is None:
        return families, INTERVALS_PENDING, False
    return families, str(report["basis"].get("statement", "")), True


def _sme_progress(project: Project, reader: str) -> list[BenchmarkProgress]:
    return [BenchmarkProgress(b.code, b.label, b.resolved, b.undecided, b.unsubmitted)
            for b in sme_progress(project, reader)]
