"""Project counts for ``annotator status`` and the curator's overview."""

from __future__ import annotations

from sqlalchemy import func, select

from annotator.domain.states import CaseState
from annotator.services.users import takes_work
from annotator.store.project import Project
from annotator.store.schema import Annotation, Case, CaseImage, CaseRevision, User


def project_status(project: Project) -> dict[str, int]:
    """Counts over current revisions: cases, exams, images, states, annotators, submissions."""
    with project.read() as session:
        cases = list(session.scalars(select(Case)))
        current = [c.current_revision_id for c in cases if c.current_revision_id is not None]
        revisions = list(session.scalars(select(CaseRevision).where(CaseRevision.id.in_(current))))
        images = list(session.scalars(select(CaseImage).where(CaseImage.revision_id.in_(current))))
        annotators = sum(1 for u in session.scalars(select(User)) if takes_work(u))
        submitted = (
            session.scalar(
                select(func.count())
                .select_from(Annotation)
                .where(Annotation.state == "submitted", Annotation.withdrawn_at.is_(None))
            )
            or 0
        )
        open_cases = {c.id for c in cases if c.state in ("annotating", "in_review")}
        by_state = {s.value: sum(1 for c in cases if c.state == s.value) for s in CaseState}
        return {
            "cases": len(cases),
            "exams": sum(len(r.content.get("imaging_examinations") or []) for r in revisions),
            "images": len(images),
            "dicom_images": sum(1 for i in images if i.media_type == "application/dicom"),
            # Draft problems still open: a green-lit case passed the re-check on its final
            # values, an excluded one leaves the release anyway.
            "needs_fix": sum(1 for r in revisions if r.problems and r.case_pk in open_cases),
            "annotators": annotators,
            "annotations_submitted": int(submitted),
            "annotating": by_state["annotating"],
            "in_review": by_state["in_review"],
            "green_lit": by_state["green_lit"],
            "excluded": by_state["excluded"],
        }
