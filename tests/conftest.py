"""Shared fixtures: projects on SQLite and PostgreSQL, users, imported cases.

The GUI platform is set before any QApplication exists; HOME and settings live in
temporary folders so tests never depend on the developer's machine.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
sys.path.insert(0, str(Path(__file__).parent))

PG_ADMIN_URL = os.environ.get(
    "ANNOTATOR_TEST_PG", "postgresql+psycopg://postgres@127.0.0.1:5432/postgres"
)


@pytest.fixture(autouse=True)
def _isolated_home(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.delenv("ANNOTATOR_USER", raising=False)


@pytest.fixture(autouse=True)
def _fresh_render_memory() -> None:
    # Each test starts as a new process would: tests name made-up images by the same hash.
    from annotator.export import render_cache

    render_cache.forget_all()


def _pg_available() -> bool:
    try:
        import psycopg

        with psycopg.connect(
            "host=127.0.0.1 port=5432 user=postgres dbname=postgres", connect_timeout=3
        ):
            return True
    except Exception:
        return False


PG_AVAILABLE = _pg_available()
if PG_AVAILABLE:
    from pg_roles import drop_leftover_roles

    drop_leftover_roles()
# The fixture switch: PostgreSQL tests act through the acting user's own database role.
PG_AS_ROLES = os.environ.get("ANNOTATOR_PG_AS_ROLES") == "1"
if PG_AS_ROLES:
    import pg_acting

    pg_acting.install()


@pytest.fixture
def pg_url() -> Iterator[str]:
    """A fresh, empty PostgreSQL database for one test (dropped afterwards)."""
    if not PG_AVAILABLE:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL on 127.0.0.1:5432 is required in CI")
        pytest.skip("no PostgreSQL server on 127.0.0.1:5432")
    from pg_roles import create_database, drop_database

    name = create_database()
    yield f"postgresql://postgres@127.0.0.1:5432/{name}"
    drop_database(name)  # and the store's login and group roles


@pytest.fixture(autouse=True)
def _owner_for_admin_url_tests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Under ANNOTATOR_PG_AS_ROLES=1, tests marked ``admin_url`` stay the owner."""
    if not (PG_AS_ROLES and request.node.get_closest_marker("admin_url")):
        yield
        return
    pg_acting.suspended = True
    try:
        yield
    finally:
        pg_acting.suspended = False


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def project_location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """A project location on each back end."""
    if request.param == "sqlite":
        return str(tmp_path / "project")
    return str(request.getfixturevalue("pg_url"))


@pytest.fixture
def project(project_location: str):  # type: ignore[no-untyped-def]
    from annotator.store.project import open_project

    p = open_project(project_location)
    yield p
    p.close()


@pytest.fixture
def team(project):  # type: ignore[no-untyped-def]
    """A project with a curator, three annotators and an adjudicator."""
    from annotator.services.users import add_user

    add_user(project, "(setup)", "cu", ["curator"])
    for name in ("a1", "a2", "a3"):
        add_user(project, "cu", name, ["annotator"])
    add_user(project, "cu", "adj", ["adjudicator"])
    return project


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``slow`` (minutes each) run only when ANNOTATOR_SLOW=1."""
    if os.environ.get("ANNOTATOR_SLOW") == "1":
        return
    skip = pytest.mark.skip(reason="slow: set ANNOTATOR_SLOW=1 to run")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def demo_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The demo project (``annotator demo``), built once per test session: copy it before
    changing it (``shutil.copytree``), as the module fixtures that use it do."""
    from annotator.services.demo import build_demo

    folder = tmp_path_factory.mktemp("demo-template") / "project"
    build_demo(str(folder))
    return folder
