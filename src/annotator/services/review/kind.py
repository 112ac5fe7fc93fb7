"""Cases on the rating engine: an annotator's labels on one case (a flat label map).

What is the case's own: the draft revision the labels are set against, the label rules of
:mod:`annotator.domain.labels`, a submit that moves the case to review when its annotators
have all submitted, and decisions made in the meta-review (with a reason code).
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import ColumnElement, select
from sqlalchemy.orm import Session

from annotator.domain import labels as L
from annotator.domain.permissions import Action
from annotator.domain.states import CaseState, can_edit
from annotator.domain.suggestions import figures
from annotator.errors import NotFound, StateError
from annotator.review.items import case_items
from annotator.services.rating.engine import Loaded, RatingKind
from annotator.services.review.base import active_annotation, get_case, submitted_labels
from annotator.services.review.caseflow import refresh_case_state
from annotator.services.review.decisions import decide
from annotator.services.users import get_user
from annotator.store.project import Project
from annotator.store.repeats import served
from annotator.store.schema import Adjudication, Annotation, Case, CaseRevision


def load_annotation(session: Session, annotator: str, case_id: str) -> tuple[Case, Annotation]:
    """The case and the annotator's own (not withdrawn) annotation of it."""
    user = get_user(session, annotator)
    case = session.scalars(select(Case).where(Case.case_id == case_id)).first()
    if case is None:
        raise NotFound(f"no case {case_id!r}")
    annotation = active_annotation(session, case, user.id)
    if annotation is None:
        raise NotFound(f"case {case_id} is not assigned to {annotator}")
    return case, served(session, annotation)


def revision_of(session: Session, annotation: Annotation) -> CaseRevision:
    """The draft revision the annotation is set against."""
    revision = session.get(CaseRevision, annotation.revision_id)
    assert revision is not None  # foreign key
    return revision


class CaseKind(RatingKind):
    name = "case"
    set_action = "label"
    submit_action = "submitted"
    adjudicate_action = "adjudicated"
    adjudicate_permission = Action.ADJUDICATE_CASES
    reveal_refusal = "submit the case before anything is revealed"
    decision_model = Adjudication

    def load(self, session: Session, actor: str, ref: Any) -> Loaded:
        case, annotation = load_annotation(session, actor, str(ref))
        return Loaded(annotation, (case, revision_of(session, annotation)))

    def title(self, loaded: Loaded) -> str:
        return str(loaded.item[0].case_id)

    def refuse_edit(self, loaded: Loaded) -> str | None:
        why = can_edit(loaded.work.state, loaded.item[0].state)
        return f"{self.title(loaded)}: {why}" if why else None

    def check(self, loaded: Loaded, key: str, value: Any) -> Any:
        L.validate_edit(L.LabelEdit(key, value), figures(loaded.item[1].content))
        return value

    def entered(self, key: str, value: Any) -> Any:
        """A suggestible label set by hand records ``how``, so a draft's suggestion never
        silently becomes a label. A stage given as ``unranked`` marks the exam explicitly
        unranked (None alone would clear the stage)."""
        family, _item = L.split_key(key)
        if family == "stage" and value == "unranked":
            return {"value": None, "how": "set"}
        if family in L.SUGGESTIBLE and value is not None and not (
            isinstance(value, dict) and "how" in value
        ):
            return {"value": value, "how": "set"}
        return value

    def history(self, loaded: Loaded) -> dict[str, Any]:
        return {"case_pk": loaded.item[0].id, "annotation_id": loaded.work.id}

    def missing(self, session: Session, loaded: Loaded) -> list[str]:
        return L.missing_for_submit(loaded.work.labels, figures(loaded.item[1].content))

    def ready(self, session: Session, loaded: Loaded) -> dict[str, Any]:
        case_id, labels = self.title(loaded), loaded.work.labels
        if loaded.item[0].state == CaseState.EXCLUDED.value:
            raise StateError(f"{case_id}: the case is excluded")
        if not labels:
            raise StateError(f"{case_id}: nothing has been labelled yet")
        missing = self.missing(session, loaded)
        if missing:
            raise StateError(f"{case_id} cannot be submitted yet: " + "; ".join(missing))
        return dict(labels)

    def resubmitted(self, loaded: Loaded) -> Any:
        raise StateError(f"{self.title(loaded)}: already submitted")

    def submit_history(self, loaded: Loaded, snapshot: dict[str, Any]) -> dict[str, Any]:
        return self.history(loaded)

    def after_submit(self, session: Session, actor: str, loaded: Loaded) -> str:
        """The case's state: in review once its annotators have all submitted (a hidden
        repeat moves nothing)."""
        if loaded.work.repeat_of is not None:
            return str(loaded.item[0].state)
        return refresh_case_state(session, loaded.item[0], actor)

    def item_key(self, item: Any) -> str:
        return str(item[0].case_id)

    def load_item(self, session: Session, item_ref: Any) -> tuple[Case, dict[str, Any]]:
        """The case and its current draft content."""
        case = get_case(session, str(item_ref))
        revision = session.get(CaseRevision, case.current_revision_id)
        return case, revision.content if revision is not None else {}

    def submitted_items(self, session: Session) -> list[Any]:
        return list(session.scalars(
            select(Case.case_id).join(Annotation, Annotation.case_pk == Case.id)
            .where(Annotation.state == "submitted", Annotation.withdrawn_at.is_(None))
            .distinct()
        ))

    def submitted_by_rater(self, session: Session, item: Any) -> dict[str, dict[str, Any]]:
        return submitted_labels(session, item[0])

    def rule(self, item: Any, submitted: dict[str, dict[str, Any]]) -> dict[str, str]:
        """Items the reviewers did not agree on (see :func:`annotator.review.items`)."""
        return {
            i.key: "reviewers disagree"
            for i in case_items(item[1], submitted)
            if not i.unanimous
        }

    def decision_of(self, item: Any) -> ColumnElement[bool]:
        pk: uuid.UUID = item[0].id
        return Adjudication.case_pk == pk

    def adjudicate(
        self, project: Project, actor: str, item_ref: Any, key: str, value: Any, reason: str,
        *, reason_code: str | None = None,
    ) -> None:
        """A case's decision is made in the meta-review, with a reason code (``reason`` may
        be ``"code: text"``), and moves the case: a decision on a green-lit case revokes it,
        an upheld discard excludes it."""
        if reason_code is None:
            code, _, text = reason.partition(":")
            reason_code, reason = code.strip(), text.strip()
        decide(project, actor, str(item_ref), key, value, reason_code, reason)


CASES = CaseKind()
