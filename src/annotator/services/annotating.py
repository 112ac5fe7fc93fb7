"""The annotator's operations on their own annotation of a case.

Blinding is structural: every function here is addressed by (annotator, case) and reads or
writes only that annotator's row. Each edit is its own transaction, recorded in the history
with the old and new value, so a killed process loses nothing that was acknowledged.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.domain import labels as L
from annotator.domain.states import AnnotationState, CaseState, can_edit, can_reopen
from annotator.domain.suggestions import accept_edits, figures, suggestions
from annotator.errors import ConflictError, NotFound, StateError
from annotator.services.review.base import active_annotation
from annotator.services.review.caseflow import refresh_case_state
from annotator.services.users import get_user
from annotator.store.history import record
from annotator.store.project import Project
from annotator.store.schema import Adjudication, Annotation, Case, CaseRevision, utcnow


@dataclass(frozen=True)
class AnnotationView:
    """What an annotator sees of one case: the draft, suggestions and their own labels."""

    case_id: str
    case_state: str
    state: str
    version: int
    labels: dict[str, Any]
    content: dict[str, Any]
    figures: list[str]
    suggestions: dict[str, Any]
    needs_recheck: bool
    problems: list[dict[str, str]]


@dataclass(frozen=True)
class EditResult:
    """What an edit changed: the new version and the edits that undo it."""

    version: int
    changed: list[str]
    inverse: list[L.LabelEdit]
    state: str


def _load(session: Session, annotator: str, case_id: str) -> tuple[Case, Annotation]:
    user = get_user(session, annotator)
    case = session.scalars(select(Case).where(Case.case_id == case_id)).first()
    if case is None:
        raise NotFound(f"no case {case_id!r}")
    annotation = active_annotation(session, case, user.id)
    if annotation is None:
        raise NotFound(f"case {case_id} is not assigned to {annotator}")
    return case, annotation


def _content(session: Session, annotation: Annotation) -> CaseRevision:
    revision = session.get(CaseRevision, annotation.revision_id)
    assert revision is not None
    return revision


def view(project: Project, annotator: str, case_id: str) -> AnnotationView:
    """The annotator's own view of a case (never another annotator's labels)."""
    with project.read() as session:
        case, annotation = _load(session, annotator, case_id)
        revision = _content(session, annotation)
        return AnnotationView(
            case_id=case.case_id,
            case_state=case.state,
            state=annotation.state,
            version=annotation.version,
            labels=dict(annotation.labels),
            content=revision.content,
            figures=figures(revision.content),
            suggestions=suggestions(revision.content),
            needs_recheck=annotation.needs_recheck,
            problems=list(revision.problems),
        )


def edit(
    project: Project,
    annotator: str,
    case_id: str,
    edits: list[L.LabelEdit],
    *,
    expected_version: int | None = None,
    action: str = "label",
) -> EditResult:
    """Apply label edits atomically; refuses a stale ``expected_version``."""
    with project.tx() as session:
        case, annotation = _load(session, annotator, case_id)
        why = can_edit(annotation.state, case.state)
        if why:
            raise StateError(f"{case_id}: {why}")
        if expected_version is not None and expected_version != annotation.version:
            latest = "; ".join(f"{e.key} is now {annotation.labels.get(e.key)!r}" for e in edits)
            raise ConflictError(f"{case_id}: changed elsewhere since it was opened ({latest});"
                                " nothing was saved: reload it")
        figs = figures(_content(session, annotation).content)
        for e in edits:
            L.validate_edit(e, figs)
        new_labels, inverse = L.apply_edits(annotation.labels, edits)
        changed = [e.key for e in edits if annotation.labels.get(e.key) != e.value]
        if not changed:
            return EditResult(annotation.version, [], [], annotation.state)
        for e in edits:
            record(
                session,
                annotator,
                action,
                case_pk=case.id,
                annotation_id=annotation.id,
                key=e.key,
                before=annotation.labels.get(e.key),
                after=e.value,
            )
        annotation.labels = new_labels
        annotation.updated_at = utcnow()
        if annotation.state == AnnotationState.ASSIGNED.value:
            annotation.state = AnnotationState.IN_PROGRESS.value
        session.flush()
        return EditResult(annotation.version, changed, inverse, annotation.state)


def set_label(
    project: Project, annotator: str, case_id: str, family: str, item: str, value: Any
) -> EditResult:
    """Set one label chosen by the annotator (suggestible families record ``how='set'``)."""
    if family in L.SUGGESTIBLE and value is not None:
        value = {"value": value, "how": "set"}
    return edit(project, annotator, case_id, [L.LabelEdit(L.label_key(family, item), value)])


def accept_suggestions(
    project: Project, annotator: str, case_id: str, keys: list[str] | None = None
) -> EditResult:
    """Accept the draft's suggestions (for some keys, or all) as explicit labels."""
    current = view(project, annotator, case_id)
    edits = accept_edits(current.content, current.labels, keys)
    return edit(project, annotator, case_id, edits, action="accept_suggestion")


def submit(project: Project, annotator: str, case_id: str) -> str:
    """Submit the annotation; raises StateError listing what is missing. Returns case state."""
    with project.tx() as session:
        case, annotation = _load(session, annotator, case_id)
        if annotation.state == AnnotationState.SUBMITTED.value:
            raise StateError(f"{case_id}: already submitted")
        if case.state == CaseState.EXCLUDED.value:
            raise StateError(f"{case_id}: the case is excluded")
        if not annotation.labels:
            raise StateError(f"{case_id}: nothing has been labelled yet")
        missing = L.missing_for_submit(
            annotation.labels, figures(_content(session, annotation).content)
        )
        if missing:
            raise StateError(f"{case_id} cannot be submitted yet: " + "; ".join(missing))
        annotation.state = AnnotationState.SUBMITTED.value
        annotation.submitted_at = utcnow()
        annotation.submitted_labels = dict(annotation.labels)
        annotation.needs_recheck = False
        record(session, annotator, "submitted", case_pk=case.id, annotation_id=annotation.id)
        session.flush()
        return refresh_case_state(session, case, annotator)


def reopen(project: Project, annotator: str, case_id: str) -> str:
    """Reopen a submitted annotation (until the first adjudication decision on the case)."""
    with project.tx() as session:
        case, annotation = _load(session, annotator, case_id)
        decisions = (
            session.scalar(
                select(func.count())
                .select_from(Adjudication)
                .where(Adjudication.case_pk == case.id, Adjudication.superseded.is_(False))
            )
            or 0
        )
        why = can_reopen(annotation.state, case.state, decisions)
        if why:
            raise StateError(f"{case_id}: {why}")
        annotation.state = AnnotationState.IN_PROGRESS.value
        record(session, annotator, "reopened", case_pk=case.id, annotation_id=annotation.id)
        session.flush()
        return refresh_case_state(session, case, annotator)
