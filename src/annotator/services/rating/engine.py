"""The rating engine: set a field against a version, submit, blind view, reveal, conflicts,
adjudication with a required reason and undo, written once for every kind of rated work.

A kind (:class:`RatingKind`: a case's labels, an SME's verdict, a physician's scores) says
only what is its own: how an actor's row and an item are found, which values a field takes,
what a submit needs and moves, the conflict rule and what is revealed after submitting.
Every operation is one transaction with its history entries; undo is :meth:`set_fields`
with the inverse edits it returned (the store writes back what it replaced).
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from sqlalchemy import ColumnElement, Select, select
from sqlalchemy.orm import Session

from annotator.domain.labels import LabelEdit, apply_edits
from annotator.domain.permissions import Action
from annotator.errors import ConflictError, NotFound, StateError, ValidationError
from annotator.services.users import require_user
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import Decision, HistoryEntry, QualityItem, RatedWork, utcnow
from annotator.store.settings import GOLD_SHOWN_TO_RATERS, get_setting

# One field edit: set ``key`` to ``value`` (None clears it). The label map's edit, for all kinds.
FieldEdit = LabelEdit

SUBMITTED = "submitted"
IN_PROGRESS = "in_progress"


@dataclass(frozen=True)
class Loaded:
    """An actor's own row of rated work and the item it rates (kind-specific context)."""

    work: Any  # a RatedWork subclass
    item: Any


@dataclass(frozen=True)
class SetResult:
    """What a set changed: the new version and the edits that undo it."""

    version: int
    changed: list[str]
    inverse: list[FieldEdit]
    state: str
    before: dict[str, Any] = field(default_factory=dict)  # key -> the value it replaced
    after: dict[str, Any] = field(default_factory=dict)  # key -> the value stored now


class RatingKind(ABC):
    """One kind of rated work on the engine. Subclasses say what is the kind's own."""

    name: str  # "case" | "sme" | "judge"
    set_action: str  # history action of one field set
    submit_action: str
    adjudicate_action: str
    adjudicate_permission: Action  # the rule of domain.permissions a senior's decision needs
    reveal_refusal: str  # why nothing is revealed before submitting
    decision_model: type[Decision]

    # --- what each kind says -------------------------------------------------------------

    @abstractmethod
    def load(self, session: Session, actor: str, ref: Any) -> Loaded:
        """The actor's row on the item ``ref`` names; NotFound when not assigned."""

    @abstractmethod
    def title(self, loaded: Loaded) -> str:
        """How messages name the item (a case id, ``i-1 A-NEG1``, ``output 3``)."""

    @abstractmethod
    def refuse_edit(self, loaded: Loaded) -> str | None:
        """Why the row cannot change now (None: it can)."""

    @abstractmethod
    def check(self, loaded: Loaded, key: str, value: Any) -> Any:
        """The value to store for ``key`` (normalised), or ValidationError."""

    @abstractmethod
    def history(self, loaded: Loaded) -> dict[str, Any]:
        """What every history entry on this row names (case, task, item, ...)."""

    @abstractmethod
    def missing(self, session: Session, loaded: Loaded) -> list[str]:
        """Fields a submit still needs."""

    @abstractmethod
    def ready(self, session: Session, loaded: Loaded) -> dict[str, Any]:
        """The values to freeze on submit; raises the kind's refusal when not ready."""

    def entered(self, key: str, value: Any) -> Any:
        """A value as a person enters one field (cases record how a suggestible label was
        set); :meth:`set_fields` takes values as stored."""
        return value

    def resubmitted(self, loaded: Loaded) -> Any:
        """A submit of a submitted row: nothing to do (cases refuse it)."""
        return None

    def after_submit(self, session: Session, actor: str, loaded: Loaded) -> Any:
        """What a submit moves besides the row (a case's state); its value is returned."""
        return None

    def revealed(self, session: Session, loaded: Loaded) -> Any:
        """What the rater may see once submitted (the automated verdict, the judges)."""
        return None

    @abstractmethod
    def item_key(self, item: Any) -> str:
        """The item's reference as text (a case id, a task's or output's id): how calibration
        and gold items name it. ``item`` is a :class:`Loaded`'s item or :meth:`load_item`'s."""

    @abstractmethod
    def load_item(self, session: Session, item_ref: Any) -> Any:
        """The rated item for a senior (NotFound when there is none)."""

    @abstractmethod
    def submitted_items(self, session: Session) -> list[Any]:
        """References of the items with at least one submitted row."""

    @abstractmethod
    def submitted_by_rater(self, session: Session, item: Any) -> dict[str, dict[str, Any]]:
        """The item's submitted values, rater -> fields, in assignment order."""

    @abstractmethod
    def rule(self, item: Any, submitted: dict[str, dict[str, Any]]) -> dict[str, str]:
        """The kind's conflict rule: conflicting field -> why."""

    # A kind on the generic :meth:`adjudicate` says these four (cases decide in review).

    def check_decision(self, session: Session, item: Any, key: str, value: Any) -> Any:
        """The value a senior may decide for ``key`` (normalised), or ValidationError."""
        raise NotImplementedError

    def decision_of(self, item: Any) -> ColumnElement[bool]:
        """Which decisions belong to the item."""
        raise NotImplementedError

    def new_decision(self, item: Any, key: str, value: Any, reason: str, actor: str) -> Decision:
        """The decision row to add."""
        raise NotImplementedError

    def decision_history(self, item: Any) -> dict[str, Any]:
        """What a decision's history entry names."""
        raise NotImplementedError

    # --- the engine ------------------------------------------------------------------------

    def set_fields(self, project: Project, actor: str, ref: Any, edits: list[FieldEdit], *,
                   expected_version: int | None = None, action: str | None = None) -> SetResult:
        """Apply field edits atomically; refuses a stale ``expected_version``."""
        with project.tx() as session:
            loaded = self.load(session, actor, ref)
            return self.set_in(
                session, actor, loaded, edits, expected_version=expected_version, action=action
            )

    def set_in(
        self,
        session: Session,
        actor: str,
        loaded: Loaded,
        edits: list[FieldEdit],
        *,
        expected_version: int | None = None,
        action: str | None = None,
        **detail: Any,
    ) -> SetResult:
        """:meth:`set_fields` inside the caller's transaction (an import applies many rows in
        one); ``detail`` is added to every history entry."""
        work: RatedWork = loaded.work
        why = self.refuse_edit(loaded)
        if why:
            raise StateError(why)
        if expected_version is not None and expected_version != work.version:
            latest = "; ".join(f"{e.key} is now {work.values.get(e.key)!r}" for e in edits)
            raise ConflictError(f"{self.title(loaded)}: changed elsewhere since it was "
                                f"opened ({latest}); nothing was saved: reload it")
        checked = [FieldEdit(e.key, self.check(loaded, e.key, e.value)) for e in edits]
        old = dict(work.values)
        before = {e.key: old.get(e.key) for e in reversed(checked)}
        changed = [e.key for e in checked if old.get(e.key) != e.value]
        after = {e.key: e.value for e in checked}
        if not changed:
            return SetResult(work.version, [], [], work.state, before, after)
        new, inverse = apply_edits(old, checked)
        for e in checked:
            record(session, actor, action or self.set_action, key=e.key,
                   before=old.get(e.key), after=e.value, **self.history(loaded), **detail)
        work.values = new
        work.updated_at = utcnow()
        if work.state == "assigned":
            work.state = IN_PROGRESS
        session.flush()
        return SetResult(work.version, changed, inverse, work.state, before, after)

    def set_field(
        self, project: Project, actor: str, ref: Any, key: str, value: Any,
        *, expected_version: int | None = None,
    ) -> Any:
        """Save one field as it is entered (None clears it); returns the value it replaced.

        Undo is ``set_field`` with the returned value. A submitted row cannot change.
        """
        edit = FieldEdit(key, self.entered(key, value))
        result = self.set_fields(project, actor, ref, [edit], expected_version=expected_version)
        return result.before[key]

    def add_active_time(self, project: Project, actor: str, ref: Any,
                        seconds: float) -> float | None:
        """Add measured active seconds to the rater's row (the page's clock: idle gaps and
        pauses excluded); the new total, or None when nothing was stored (no time, or the
        row is submitted: re-reading it is not work on it)."""
        if seconds <= 0:
            return None
        with project.tx() as session:
            loaded = self.load(session, actor, ref)
            work: RatedWork = loaded.work
            if work.state == SUBMITTED:
                return None
            before = work.active_seconds
            work.active_seconds = round((before or 0.0) + seconds, 1)
            record(session, actor, "active_time", key="active_seconds", before=before,
                   after=work.active_seconds, **self.history(loaded))
            return work.active_seconds

    def submit(self, project: Project, actor: str, ref: Any) -> Any:
        """Freeze the row's values; the kind refuses an incomplete one and says what a submit
        moves (a case's state: returned)."""
        with project.tx() as session:
            return self.submit_in(session, actor, self.load(session, actor, ref))

    def submit_in(self, session: Session, actor: str, loaded: Loaded, **detail: Any) -> Any:
        """:meth:`submit` inside the caller's transaction; ``detail`` goes to the history."""
        work: RatedWork = loaded.work
        if work.state == SUBMITTED:
            return self.resubmitted(loaded)
        snapshot = self.ready(session, loaded)
        work.state = SUBMITTED
        work.submitted = snapshot
        work.submitted_at = utcnow()
        work.needs_recheck = False
        record(session, actor, self.submit_action, **self.submit_history(loaded, snapshot),
               **detail)
        session.flush()
        return self.after_submit(session, actor, loaded)

    def submit_history(self, loaded: Loaded, snapshot: dict[str, Any]) -> dict[str, Any]:
        """What the submit's history entry holds (the frozen values, by default)."""
        return {"after": dict(snapshot), **self.history(loaded)}

    def reveal(self, project: Project, actor: str, ref: Any) -> Any:
        """What the rater may see once submitted; StateError before (blinding holds here)."""
        with project.read() as session:
            loaded = self.load(session, actor, ref)
            if loaded.work.state != SUBMITTED:
                raise StateError(self.reveal_refusal)
            return self.revealed(session, loaded)

    def blind_view(self, project: Project, actor: str, ref: Any) -> dict[str, Any]:
        """The rater's own row as plain JSON: never another rater's values; what is revealed
        only once submitted."""
        with project.read() as session:
            loaded = self.load(session, actor, ref)
            work: RatedWork = loaded.work
            submitted = work.state == SUBMITTED
            return {
                "kind": self.name,
                "item": self.title(loaded),
                "state": "needs_recheck" if work.needs_recheck else work.state,
                "version": work.version,
                "values": dict(work.values),
                "missing": [] if submitted else self.missing(session, loaded),
                "revealed": self.revealed(session, loaded) if submitted else None,
                "feedback": self.feedback_in(session, loaded) if submitted else None,
            }

    def feedback(self, project: Project, actor: str, ref: Any) -> dict[str, Any] | None:
        """A calibration item's reference answer and reason beside the rater's own (a gold
        item's too when the curator shows them); StateError before submitting."""
        with project.read() as session:
            loaded = self.load(session, actor, ref)
            if loaded.work.state != SUBMITTED:
                raise StateError("submit your answer before the reference is shown")
            return self.feedback_in(session, loaded)

    def feedback_in(self, session: Session, loaded: Loaded) -> dict[str, Any] | None:
        """:meth:`feedback` of a submitted row inside the caller's transaction (None: the
        item is neither, or a gold item the curator does not show)."""
        if loaded.work.state != SUBMITTED:
            return None
        rows = session.scalars(
            select(QualityItem).where(QualityItem.kind == self.name,
                                      QualityItem.item_ref == self.item_key(loaded.item))
            .order_by(QualityItem.purpose)
        )
        show_gold = get_setting(session, GOLD_SHOWN_TO_RATERS)
        for row in rows:
            if row.purpose == "calibration" or show_gold:
                yours = loaded.work.submitted or {}
                return {"purpose": row.purpose, "reference": dict(row.reference),
                        "reason": row.reason,
                        "yours": {key: yours.get(key) for key in row.reference}}
        return None

    def trail(self, project: Project, actor: str, ref: Any) -> list[dict[str, Any]]:
        """The rater's own history on the item, oldest first (sets with the value each
        replaced, submits, reopenings): the append-only record undo and audits read."""
        with project.read() as session:
            loaded = self.load(session, actor, ref)
            names = self.history(loaded)
            query = select(HistoryEntry).where(HistoryEntry.actor == actor)
            if names.get("case_pk") is not None:  # history is indexed by case
                query = query.where(HistoryEntry.case_pk == names["case_pk"])
            if loaded.work.repeat_of is not None:  # a hidden repeat: its own entries only
                query = query.where(HistoryEntry.at >= loaded.work.created_at)
            rows = session.scalars(query.order_by(HistoryEntry.at, HistoryEntry.id))
            return [
                {"at": e.at.isoformat(), "action": e.action, "key": e.key,
                 "before": e.before, "after": e.after}
                for e in rows
                if all(_named(e, k) == v for k, v in names.items())
            ]  # fmt: skip

    def conflicts(self, project: Project, actor: str, item_ref: Any) -> dict[str, str]:
        """The item's conflicting fields under the kind's rule (seniors and curators only)."""
        with project.read() as session:
            require_user(session, actor, Action.READ_OTHERS_WORK)
            item = self.load_item(session, item_ref)
            return self.rule(item, self.submitted_by_rater(session, item))

    def open_conflicts(self, project: Project, actor: str) -> dict[Any, list[str]]:
        """Every item's conflicting fields no senior has decided yet: item ref -> fields."""
        with project.read() as session:
            require_user(session, actor, Action.READ_OTHERS_WORK)
            return self.open_conflicts_in(session)

    def open_conflict_totals(self, project: Project, actor: str) -> tuple[int, int]:
        """(items with an open conflict, open conflicts): what the desk and the meta-review
        show. A kind that keeps them per item counts its keys instead (SME)."""
        found = self.open_conflicts(project, actor)
        return len(found), sum(map(len, found.values()))

    def open_conflicts_in(self, session: Session) -> dict[Any, list[str]]:
        """:meth:`open_conflicts` inside the caller's read, item by item: a few queries per
        item. A kind whose items are many reads them all at once instead (SME, judge)."""
        out: dict[Any, list[str]] = {}
        model = self.decision_model
        for ref in self.submitted_items(session):
            item = self.load_item(session, ref)
            decided = set(session.scalars(
                select(model.key).where(self.decision_of(item), model.superseded.is_(False))
            ))
            found = self.rule(item, self.submitted_by_rater(session, item))
            undecided = [key for key in found if key not in decided]
            if undecided:
                out[ref] = undecided
        return out

    def adjudicate(
        self, project: Project, actor: str, item_ref: Any, key: str, value: Any, reason: str
    ) -> None:
        """Record the senior's value of one field; the reason is required. An earlier decision
        on the field is kept, superseded."""
        if not reason.strip():
            raise ValidationError("an adjudication needs a reason")
        with project.tx() as session:
            require_user(session, actor, self.adjudicate_permission)
            item = self.load_item(session, item_ref)
            value = self.check_decision(session, item, key, value)
            old = supersede(session, self.decision_model, self.decision_of(item), key)
            session.add(self.new_decision(item, key, value, reason, actor))
            record(session, actor, self.adjudicate_action, key=key,
                   before=old[-1].value if old else None, after=value, reason=reason,
                   **self.decision_history(item))


@dataclass(frozen=True)
class Recorded:
    """A row's values and submission as another copy of the project recorded them (the
    annotator's package, the curator's bundle); the history that made them travels with them."""

    values: dict[str, Any]
    state: str
    submitted: dict[str, Any] | None = None
    submitted_at: datetime | None = None
    needs_recheck: bool = False
    updated_at: datetime | None = None  # None: now


def apply_recorded(work: RatedWork, recorded: Recorded) -> None:
    """Take the row's values and submission as recorded elsewhere, whole. No history entry is
    written: the entries that made them are appended by the caller, which has checked the
    revision they were made on (a package on an older one is not applied but sent back)."""
    work.values = dict(recorded.values)
    work.state = recorded.state
    work.submitted = recorded.submitted
    work.submitted_at = recorded.submitted_at
    work.needs_recheck = recorded.needs_recheck
    work.updated_at = recorded.updated_at or utcnow()


def reopen_work(work: RatedWork, *, recheck: bool = False) -> None:
    """Return a row to ``in_progress`` with its values kept (counted again once resubmitted);
    ``recheck`` flags it to be checked again against what changed under it. The caller
    records why."""
    work.state = IN_PROGRESS
    if recheck:
        work.needs_recheck = True
    work.updated_at = utcnow()


def _named(entry: HistoryEntry, name: str) -> Any:
    """What a history entry says of one name: its own column, else its detail."""
    if name in ("case_pk", "annotation_id"):
        return getattr(entry, name)
    return entry.detail.get(name)


def supersede(
    session: Session, model: type[Decision], of_item: ColumnElement[bool], key: str
) -> list[Decision]:
    """Mark the current decisions on one field of one item superseded; returns them."""
    old = list(session.scalars(
        select(model)
        .where(of_item, model.key == key, model.superseded.is_(False))
        .order_by(model.decided_at)
    ))
    for row in old:
        row.superseded = True
    return old


def the_one(project: Project, query: Select[uuid.UUID], missing: str) -> uuid.UUID:
    """The one id ``query`` finds (a rated item named on the command line); NotFound with
    ``missing`` when it finds none or several."""
    with project.read() as session:
        found = session.scalars(query).all()
        if len(found) != 1:
            raise NotFound(missing)
        return found[0]
