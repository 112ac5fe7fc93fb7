"""The release's agreement report of named cases (``export --cases``) reads those cases only,
and equals the whole project's basis restricted to them, cached or not."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from sqlalchemy import select

from annotator.agreement.report import build_report
from annotator.domain.states import AnnotationState
from annotator.export.agreement import release_basis
from annotator.services import agreement, agreement_cache, kinds
from annotator.services.users import takes_work
from annotator.store.project import Project
from annotator.store.schema import Annotation, User
from annotator.store.settings import DEID_SEED
from export.conftest import annotators_of

KEEP = ["R2", "case 3"]  # R1, X1 and H1 stay outside, with annotations of their own


def _whole(project: Project, keep: list[str]) -> dict[str, Any]:
    """The report computed from every case's basis, then restricted to ``keep``."""
    with project.read() as session:
        basis = agreement.load_basis(session)
    report = build_report(release_basis(basis, project.setting(DEID_SEED), keep))
    plain: dict[str, Any] = json.loads(json.dumps(report, default=agreement_cache._plain))
    return plain


def _progress_by_python(project: Project) -> list[tuple[str, str, int, int]]:
    """The annotators' counts as read from every annotation, one by one (the reference)."""
    with project.read() as session:
        active = list(session.scalars(select(Annotation).where(
            Annotation.withdrawn_at.is_(None))))
        out = []
        for user in session.scalars(select(User).order_by(User.name)):
            mine = [a for a in active if a.annotator_id == user.id]
            if mine or takes_work(user):
                out.append((str(user.id), user.name, len(mine), sum(
                    a.state == AnnotationState.SUBMITTED.value for a in mine)))
    return out


def test_named_cases_give_the_whole_report_restricted_to_them(
    build_project: Callable[..., Project], tmp_path: Path,
) -> None:
    project = build_project(str(tmp_path / "p"))
    with project.read() as session:
        named = agreement.load_basis(session, KEEP)
        whole = agreement.load_basis(session)
    assert [c.case_id for c in named.cases] == KEEP
    assert [(a.key, a.name, a.assigned, a.submitted) for a in named.annotators] == \
        _progress_by_python(project)
    assert named.annotators == whole.annotators
    first = agreement.release_report(project, KEEP)
    assert first == _whole(project, KEEP)
    assert agreement.release_report(project, KEEP) == first  # from the cache
    # Work on a case outside the release changes the annotators' counts it reports: the
    # cached report of the named cases must not be served.
    kinds.CASES.submit(project, annotators_of(project, "H1")[0], "H1")
    again = agreement.release_report(project, KEEP)
    assert again == _whole(project, KEEP) and again != first
