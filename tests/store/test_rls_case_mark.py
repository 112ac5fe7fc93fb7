"""A rater's case-list mark on a walled store (migration 0027): their own login reads it
through ``annotator_my_case_work``, past the row policy on ``cases``, and gets exactly the
mark the plain aggregate gives; a senior reading another's list takes the plain aggregate."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import select

from annotator.services import annotating, kinds, workspace
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.users import add_user
from annotator.store.project import Project, open_project
from annotator.store.schema import User
from factories import make_case, write_case_file
from pg_roles import create_database, drop_database

pytestmark = pytest.mark.postgres


@pytest.fixture()
def stores(tmp_path: Path) -> Iterator[tuple[Project, Project, Any]]:
    name = create_database()
    # psycopg straight as each login, around the app: the view shows its caller's own rows.
    owner = open_project(f"postgresql://postgres@127.0.0.1:5432/{name}")
    person = None
    try:
        add_user(owner, "(setup)", "cu", ["curator"])
        for who in ("a1", "a2"):
            add_user(owner, "cu", who, ["annotator"])
        import_cases(owner, "cu", [write_case_file(tmp_path, [make_case(f"K{n}")
                                                              for n in range(1, 4)])])
        assign(owner, "cu", 2)
        with owner.read() as session:
            a1 = session.scalars(select(User).where(User.name == "a1")).one()
            role, a1_id = a1.db_role, a1.id
        person = open_project(f"postgresql://{role}@127.0.0.1:5432/{name}", create=False)
        yield owner, person, a1_id
    finally:
        if person is not None:
            person.close()
        owner.close()
        drop_database(name)


def _marks(owner: Project, person: Project, a1_id: Any) -> tuple[Any, Any, bool]:
    with owner.read() as session:
        plain = workspace._mark(session, a1_id)
    with person.read() as session:
        through_view = workspace._mark(session, a1_id)
        mine = session.execute(workspace._OWN_MARK, {"me": a1_id,
                                                     "now": workspace.utcnow()}).one()[0]
    return plain, through_view, bool(mine)


def test_a_raters_own_mark_comes_through_the_view_and_equals_the_plain_one(
    stores: tuple[Project, Project, Any]
) -> None:
    owner, person, a1_id = stores
    plain, through_view, mine = _marks(owner, person, a1_id)
    assert mine  # the login's own list: the view answered
    assert through_view == plain and plain[0] == 3  # three cases assigned to a1
    first = workspace.case_list(person, "a1").rows[0].case_id
    annotating.accept_suggestions(person, "a1", first)
    after_plain, after_view, _ = _marks(owner, person, a1_id)
    assert after_view == after_plain != plain  # the edit moved the mark, the same on both
    kinds.CASES.submit(person, "a1", first)
    submitted_plain, submitted_view, _ = _marks(owner, person, a1_id)
    assert submitted_view == submitted_plain != after_plain
    with owner.read() as session:  # the owner is nobody's login: the plain aggregate
        assert not session.execute(workspace._OWN_MARK, {"me": a1_id,
                                                         "now": workspace.utcnow()}).one()[0]


def test_the_view_shows_each_login_its_own_rows_only(
    stores: tuple[Project, Project, Any]
) -> None:
    owner, _person, _a1_id = stores
    with owner.read() as session:
        roles = dict(session.execute(select(User.name, User.db_role)).all())
    database = owner.engine.url.database

    def rows(role: str) -> tuple[int, list[str]]:
        with psycopg.connect(f"host=127.0.0.1 port=5432 dbname={database} user={role}") as c:
            found = c.execute("SELECT * FROM annotator_my_case_work")
            return len(found.fetchall()), [d.name for d in found.description or []]

    count, columns = rows(roles["a1"])
    assert count == 3  # a1's three assigned cases
    assert "rater_id" not in columns and "values" not in columns  # no one's labels or ids
    assert rows(roles["cu"])[0] == 0  # the curator holds no case work: nothing
    assert rows("postgres")[0] == 0  # the owner is nobody's login
    with owner.engine.connect() as conn:  # as the owner the view is the only way: not PUBLIC
        granted = conn.exec_driver_sql(
            "SELECT has_table_privilege('public', 'annotator_my_case_work', 'SELECT')").scalar()
    assert granted is False
