"""Project counts for ``annotator status`` and the curator's overview.

Every count is one aggregate query over indexed columns, so ``status`` takes the same time
at 100,000 cases as at 1,000 (see docs/performance.md).
"""

from __future__ import annotations

from sqlalchemy import func, select

from annotator.domain.states import CaseState
from annotator.services.users import takes_work
from annotator.store.project import Project
from annotator.store.schema import Annotation, Case, CaseImage, CaseRevision, User

OPEN_STATES = (CaseState.ANNOTATING.value, CaseState.IN_REVIEW.value)


def project_status(project: Project) -> dict[str, int]:
    """Counts over current revisions: cases, exams, images, states, annotators, submissions."""
    with project.read() as session:
        by_state = dict(session.execute(
            select(Case.state, func.count()).group_by(Case.state)).all())
        current = CaseRevision.id == Case.current_revision_id
        exams = session.scalar(
            select(func.coalesce(func.sum(CaseRevision.exams), 0)).join(Case, current))
        images = dict(session.execute(
            select(CaseImage.media_type, func.count())
            .join(Case, CaseImage.revision_id == Case.current_revision_id)
            .group_by(CaseImage.media_type)).all())
        # Draft problems still open: a green-lit case passed the re-check on its final
        # values, an excluded one leaves the release anyway.
        needs_fix = session.scalar(
            select(func.count()).select_from(CaseRevision).join(Case, current)
            .where(Case.state.in_(OPEN_STATES), func.json_array_length(CaseRevision.problems) > 0))
        annotators = sum(1 for u in session.scalars(select(User)) if takes_work(u))
        submitted = session.scalar(
            select(func.count()).select_from(Annotation)
            .where(Annotation.state == "submitted", Annotation.withdrawn_at.is_(None)))
        return {
            "cases": sum(by_state.values()),
            "exams": int(exams or 0),
            "images": sum(images.values()),
            "dicom_images": images.get("application/dicom", 0),
            "needs_fix": int(needs_fix or 0),
            "annotators": annotators,
            "annotations_submitted": int(submitted or 0),
            "annotating": by_state.get(CaseState.ANNOTATING.value, 0),
            "in_review": by_state.get(CaseState.IN_REVIEW.value, 0),
            "green_lit": by_state.get(CaseState.GREEN_LIT.value, 0),
            "excluded": by_state.get(CaseState.EXCLUDED.value, 0),
        }
