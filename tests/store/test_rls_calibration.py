"""Calibration items first on a walled store (migration 0014): a rater's own login reads which
of their assigned items are calibration items through ``annotator_my_calibration`` (item
references only), so their queue puts those first, while the reference answer stays hidden
until they submit."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from annotator.services import workspace
from annotator.services.assignments import assign
from annotator.services.imports import import_cases
from annotator.services.quality import mark_item, set_in_calibration
from annotator.services.users import add_user
from annotator.store.project import open_project
from factories import make_case, write_case_file
from pg_roles import create_database, drop_database

pytestmark = pytest.mark.postgres
REFERENCE = {"importance:Figure 1": "essential"}
REASON = "the key exam decides it"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    name = create_database()
    try:
        url = f"postgresql://postgres@127.0.0.1:5432/{name}"
        project = open_project(url)
        try:
            add_user(project, "(setup)", "cu", ["curator"])
            for person in ("a1", "a2", "a3"):
                add_user(project, "cu", person, ["annotator"])
            drafts = tmp_path_factory.mktemp("drafts")
            path = write_case_file(drafts, [make_case(f"T{n}") for n in range(1, 6)])
            import_cases(project, "cu", [path])
            assign(project, "cu", 2)
            mine = [r.case_id for r in workspace.case_list(project, "a1").rows]
            others = sorted({f"T{n}" for n in range(1, 6)} - set(mine))
            # The last of a1's cases, and one a1 does not hold, are calibration items.
            for case_id in (mine[-1], others[0]):
                mark_item(project, "cu", "case", case_id, "calibration", REFERENCE, REASON)
            set_in_calibration(project, "cu", "a1", True)
        finally:
            project.close()
        with psycopg.connect(_dsn(name, "postgres")) as conn:
            roles = dict(conn.execute("SELECT name, db_role FROM users").fetchall())
        yield {"db": name, "roles": roles, "mine": mine, "other": others[0]}
    finally:
        drop_database(name)


def _dsn(db: str, role: str) -> str:
    return f"host=127.0.0.1 port=5432 dbname={db} user={role}"


def test_the_rater_reads_which_own_items_are_calibration_items_and_nothing_more(
    store: dict[str, Any],
) -> None:
    with psycopg.connect(_dsn(store["db"], store["roles"]["a1"])) as conn:
        # The reference answers stay hidden: a1 has submitted nothing.
        assert conn.execute("SELECT count(*) FROM quality_items").fetchone() == (0,)
        rows = conn.execute("SELECT * FROM annotator_my_calibration")
        assert [c.name for c in rows.description or []] == ["kind", "item_ref"]
        assert rows.fetchall() == [("case", store["mine"][-1])]  # not the item a1 lacks
        for column in ("reference", "reason"):
            with pytest.raises(psycopg.errors.UndefinedColumn):
                conn.execute(f"SELECT {column} FROM annotator_my_calibration")
            conn.rollback()


def test_the_queue_of_a_rater_in_calibration_starts_with_calibration_items(
    store: dict[str, Any],
) -> None:
    own = open_project(f"postgresql://{store['roles']['a1']}@127.0.0.1:5432/{store['db']}",
                       create=False, backup=False)
    try:
        rows = workspace.case_list(own, "a1").rows
        assert [r.case_id for r in rows] == [store["mine"][-1], *store["mine"][:-1]]
        # Seeing the order did not open the reference answer before submitting.
        with own.read() as session:
            from sqlalchemy import func, select

            from annotator.store.schema import QualityItem

            assert session.scalar(select(func.count()).select_from(QualityItem)) == 0
    finally:
        own.close()


def test_the_migration_is_a_no_op_on_sqlite(tmp_path: Path) -> None:
    project = open_project(tmp_path / "p")
    try:
        with project.read() as session:
            from sqlalchemy import text

            names = {r[0] for r in session.execute(text(
                "SELECT name FROM sqlite_master WHERE name LIKE 'annotator_%'"))}
        assert names == set()
    finally:
        project.close()
