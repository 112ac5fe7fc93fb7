"""The team store's database roles (PostgreSQL, migration 0013_rls): who the connection is.

On a *walled* store every person is a PostgreSQL login role and row-level security decides
what each connection reads and writes; the functions here ask the database, never a table
the client could rewrite. SQLite stores are never walled.
"""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import func, select, text
from sqlalchemy.orm import Session

from annotator.store.schema import JudgeItem, RatedWork, SmeItem


def walled(session: Session) -> bool:
    """True on a PostgreSQL store with per-person roles and row-level security."""
    if session.get_bind().dialect.name != "postgresql":
        return False
    info = session.connection().info  # per database connection: a migration opens a new one
    if "annotator_walled" not in info:
        info["annotator_walled"] = session.scalar(
            text("SELECT to_regprocedure('annotator_role_prefix()') IS NOT NULL")
        ) is True
    return bool(info["annotator_walled"])


def role_prefix(session: Session) -> str | None:
    return str(session.scalar(text("SELECT annotator_role_prefix()"))) if walled(session) \
        else None


def owns_store(session: Session) -> bool:
    """True when the connection's role owns the store's tables (the administrative URL)."""
    if session.get_bind().dialect.name != "postgresql":
        return False
    return bool(session.scalar(text(
        "SELECT pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_class c"
        " WHERE c.oid = to_regclass('users')"
    )))


def connection_person(session: Session) -> str | None:
    """The app user whose login role this connection is (None: the owner or a stranger)."""
    if not walled(session):
        return None
    if not session.scalar(text("SELECT annotator_is('app')")):
        return None  # a role of the server that is no person of this store
    name = session.scalar(text("SELECT annotator_my_name()"))
    return None if name is None else str(name)


def current_role(session: Session) -> str:
    return str(session.scalar(text("SELECT current_user")))


def reads_others(session: Session) -> bool:
    """Whether this connection may read other raters' work (owner, curator, adjudicator)."""
    if not walled(session) or owns_store(session):
        return True
    return bool(session.scalar(text(
        "SELECT annotator_is('curator') OR annotator_is('adjudicator')"
    )))


def item_states(session: Session, kind: str, item: uuid.UUID) -> list[str]:
    """The states of an item's active rated work (never its values).

    A rater's connection reads only their own row, so on a walled store the database's
    ``annotator_item_states`` (callable by the item's raters) answers.
    """
    if walled(session):
        session.flush()
        return [str(s) for s in session.scalars(
            text("SELECT annotator_item_states(:kind, :item)"), {"kind": kind, "item": item}
        )]
    column = {"case": "case_pk", "sme": "task_id", "judge": "item_id"}[kind]
    table = RatedWork.__table__
    return [str(s) for s in session.scalars(
        select(table.c.state).where(
            table.c.kind == kind, table.c[column] == item, table.c.withdrawn_at.is_(None)
        )
    )]


def item_count(session: Session, kind: str) -> int:
    """How many SME items (``sme``) or judged outputs (``judge``) the store holds, though a
    rater's role reads only their own (the "3 of 12" in a blind title)."""
    if walled(session):
        return int(session.scalar(text("SELECT annotator_item_count(:k)"), {"k": kind}) or 0)
    table = SmeItem if kind == "sme" else JudgeItem
    return int(session.scalar(select(func.count()).select_from(table)) or 0)


def revealed_automated(session: Session, task_id: uuid.UUID) -> Any:
    """A task's automated verdict once the caller submitted it (the column is hidden from
    annotators' roles on a walled store)."""
    return session.scalar(text("SELECT annotator_revealed_automated(:t)"), {"t": task_id})


def create_login(session: Session, name: str) -> str:
    """Make ``name``'s login role (or bring its groups up to date); returns its name."""
    return str(session.scalar(text("SELECT annotator_create_login(:n)"), {"n": name}))


def sync_groups(session: Session, name: str) -> None:
    session.execute(text("SELECT annotator_sync_groups(:n)"), {"n": name})


def drop_login(session: Session, name: str) -> None:
    session.execute(text("SELECT annotator_drop_login(:n)"), {"n": name})


def set_login_password(session: Session, name: str, db_role: str, password: str) -> None:
    """Set ``name``'s PostgreSQL password as a SCRAM-SHA-256 verifier made here, so the
    plain text never reaches the server or its logs."""
    raw: Any = session.connection().connection.dbapi_connection
    verifier = raw.pgconn.encrypt_password(
        password.encode("utf-8"), db_role.encode("utf-8"), b"scram-sha-256"
    ).decode("ascii")
    session.execute(text("SELECT annotator_set_password(:n, :v)"), {"n": name, "v": verifier})
