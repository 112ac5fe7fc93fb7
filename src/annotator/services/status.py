"""Project counts for ``annotator status`` and the curator's overview.

The counts are the counters every write keeps in the same transaction
(:mod:`annotator.store.counts`): ``status`` reads a few dozen rows whatever the size of the
project (docs/performance.md, "At benchmark scale"); ``repair`` finds and fixes any drift.
On a PostgreSQL team store every role reads these project-wide counters; the per-rater and
per-day ones are the seniors' (row-level security).
"""

from __future__ import annotations

from sqlalchemy import distinct, func, select

from annotator.domain.permissions import Action, needed_roles
from annotator.domain.states import CaseState
from annotator.store import counts
from annotator.store.project import Project
from annotator.store.schema import UserRole

OPEN_STATES = counts.OPEN_STATES


def project_status(project: Project) -> dict[str, int]:
    """Counts over current revisions: cases, exams, images, states, annotators, submissions."""
    with project.read() as session:
        stored = counts.project_wide(session.connection())
        # One count of the people given work, not every user and their roles loaded (the
        # desk reads this too; a benchmark's team can be hundreds of people).
        annotators = session.scalar(
            select(func.count(distinct(UserRole.user_id)))
            .where(UserRole.role.in_(needed_roles(Action.TAKE_ASSIGNED_WORK)))) or 0
    by_state = {s.value: stored.get(f"cases:{s.value}", 0) for s in CaseState}
    images = {k.removeprefix("images:"): n for k, n in stored.items() if k.startswith("images:")}
    return {
        "cases": sum(by_state.values()),
        "exams": stored.get("exams", 0),
        "images": sum(images.values()),
        "dicom_images": images.get("application/dicom", 0),
        "needs_fix": stored.get("needs_fix", 0),
        "annotators": annotators,
        "annotations_submitted": stored.get("work:case:submitted", 0),
        "annotating": by_state[CaseState.ANNOTATING.value],
        "in_review": by_state[CaseState.IN_REVIEW.value],
        "green_lit": by_state[CaseState.GREEN_LIT.value],
        "excluded": by_state[CaseState.EXCLUDED.value],
    }
