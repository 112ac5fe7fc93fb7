"""Who is in calibration and which items are calibration items: the queries every queue
that puts calibration items first shares (issue 26)."""

from __future__ import annotations

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from annotator.store.schema import QualityItem, RatedWork, User
from annotator.store.settings import CALIBRATION_FIRST_N, IN_CALIBRATION, get_setting


def in_calibration(session: Session, user: User) -> bool:
    """Whether ``user`` rates calibration items first now: as the curator set it, else while
    they have submitted fewer than ``calibration_first_n`` items (0: never by that rule)."""
    chosen = get_setting(session, IN_CALIBRATION, user.name)
    if chosen is not None:
        return bool(chosen)
    first_n = get_setting(session, CALIBRATION_FIRST_N)
    if first_n <= 0:
        return False
    done = session.scalar(
        select(func.count()).select_from(RatedWork)
        .where(RatedWork.rater_id == user.id, RatedWork.state == "submitted")
    ) or 0
    return int(done) < first_n


def calibration_refs(session: Session, kind: str) -> set[str]:
    """The item references (``RatingKind.item_key``) of a kind's calibration items."""
    return set(session.scalars(select(QualityItem.item_ref).where(
        QualityItem.kind == kind, QualityItem.purpose == "calibration")))


def first_for(session: Session, user: User, kind: str) -> set[str]:
    """The calibration items ``user`` rates before anything else (empty: not in
    calibration)."""
    return calibration_refs(session, kind) if in_calibration(session, user) else set()
