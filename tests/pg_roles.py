"""PostgreSQL test databases and the login roles a walled store makes (0013_rls).

Roles are server-wide: each test database's roles start with the first 26 characters of its
name (the store's prefix), are dropped with it, and leftovers of killed runs (roles whose
database is gone) are dropped when a test session starts.
"""

from __future__ import annotations

import os
import re
import uuid

import psycopg
import pytest

ADMIN = "host=127.0.0.1 port=5432 user=postgres dbname=postgres"
TEST_DB = "annotator_test_"
_PREFIX_LEN = 26  # as migration 0013_rls cuts the database name


def require_server() -> None:
    """Skip without the shared server (fail in CI), as conftest's ``pg_url`` does."""
    try:
        psycopg.connect(ADMIN, connect_timeout=3).close()
    except psycopg.Error:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL on 127.0.0.1:5432 is required in CI")
        pytest.skip("no PostgreSQL server on 127.0.0.1:5432")


def create_database() -> str:
    require_server()
    name = f"{TEST_DB}{uuid.uuid4().hex[:12]}"
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return name


def drop_database(name: str) -> None:
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        _drop_roles(conn, name[:_PREFIX_LEN])


def _drop_roles(conn: psycopg.Connection, prefix: str) -> None:
    rows = conn.execute(
        "SELECT rolname FROM pg_roles WHERE starts_with(rolname, %s)"
        " ORDER BY rolcanlogin DESC, length(rolname) DESC", (prefix,)
    ).fetchall()
    for (role,) in rows:  # logins first, then the groups, then the app group
        conn.execute(f'DROP ROLE IF EXISTS "{role}"')


def drop_leftover_roles() -> None:
    """Roles of test databases that no longer exist (a killed run's)."""
    with psycopg.connect(ADMIN, autocommit=True) as conn:
        databases = {r[0][:_PREFIX_LEN] for r in conn.execute("SELECT datname FROM pg_database")}
        roles = [r[0] for r in conn.execute(
            "SELECT rolname FROM pg_roles WHERE starts_with(rolname, %s)", (TEST_DB,)
        )]
        prefixes = {m.group(0) for r in roles
                    if (m := re.match(rf"{TEST_DB}[0-9a-f]{{11}}", r))}
        for prefix in sorted(prefixes - databases):
            _drop_roles(conn, prefix)
