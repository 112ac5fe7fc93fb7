"""``annotator repair``: recompute every derived case state and fix the ones that drifted, and
the project counters (``repair_counts``), the review queue's keys (``repair_queue_keys``) and the
SME tasks' keys (``repair_sme_keys``).

A case's state follows from its active annotations (every one submitted -> in review). Row
locks now keep concurrent writers from leaving a case behind
(``services.review.caseflow.lock_case``); a store written before that, or restored from an
odd backup, may still hold a case in ``annotating`` whose annotations are all submitted.
Repair finds each such case and moves it through the same transition the app uses, recorded
in the history like any other change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from annotator.domain.permissions import Action
from annotator.domain.states import CaseState, case_state_after_submissions
from annotator.services.review.base import active_annotations
from annotator.services.review.caseflow import refresh_case_state
from annotator.services.review.queue import fix_keys, key_drift
from annotator.services.sme.keys import fix_keys as fix_sme_keys
from annotator.services.sme.keys import key_drift as sme_key_drift
from annotator.services.users import require
from annotator.store import counts, queue_keys, sme_keys
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import Case


@dataclass(frozen=True)
class StateFix:
    case_id: str
    before: str
    after: str


def repair_case_states(project: Project, actor: str, *, dry_run: bool = False) -> list[StateFix]:
    """The cases whose stored state differs from the one their annotations imply (curators).

    Without ``dry_run`` each is moved to the implied state in one transaction.
    """
    fixes: list[StateFix] = []
    with (project.read() if dry_run else project.tx()) as session:  # a dry run only reads
        require(session, actor, Action.REPAIR)
        for case in session.scalars(select(Case).order_by(Case.case_id)):
            states = [a.state for a in active_annotations(session, case)]
            implied = case_state_after_submissions(CaseState(case.state), states).value
            if implied == case.state:
                continue
            fixes.append(StateFix(case.case_id, case.state, implied))
            if not dry_run:
                refresh_case_state(session, case, actor)
    return fixes


@dataclass(frozen=True)
class CountFix:
    """A project counter (``status``, the desk) that differs from a recount of the rows."""

    key: str
    stored: int
    actual: int


def repair_counts(project: Project, actor: str, *, dry_run: bool = False) -> list[CountFix]:
    """The counters that drifted from the rows (curators); without ``dry_run`` each gets the
    difference added, recorded in the history.

    The writes keep the counters in their own transactions (``store.counts``); a drift means
    something wrote rows past the app (a manual edit, an odd restore)."""
    with (project.read() if dry_run else project.tx()) as session:
        require(session, actor, Action.REPAIR)
        conn = session.connection()
        fixes = [CountFix(k, stored, actual) for k, (stored, actual) in counts.drift(conn).items()]
        if fixes and not dry_run:
            counts.apply(conn, {f.key: f.actual - f.stored for f in fixes})
            record(session, actor, "counts_repaired",
                   before={f.key: f.stored for f in fixes},
                   after={f.key: f.actual for f in fixes})
    return fixes


@dataclass(frozen=True)
class KeyFix:
    """A review queue key (``store.queue_keys``) that differs from a recomputation."""

    case_id: str
    stored: str
    actual: str


def _shown(key: tuple[int, int, int] | None, stale: bool = False) -> str:
    if stale:
        return "stale (detect again)"
    return "not in the queue" if key is None else "group {}, impact {}, {} open".format(*key)


def repair_queue_keys(project: Project, actor: str, *, dry_run: bool = False
                      ) -> list[KeyFix]:
    """The review queue keys that drifted from the rows (curators); without ``dry_run`` each
    is stored again (or marked stale when its detection is), recorded in the history.

    The writes keep the keys in their own transactions; a drift means something wrote rows
    past the app (a manual edit, an odd restore). A dry run reads every reviewed case."""
    with (project.read() if dry_run else project.tx()) as session:
        require(session, actor, Action.REPAIR)
        drifted = key_drift(session)
        fixes = [KeyFix(d.case_id, _shown(d.stored), _shown(d.actual, d.stale))
                 for d in drifted]
        if drifted and not dry_run:
            fix_keys(session, drifted)
        # The totals per group the database keeps from the keys (after the keys' fixes,
        # which its triggers count): a drift means they were written past the triggers.
        conn = session.connection()
        kept, counted = queue_keys.totals(conn), queue_keys.counted_totals(conn)
        if kept != counted:
            fixes.append(KeyFix(TOTALS_ROW, _totals_shown(kept), _totals_shown(counted)))
            if not dry_run:
                queue_keys.recount_totals(conn)
        if fixes and not dry_run:
            record(session, actor, "queue_keys_repaired",
                   before={f.case_id: f.stored for f in fixes},
                   after={f.case_id: f.actual for f in fixes})
    return fixes


TOTALS_ROW = "(queue totals)"  # the fix of the totals per group, among the cases' fixes


def _totals_shown(totals: dict[int, tuple[int, int]]) -> str:
    return "; ".join(f"group {g}: {n} cases, {o} open" for g, (n, o) in sorted(totals.items())
                     ) or "none"


@dataclass(frozen=True)
class SmeKeyFix:
    """An SME task's key (``store.sme_keys``) that differs from a recomputation."""

    task_id: str
    stored: str
    actual: str


def _sme_shown(key: tuple[Any, str, int] | None) -> str:
    return "no key" if key is None else f"{key[1]}, {key[2]} open"


def repair_sme_keys(project: Project, actor: str, *, dry_run: bool = False
                    ) -> list[SmeKeyFix]:
    """The SME task keys that drifted from the rows (curators); without ``dry_run`` each is
    stored again, recorded in the history. A dry run reads every verdict."""
    with (project.read() if dry_run else project.tx()) as session:
        require(session, actor, Action.REPAIR)
        drifted = sme_key_drift(session)
        fixes = [SmeKeyFix(str(d.task_id), _sme_shown(d.stored), _sme_shown(d.actual))
                 for d in drifted]
        if drifted and not dry_run:
            fix_sme_keys(session, drifted)
        conn = session.connection()  # the totals the database keeps (see repair_queue_keys)
        kept, counted = sme_keys.totals(conn), sme_keys.counted_totals(conn)
        if kept != counted:
            fixes.append(SmeKeyFix(TOTALS_ROW, _sme_totals_shown(kept),
                                   _sme_totals_shown(counted)))
            if not dry_run:
                sme_keys.recount_totals(conn)
        if fixes and not dry_run:
            record(session, actor, "sme_keys_repaired",
                   before={f.task_id: f.stored for f in fixes},
                   after={f.task_id: f.actual for f in fixes})
    return fixes


def _sme_totals_shown(totals: sme_keys.Totals) -> str:
    return "; ".join(f"{state}: {n} tasks, {c} conflicted, {o} open"
                     for (_, state), (n, c, o) in sorted(totals.items(), key=str)) or "none"
