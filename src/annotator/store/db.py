"""Engines, sessions and schema migrations for both back ends.

SQLite (the default, one file in the project folder) runs in WAL mode and opens every write
transaction with ``BEGIN IMMEDIATE`` and a busy timeout, following SQLAlchemy's pysqlite
recipe: two processes writing at once wait for each other instead of failing with
"database is locked" half-way through a transaction. Read transactions
(:func:`read_transaction`) begin with a plain ``BEGIN``: in WAL mode they see one snapshot
and take no write lock, so a reader never makes a writer (or another process opening the
project) wait.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event, inspect, text
from sqlalchemy.engine import Connection, make_url
from sqlalchemy.orm import Session, sessionmaker

from annotator.errors import ProjectError
from annotator.store.agreement_stale import keep_marks
from annotator.store.chain import chain_new_entries
from annotator.store.counts import keep_counts
from annotator.store.queue_keys import keep_queue_keys
from annotator.store.repeats import hide_repeats
from annotator.store.sme_keys import keep_sme_keys

MIGRATIONS = Path(__file__).with_name("migrations")
BUSY_TIMEOUT_MS = 30_000
READ_ONLY = "annotator_read_only"  # execution option of the engine behind read sessions


class ReadOnlyViolation(RuntimeError):
    """A read transaction tried to change rows (a programming error, never user input)."""


def make_engine(url: str, password: str | None = None) -> Engine:
    """Create an engine for a ``sqlite:///`` or ``postgresql://`` URL.

    ``password``: the PostgreSQL login's (checked by the server; never put in the URL).
    """
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://") :]
    if url.startswith("sqlite"):
        engine = create_engine(
            url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000, "check_same_thread": False}
        )
        _configure_sqlite(engine)
        return engine
    connect_args: dict[str, Any] = {"password": password} if password is not None else {}
    if "options" not in make_url(url).query:
        # No JIT: on a walled store the planner prices every query by its row-level security
        # subplans (a cost in the 100,000s for a one-row read), so JIT compiled hundreds of
        # functions per statement: ~10 s for one image under load, 1 ms without.
        connect_args["options"] = "-c jit=off"
    return create_engine(url, pool_pre_ping=True, connect_args=connect_args)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection: Any, _record: Any) -> None:
        # Let SQLAlchemy's "begin" event emit BEGIN itself (pysqlite's own is deferred).
        dbapi_connection.isolation_level = None
        cursor = dbapi_connection.cursor()
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute("PRAGMA synchronous=NORMAL")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        if conn.get_execution_options().get(READ_ONLY):
            conn.exec_driver_sql("BEGIN")  # deferred: a snapshot, no write lock
        else:
            conn.exec_driver_sql("BEGIN IMMEDIATE")


def session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions for write transactions; every history row they add joins the hash chain."""
    factory = sessionmaker(engine, expire_on_commit=False)
    event.listen(factory, "before_flush", chain_new_entries)
    hide_repeats(factory)
    keep_queue_keys(factory)  # first: its before-commit writes are counted by the next
    keep_sme_keys(factory)
    keep_counts(factory)
    keep_marks(factory)
    return factory


def read_session_factory(engine: Engine) -> sessionmaker[Session]:
    """Sessions for read transactions (see :func:`read_transaction`)."""
    factory = sessionmaker(engine.execution_options(**{READ_ONLY: True}),
                           expire_on_commit=False, autoflush=False)
    hide_repeats(factory)
    return factory


@contextmanager
def transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """One unit of work: committed as a whole, rolled back as a whole on any error."""
    with factory() as session, session.begin():
        yield session


def _refuse_writes(session: Session, _context: Any, _instances: Any) -> None:
    raise ReadOnlyViolation("a read transaction tried to write; use a write transaction")


@contextmanager
def read_transaction(factory: sessionmaker[Session]) -> Iterator[Session]:
    """A consistent snapshot for reading; it never takes SQLite's write lock.

    Any attempt to write in it raises :class:`ReadOnlyViolation` (and nothing is written):
    a deferred transaction that turned into a write could fail with "database is locked"
    instead of waiting its turn.
    """
    with factory() as session:
        event.listen(session, "before_flush", _refuse_writes)
        with session.begin():
            yield session
            if session.new or session.dirty or session.deleted:
                _refuse_writes(session, None, None)


def _alembic_config(connection: Connection) -> Any:
    from alembic.config import Config

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    config.attributes["connection"] = connection
    return config


def known_revisions() -> set[str]:
    """Schema revisions this version of the app knows."""
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    return {rev.revision for rev in ScriptDirectory.from_config(config).walk_revisions()}


def head_revision() -> str:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(MIGRATIONS))
    head = ScriptDirectory.from_config(config).get_current_head()
    assert head is not None
    return head


def _owns(engine: Engine) -> bool:
    """Whether the connection's role owns the store's tables (it can migrate them)."""
    with engine.connect() as conn:
        return bool(conn.execute(text(
            "SELECT pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_class c"
            " WHERE c.oid = to_regclass('alembic_version')"
        )).scalar())


def current_revision(engine: Engine) -> str | None:
    """The schema revision stored in the database, or None for an empty database."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
        return None if row is None else str(row[0])


def _head_from_files() -> str | None:
    """The head revision read from the migration files' text; None unless plainly linear.

    Opening a project at the head needs no Alembic at all (importing it and scanning its
    scripts is a good part of the app's start-up); anything unusual falls back to Alembic.
    """
    revisions: set[str] = set()
    parents: set[str] = set()
    for path in (MIGRATIONS / "versions").glob("*.py"):
        text = path.read_text(encoding="utf-8")
        revision = re.search(r'^revision\s*(?::[^=]*)?=\s*["\']([^"\']+)["\']\s*$', text, re.M)
        down = re.search(r"^down_revision\s*(?::[^=]*)?=\s*(.+?)\s*$", text, re.M)
        if revision is None or down is None:
            return None
        revisions.add(revision.group(1))
        parent = down.group(1)
        if parent != "None":
            quoted = re.fullmatch(r'["\']([^"\']+)["\']', parent)
            if quoted is None:
                return None  # a merge (tuple) or a computed value
            parents.add(quoted.group(1))
    heads = revisions - parents
    return heads.pop() if len(heads) == 1 else None


def upgrade(engine: Engine, where: str) -> None:
    """Bring the schema to this app's head; refuse a database from a newer app."""
    stored = current_revision(engine)
    if stored is not None and stored == _head_from_files():
        return  # already at the head: nothing for Alembic to do
    if stored is not None and stored not in known_revisions():
        raise ProjectError(
            f"{where} was written by a newer version of annotator (schema {stored}); "
            "install the newer version to open it"
        )
    if stored is not None and engine.dialect.name == "postgresql" and not _owns(engine):
        raise ProjectError(
            f"this store's schema is {stored}, this app needs {_head_from_files() or 'newer'}:"
            " the store's administrator must migrate it first with its administrative URL"
            " (annotator --project ADMIN_URL migrate)"
        )
    from alembic import command

    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "head")
