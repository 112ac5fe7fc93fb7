"""Who is in calibration and which items are calibration items: the queries every queue
that puts calibration items first shares (issue 26)."""

from __future__ import annotations

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from annotator.store.db_roles import reads_others, walled
from annotator.store.schema import QualityItem, RatedWork, User
from annotator.store.settings import CALIBRATION_FIRST_N, IN_CALIBRATION, get_settings


def in_calibration(session: Session, user: User) -> bool:
    """Whether ``user`` rates calibration items first now: as the curator set it, else while
    they have submitted fewer than ``calibration_first_n`` items (0: never by that rule)."""
    chosen, first_n = get_settings(session, (IN_CALIBRATION, user.name),
                                   (CALIBRATION_FIRST_N, ""))
    if chosen is not None:
        return bool(chosen)
    if first_n <= 0:
        return False
    done = session.scalar(
        select(func.count()).select_from(RatedWork)
        .where(RatedWork.rater_id == user.id, RatedWork.state == "submitted")
    ) or 0
    return int(done) < int(first_n)


def calibration_refs(session: Session, kind: str) -> set[str]:
    """The item references (``RatingKind.item_key``) of a kind's calibration items."""
    return set(session.scalars(select(QualityItem.item_ref).where(
        QualityItem.kind == kind, QualityItem.purpose == "calibration")))


def own_calibration_refs(session: Session, kind: str) -> set[str]:
    """The references of the calibration items among the connection's own assigned work.

    On a walled store a rater's role reads a calibration item's row only once their work
    on it is submitted (the reference answer is feedback after submit); the view
    ``annotator_my_calibration`` (migration 0014) tells them which of their own items are
    calibration items, and nothing more. Seniors, the owner and SQLite read the table."""
    if walled(session) and not reads_others(session):
        return {str(ref) for ref in session.scalars(
            text("SELECT item_ref FROM annotator_my_calibration WHERE kind = :kind"),
            {"kind": kind})}
    return calibration_refs(session, kind)


def first_for(session: Session, user: User, kind: str) -> set[str]:
    """The calibration items ``user`` rates before anything else (empty: not in
    calibration). Only ever intersected with ``user``'s own queue."""
    return own_calibration_refs(session, kind) if in_calibration(session, user) else set()
