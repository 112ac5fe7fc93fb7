"""What the SME page needs beyond ``sme_review``: whether the user may see other SMEs' work
(the conflicts and results tabs), asked once when the page is built."""

from __future__ import annotations

from annotator.domain.permissions import Action
from annotator.services.users import allows
from annotator.store.project import Project


def may_see_others(project: Project, actor: str) -> bool:
    """Conflicts and results show other SMEs' verdicts: adjudicators and curators only."""
    with project.read() as session:
        return allows(session, actor, Action.READ_OTHERS_WORK)


def may_decide(project: Project, actor: str) -> bool:
    """Only adjudicators decide SME conflicts (a curator reads them)."""
    with project.read() as session:
        return allows(session, actor, Action.ADJUDICATE_SME)


def may_compare(project: Project, actor: str) -> bool:
    """Comparing systems names them: curators and adjudicators (SMEs review blind)."""
    with project.read() as session:
        return allows(session, actor, Action.COMPARE_SYSTEMS)
