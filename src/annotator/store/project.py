"""Opening a project: a folder (SQLite file + image store) or a PostgreSQL URL."""

from __future__ import annotations

import os
import secrets
import sqlite3
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TypeVar

from sqlalchemy import Engine, select, text
from sqlalchemy.exc import DBAPIError, IntegrityError, InterfaceError, OperationalError
from sqlalchemy.orm import Session, sessionmaker
from sqlalchemy.orm.exc import StaleDataError

from annotator import __version__
from annotator.errors import (
    ConflictError,
    LoginRefused,
    ProjectError,
    StoreUnavailable,
    ValidationError,
)
from annotator.store.db import (
    ReadOnlyViolation,
    current_revision,
    make_engine,
    read_session_factory,
    read_transaction,
    session_factory,
    transaction,
    upgrade,
)
from annotator.store.db_roles import connection_person, current_role, owns_store, walled
from annotator.store.images import ImageStore
from annotator.store.schema import Case
from annotator.store.settings import (
    CREATED_WITH,
    DEID_SEED,
    PROJECT_ID,
    Option,
    get_setting,
    put_setting,
)

DB_NAME = "project.sqlite"
BACKUPS_KEPT = 5
BACKUP_EVERY = timedelta(hours=1)
T = TypeVar("T")


@dataclass
class Project:
    """An open project. ``tx()`` gives one transaction; everything else goes through services."""

    location: str
    engine: Engine
    sessions: sessionmaker[Session]
    images: ImageStore
    folder: Path | None
    reads: sessionmaker[Session] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.reads = read_session_factory(self.engine)

    @contextmanager
    def read(self) -> Iterator[Session]:
        """A read-only transaction: one snapshot, without SQLite's write lock.

        For listings and reports; anything that writes (history included) uses ``tx()``.
        """
        try:
            with read_transaction(self.reads) as session:
                yield session
        except (OperationalError, InterfaceError) as exc:
            if _unreachable(exc):
                why = _first_line(exc.orig or exc)
                raise StoreUnavailable(f"the project store cannot be reached ({why})") from exc
            raise

    def read_healing(self, work: Callable[[Session], T]) -> T:
        """``work(session)`` in a read transaction, or in a write one when it must write.

        For reads that keep derived rows up to date (a case's conflicts detected again when
        stale, e.g. after an app upgrade): almost always nothing is stale and the read takes
        no write lock; when ``work`` does write, the read is refused whole
        (``ReadOnlyViolation``, nothing written) and ``work`` runs again in a write transaction.
        """
        try:
            with self.read() as session:
                return work(session)
        except ReadOnlyViolation:
            with self.tx() as session:
                return work(session)

    @contextmanager
    def tx(self) -> Iterator[Session]:
        """One transaction; a write that collided with another one is a ConflictError.

        Two people saving the same row at once (a stale version), inserting the same unique
        row, or a PostgreSQL deadlock or serialisation failure: the transaction is rolled
        back whole and the user is told to reload, instead of a driver traceback.
        """
        try:
            with transaction(self.sessions) as session:
                yield session
        except StaleDataError as exc:
            raise ConflictError(_COLLIDED) from exc
        except (IntegrityError, OperationalError, InterfaceError) as exc:
            if _collision(exc):
                raise ConflictError(_COLLIDED) from exc
            if _unreachable(exc):
                why = _first_line(exc.orig or exc)
                raise StoreUnavailable(f"the project store cannot be reached ({why}); nothing"
                                       " of this change was saved") from exc
            raise

    def setting(self, option: Option[T], name: str = "") -> T:
        """A project setting (declared in ``store.settings``), or its default."""
        with self.read() as session:
            return get_setting(session, option, name)

    def set_setting(self, option: Option[T], value: T, name: str = "") -> None:
        with self.tx() as session:
            put_setting(session, option, value, name)

    @property
    def project_id(self) -> str:
        return self.setting(PROJECT_ID)

    @property
    def is_sqlite(self) -> bool:
        return self.engine.dialect.name == "sqlite"

    def owner_connection(self) -> bool:
        """True on PostgreSQL when this connection's database role owns the store's tables.

        That role can rewrite any row with SQL anyway, so the app lets it reset a password
        without a login: the recovery path of a locked-out team store (the store's
        administrative URL). False on SQLite, which has no logins.
        """
        if self.is_sqlite:
            return False
        with self.read() as session:
            return bool(session.scalar(text(
                "SELECT pg_has_role(current_user, c.relowner, 'USAGE') FROM pg_class c"
                " WHERE c.oid = to_regclass('users')"
            )))

    def close(self) -> None:
        self.engine.dispose()


_COLLIDED = ("someone else changed the same record at the same moment; nothing of this change"
             " was saved: reload and try again")
# SQLSTATEs of a collision between concurrent writers (PostgreSQL).
_COLLISION_STATES = {"23505", "40001", "40P01"}


def _collision(exc: DBAPIError) -> bool:
    state = getattr(exc.orig, "sqlstate", None)
    if state in _COLLISION_STATES:
        return True
    return "UNIQUE constraint failed" in str(exc.orig)


def _unreachable(exc: DBAPIError) -> bool:
    """A lost or refused connection (SQLSTATE class 08, or the driver saying so)."""
    state = str(getattr(exc.orig, "sqlstate", "") or "")
    if state.startswith("08") or exc.connection_invalidated:
        return True
    text = str(exc.orig).lower()
    return any(w in text for w in ("connection refused", "server closed the connection",
                                   "connection is closed", "could not connect",
                                   "terminating connection", "the connection is lost"))


def is_url(location: str) -> bool:
    return location.startswith(("postgresql://", "postgresql+psycopg://", "sqlite://"))


def open_project(
    location: str | Path, *, create: bool = True, backup: bool = True,
    password: str | None = None,
) -> Project:
    """Open (and on first use create) the project at a folder path or a database URL.

    Raises ProjectError with one readable line: a folder that holds something else, a
    database from a newer version of the app, an unreachable server.
    """
    loc = str(location)
    folder: Path | None = None
    if is_url(loc):
        url = loc
    else:
        folder = Path(loc).expanduser().resolve()
        db_file = folder / DB_NAME
        if folder.exists() and not folder.is_dir():
            raise ProjectError(f"{folder} is a file, not a project folder")
        if not db_file.exists():
            if not create:
                raise ProjectError(f"{folder} is not an annotator project (no {DB_NAME})")
            if folder.exists() and any(folder.iterdir()):
                raise ProjectError(
                    f"{folder} is not empty and holds no annotator project; choose a new folder"
                )
            folder.mkdir(parents=True, exist_ok=True)
        elif backup:
            _rolling_backup(folder)
        url = f"sqlite:///{db_file}"
    try:
        engine = make_engine(url, password)
        upgrade(engine, loc)
    except ProjectError:
        raise
    except Exception as exc:  # driver errors: unreachable server, corrupt file, ...
        refused = _login_refused(exc, loc, password)
        if refused is not None:
            raise refused from None  # the driver's chain holds nothing the user needs
        raise ProjectError(f"cannot open project {_safe(loc)}: {_first_line(exc)}") from exc
    images = ImageStore(folder / "images" if folder is not None else None)
    project = Project(loc, engine, session_factory(engine), images, folder)
    if not project.is_sqlite:
        _refuse_strangers(project)
    _ensure_identity(project)
    return project


def login_location(location: str, login: str) -> str:
    """A team store's URL with ``login`` (a person's ``db_role``) as its user and no password
    in it: the password travels beside the URL, never inside it."""
    from sqlalchemy.engine import make_url

    if not is_url(location) or location.startswith("sqlite"):
        raise ValidationError(f"{_safe(location)} is no team store: a login needs a"
                              " postgresql:// URL")
    login = login.strip()
    if not login or any(ord(c) < 32 or c == "\x7f" for c in login):
        raise ValidationError("give your login name (the db_role your curator gave you)")
    return make_url(location).set(username=login, password=None).render_as_string(False)


def login_name(location: str) -> str:
    """The login a team store's URL names ('' when it names none)."""
    from sqlalchemy.engine import make_url

    if not is_url(location) or location.startswith("sqlite"):
        return ""
    try:
        return make_url(location).username or ""
    except Exception:
        return ""


def open_as_login(location: str, login: str, password: str) -> Project:
    """Open a team store as the person whose login role is ``login``.

    PostgreSQL checks ``password`` (SCRAM-SHA-256); a refusal raises :class:`LoginRefused`
    with one readable line that never holds the password. Nothing is written anywhere.
    """
    return open_project(login_location(location, login), password=password)


# SQLSTATEs of a refused login: invalid_password, invalid_authorization_specification.
_LOGIN_STATES = {"28P01", "28000"}
_LOGIN_WORDS = ("password authentication failed", "no password supplied",
                "authentication failed for user")


def _login_refused(exc: BaseException, location: str, password: str | None
                   ) -> LoginRefused | None:
    """The server's refusal of a login as one line (None: some other failure)."""
    orig = getattr(exc, "orig", None) or exc
    state = str(getattr(orig, "sqlstate", "") or "")
    said = str(orig).lower()
    if state not in _LOGIN_STATES and not any(w in said for w in _LOGIN_WORDS):
        return None
    who = login_name(location) or "(no login name)"
    if password is None and "no password supplied" in said:
        return LoginRefused(f"the team store {_safe(location)} asks for the password of"
                            f" {who}: nothing was opened")
    why = _first_line(orig).rsplit("FATAL:", 1)[-1].strip()
    return LoginRefused(f"the server refused the login {who!r} ({why}): wrong login name or"
                        " password; nothing was opened")


def _safe(location: str) -> str:
    """A location to show: a URL's password left out."""
    if not is_url(location):
        return location
    from sqlalchemy.engine import make_url

    try:
        return make_url(location).render_as_string(hide_password=True)
    except Exception:
        return location.split("@")[-1]


def _refuse_strangers(project: Project) -> None:
    """A walled store reads nothing to a role that is neither its owner nor a person's login:
    say so, instead of failing later on rows the policies hide."""
    with project.read() as session:
        if not walled(session) or owns_store(session) or connection_person(session):
            return
        role = current_role(session)
    project.close()
    raise ProjectError(f"the database role {role!r} is no login of this store: connect as your"
                       " own login role (its db_role in 'annotator users list --json')")


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


def _ensure_identity(project: Project) -> None:
    """Give a new project its id and de-identification seed (kept forever)."""
    defaults: dict[Option[str], Callable[[], str]] = {
        PROJECT_ID: lambda: str(uuid.uuid4()),
        DEID_SEED: lambda: secrets.token_hex(16),
        CREATED_WITH: lambda: __version__,
    }
    with project.read() as session:  # opening a project writes only when one is missing
        missing = [option for option in defaults if not get_setting(session, option)]
    if missing:
        with project.tx() as session:
            for option in missing:
                if not get_setting(session, option):
                    put_setting(session, option, defaults[option]())


def schema_revision(project: Project) -> str | None:
    """The store's schema revision (the Alembic head it was migrated to)."""
    return current_revision(project.engine)


def project_is_empty(project: Project) -> bool:
    with project.read() as session:
        return session.scalars(select(Case.id).limit(1)).first() is None


def backup_to(project: Project, target: Path) -> Path:
    """Write a consistent copy of the project database to ``target``.

    SQLite uses ``VACUUM INTO`` (copying the file alone can lose what is still in the WAL);
    the image folder is content-addressed and can be copied as is.
    """
    if not project.is_sqlite:
        raise ProjectError("backup of a PostgreSQL team store is done with pg_dump by its admin")
    target = target.expanduser().resolve()
    if target.exists():
        raise ProjectError(f"{target} already exists; choose a new file name")
    target.parent.mkdir(parents=True, exist_ok=True)
    assert project.folder is not None
    _vacuum_into(project.folder / DB_NAME, target)
    return target


def vacuum(project: Project) -> None:
    """Rewrite a folder project's SQLite file, so that freed pages (bytes a redaction
    removed) are not left in it; nothing for a PostgreSQL store."""
    if project.folder is None or not project.is_sqlite:
        return
    import sqlite3

    connection = sqlite3.connect(project.folder / DB_NAME, timeout=30, isolation_level=None)
    try:
        connection.execute("VACUUM")
    finally:
        connection.close()


def _vacuum_into(db_file: Path, target: Path) -> None:
    import sqlite3

    # A plain connection: VACUUM cannot run inside the transaction SQLAlchemy opens.
    source = sqlite3.connect(db_file, timeout=30, isolation_level=None)
    try:
        source.execute("VACUUM INTO ?", (str(target),))
    finally:
        source.close()


def _rolling_backup(folder: Path) -> None:
    """Keep the last few automatic backups, at most one per hour of use."""
    backups = folder / "backups"
    backups.mkdir(exist_ok=True)
    existing = sorted(backups.glob("auto-*.sqlite"))
    now = datetime.now(UTC)
    if existing:
        newest = datetime.fromtimestamp(existing[-1].stat().st_mtime, UTC)
        if now - newest < BACKUP_EVERY:
            return
    target = backups / f"auto-{now:%Y%m%d-%H%M%S}.sqlite"
    # Written under a name of this process's own and renamed: two app instances opening the
    # project in the same second once wrote one file together and the second open failed.
    partial = backups / f".partial-{os.getpid()}-{secrets.token_hex(4)}.sqlite"
    try:
        _vacuum_into(folder / DB_NAME, partial)
        os.replace(partial, target)
    except sqlite3.Error:
        partial.unlink(missing_ok=True)
        return  # a missed automatic backup must not keep anyone from working
    for old in existing[: max(0, len(existing) + 1 - BACKUPS_KEPT)]:
        old.unlink(missing_ok=True)
