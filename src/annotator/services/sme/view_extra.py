"""What the SME page needs beyond ``sme_review``: whether the user may see other SMEs' work
(the conflicts and results tabs), asked once when the page is built."""

from __future__ import annotations

from sqlalchemy import select

from annotator.domain.permissions import Action, may
from annotator.domain.states import Role
from annotator.services.users import READERS_OF_OTHERS
from annotator.store.project import Project
from annotator.store.schema import User


def may_see_others(project: Project, actor: str) -> bool:
    """Conflicts and results show other SMEs' verdicts: adjudicators and curators only."""
    with project.read() as session:
        user = session.scalars(select(User).where(User.name == actor)).first()
        return bool(user is not None and READERS_OF_OTHERS & set(user.role_names))


def may_decide(project: Project, actor: str) -> bool:
    """Only adjudicators decide SME conflicts (a curator reads them)."""
    with project.read() as session:
        user = session.scalars(select(User).where(User.name == actor)).first()
        return bool(user is not None and Role.ADJUDICATOR.value in user.role_names)


def may_compare(project: Project, actor: str) -> bool:
    """Comparing systems names them: curators and adjudicators (SMEs review blind)."""
    with project.read() as session:
        user = session.scalars(select(User).where(User.name == actor)).first()
        return bool(user is not None and may(user.role_names, Action.COMPARE_SYSTEMS))
