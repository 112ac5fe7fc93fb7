"""``bench-scale --store postgresql://...``: a team store (a database) per project size.

The databases are named after the URL's own: ``<db>_bench_base_<n>`` holds the base built
through the services, ``<db>_bench_<size>`` each grown copy. A copy is made with
``CREATE DATABASE ... TEMPLATE`` (PostgreSQL copies the files) under a ``_part`` name and
renamed once grown, so a run that died half-way is rebuilt, never measured. A copy shares the
base's login and group roles (they are server-wide, named by the store's prefix); the
database's own ``CONNECT`` grant, which a copy does not inherit, is set as migration 0013_rls
sets it. The URL's role creates the databases and owns them: the store's administrative URL.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager

from sqlalchemy import create_engine, text
from sqlalchemy.engine import Connection, make_url

from annotator.errors import ProjectError
from annotator.services.users import list_users, set_password
from annotator.store.project import is_url, open_project

PART = "_part"


def is_postgres(store: str | None) -> bool:
    return store is not None and is_url(store) and store.startswith("postgresql")


def database_url(store: str, name: str) -> str:
    """``store`` with ``name`` as its database."""
    return make_url(store).set(database=name).render_as_string(hide_password=False)


def bench_name(store: str, what: str) -> str:
    """The database of one bench project: ``<the URL's database>_bench_<what>``."""
    return f"{make_url(store).database or 'postgres'}_bench_{what}"


@contextmanager
def _admin(store: str) -> Iterator[Connection]:
    url = make_url(store)
    if url.drivername == "postgresql":
        url = url.set(drivername="postgresql+psycopg")
    engine = create_engine(url, isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            yield conn
    finally:
        engine.dispose()


def _q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def exists(store: str, name: str) -> bool:
    with _admin(store) as conn:
        return conn.execute(text("SELECT 1 FROM pg_database WHERE datname = :n"),
                            {"n": name}).first() is not None


def drop(store: str, name: str) -> None:
    with _admin(store) as conn:
        conn.execute(text(f"DROP DATABASE IF EXISTS {_q(name)} WITH (FORCE)"))


def create_empty(store: str, name: str) -> None:
    drop(store, name)
    with _admin(store) as conn:
        conn.execute(text(f"CREATE DATABASE {_q(name)}"))


def copy_of(store: str, template: str, name: str) -> None:
    """``name`` as a file copy of ``template`` (which nobody may be connected to), with the
    connect grant of the template's store."""
    drop(store, name)
    with _admin(store) as conn:
        conn.execute(text(f"CREATE DATABASE {_q(name)} TEMPLATE {_q(template)}"))
    with _admin(database_url(store, name)) as conn:
        prefix = conn.execute(text("SELECT annotator_role_prefix()")).scalar_one()
        conn.execute(text(f"REVOKE CONNECT, TEMPORARY ON DATABASE {_q(name)} FROM PUBLIC"))
        conn.execute(text(f"GRANT CONNECT ON DATABASE {_q(name)} TO {_q(prefix + '_app')}"))


def rename(store: str, old: str, new: str) -> None:
    with _admin(store) as conn:
        conn.execute(text(f"ALTER DATABASE {_q(old)} RENAME TO {_q(new)}"))


def measuring_logins(location: str, names: tuple[str, ...]) -> dict[str, tuple[str, str]]:
    """Give each of ``names`` a fresh password through the store's administrative URL, as a
    curator does with ``users passwd`` (the first one, a curator's own, must come first);
    returns each person's login role and password, for the measurements to log in with."""
    project = open_project(location, create=False, backup=False)
    try:
        logins = {}
        for name in names:
            password = secrets.token_urlsafe(18)
            set_password(project, names[0], name, password)
            role = next(u.db_role for u in list_users(project) if u.name == name)
            if role is None:
                raise ProjectError(f"{name} has no login role on {location}: no walled store")
            logins[name] = (role, password)
        return logins
    finally:
        project.close()
