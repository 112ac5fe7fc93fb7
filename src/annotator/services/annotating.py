"""The annotator's case-only operations on their own annotation: the view with the draft's
suggestions, setting a label or accepting suggestions, and reopening a submitted case.

Setting fields and submitting are the rating engine's (:data:`annotator.services.kinds.CASES`).
Blinding is structural: every function here is addressed by (annotator, case) and reads or
writes only that annotator's row.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.domain import labels as L
from annotator.domain.states import can_reopen
from annotator.domain.suggestions import accept_edits, figures, suggestions
from annotator.errors import StateError
from annotator.services import workspace
from annotator.services.rating.engine import SetResult, reopen_work
from annotator.services.review.caseflow import refresh_case_state
from annotator.services.review.kind import CASES, load_annotation, revision_of
from annotator.services.review.queue import list_items
from annotator.store.history import record
from annotator.store.image_record import ImageRecord
from annotator.store.project import Project
from annotator.store.repeats import case_state_for_rater
from annotator.store.schema import Adjudication, CaseRevision


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
    stamp: tuple[Any, ...] = ()  # view_stamp() as of this view


def view(project: Project, annotator: str, case_id: str) -> AnnotationView:
    """The annotator's own view of a case (never another annotator's labels)."""
    with project.read() as session:
        return _view(session, annotator, case_id)[0]


def view_with_images(project: Project, annotator: str, case_id: str
                     ) -> tuple[AnnotationView, dict[str, list[ImageRecord]]]:
    """:func:`view` and the images of each exam of its draft
    (:func:`~annotator.services.workspace.case_images`), read in one transaction: what
    opening a case needs, and one snapshot, so the images are always the view's draft's."""
    with project.read() as session:
        found, revision = _view(session, annotator, case_id)
        return found, workspace.revision_images(session, revision)


def _view(session: Session, annotator: str, case_id: str) -> tuple[AnnotationView, CaseRevision]:
    case, annotation = load_annotation(session, annotator, case_id)
    revision = revision_of(session, annotation)
    return AnnotationView(
        case_id=case.case_id,
        case_state=case_state_for_rater(case.state, annotation),
        state=annotation.state,
        version=annotation.version,
        labels=dict(annotation.labels),
        content=revision.content,
        figures=figures(revision.content),
        suggestions=suggestions(revision.content),
        needs_recheck=annotation.needs_recheck,
        problems=list(revision.problems),
        stamp=_stamp(case, annotation),
    ), revision


def view_stamp(project: Project, annotator: str, case_id: str) -> tuple[Any, ...]:
    """What changes whenever the annotator's view of a case could, read without the draft:
    the row served to them (a repeat falling due serves another) and its and the case's
    optimistic-lock versions, which every write of either bumps (a new draft moves the row
    to it). A view read earlier is still right while its ``stamp`` equals this."""
    with project.read() as session:
        case, annotation = load_annotation(session, annotator, case_id)
        return _stamp(case, annotation)


def _stamp(case: Any, annotation: Any) -> tuple[Any, ...]:
    return (str(annotation.id), annotation.version, case.version)


def set_label(
    project: Project, annotator: str, case_id: str, family: str, item: str, value: Any
) -> SetResult:
    """Set one label chosen by the annotator (suggestible families record ``how='set'``)."""
    if family in L.SUGGESTIBLE and value is not None:
        value = {"value": value, "how": "set"}
    edit = L.LabelEdit(L.label_key(family, item), value)
    return CASES.set_fields(project, annotator, case_id, [edit])


def accept_suggestions(
    project: Project, annotator: str, case_id: str, keys: list[str] | None = None
) -> SetResult:
    """Accept the draft's suggestions (for some keys, or all) as explicit labels."""
    current = view(project, annotator, case_id)
    edits = accept_edits(current.content, current.labels, keys)
    return CASES.set_fields(project, annotator, case_id, edits, action="accept_suggestion")


def reopen(project: Project, annotator: str, case_id: str) -> str:
    """Reopen a submitted annotation (until the first adjudication decision on the case)."""
    with project.tx() as session:
        case, annotation = load_annotation(session, annotator, case_id)
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
        reopen_work(annotation)
        record(session, annotator, "reopened", case_pk=case.id, annotation_id=annotation.id)
        session.flush()
        return refresh_case_state(session, case, annotator)


def my_cases(project: Project, user: str, *, show: str = "all", search: str = "",
             modality: str = workspace.ANY_MODALITY) -> workspace.CaseList:
    """The user's case list (``workspace.case_list``), with the open-conflict filter.

    ``show="open_conflict"`` keeps the user's cases that have an undecided conflict between
    annotators; it reads other people's work, so it needs the role that may (annotators
    are refused with the rule's sentence, and are not offered the filter:
    ``workspace.case_filters``).
    """
    conflicted: frozenset[str] | None = None
    if show == workspace.OPEN_CONFLICT:
        conflicted = frozenset(item.case_id for item in list_items(project, user, only_open=True))
    return workspace.case_list(project, user, show=show, search=search, modality=modality,
                               conflicted=conflicted)
