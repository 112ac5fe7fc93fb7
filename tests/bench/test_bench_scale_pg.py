"""``annotator bench-scale --store postgresql://...`` at a small size: a team store per size,
measured through the people's own login roles with row-level security on.

One run of ``bench-scale --cases 50,200 --no-gui`` on a fresh database name (its databases
``<name>_bench_*`` and their roles dropped after) is shared by the tests below.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from sqlalchemy import func, select

from annotator.bench.synth import CURATOR
from annotator.services.history_audit import verify_history
from annotator.services.repair import repair_case_states
from annotator.store.project import open_project
from annotator.store.schema import SmeItem, User
from pg_roles import ADMIN, create_database, drop_database

SIZES = (50, 200)
FIGURES = {"case_list_refresh", "case_filter", "edit_saved", "review_queue", "sme_queue",
           "status", "desk_figures", "case_history", "agreement_incremental", "export_100"}
pytestmark = [pytest.mark.postgres, pytest.mark.timeout(900)]


def _url(database: str) -> str:
    return f"postgresql://postgres@127.0.0.1:5432/{database}"


@pytest.fixture(scope="module")
def pg_scale(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[dict[str, Any], str]]:
    root = create_database()
    try:
        done = subprocess.run(
            [sys.executable, "-m", "annotator", "bench-scale", "--cases", "50,200", "--runs",
             "1", "--json", "--no-gui", "--store", _url(root),
             "--workdir", str(tmp_path_factory.mktemp("scale-pg"))],
            capture_output=True, text=True, timeout=900, check=False,
            env=dict(os.environ, QT_QPA_PLATFORM="offscreen"))
        assert done.returncode == 0, done.stderr[-3000:]
        yield json.loads(done.stdout), root
    finally:
        with psycopg.connect(ADMIN, autocommit=True) as conn:
            made = [r[0] for r in conn.execute(
                "SELECT datname FROM pg_database WHERE starts_with(datname, %s)",
                (f"{root}_bench_",))]
            for name in made:  # every database first: the roles they share go last
                conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        drop_database(root)


def test_every_figure_measured_through_the_peoples_logins(
    pg_scale: tuple[dict[str, Any], str]
) -> None:
    results, root = pg_scale
    assert set(results) >= {"50", "200", "growth"}
    for size in SIZES:
        figures = results[str(size)]
        for key in FIGURES:
            assert set(figures[key]) >= {"median_s", "min_s", "max_s", "runs"}, key
            assert figures[key]["median_s"] > 0, key
        assert figures["peak_rss_mb"] > 0
        assert figures["user_sme_tasks"] > 0  # the SME queue timed held the SME's tasks
        project = open_project(_url(f"{root}_bench_{size}"), create=False, backup=False)
        try:
            with project.read() as session:
                roles = {n: r for n, r in session.execute(select(User.name, User.db_role))}
        finally:
            project.close()
        # Each figure's connection was its person's own login role, not the owner.
        connections = figures["connections"]
        assert connections[CURATOR] == roles[CURATOR]
        for person, role in connections.items():
            assert role == roles[person] and role != "postgres", person
    assert set(results["growth"]) >= FIGURES


def test_the_grown_store_is_clean_and_each_site_has_its_own_sme_items(
    pg_scale: tuple[dict[str, Any], str]
) -> None:
    _, root = pg_scale
    counts = {}
    for name in (f"{root}_bench_base_50", f"{root}_bench_200"):
        project = open_project(_url(name), create=False, backup=False)
        try:
            with project.read() as session:
                counts[name] = session.scalar(select(func.count()).select_from(SmeItem))
                no_login = list(session.scalars(select(User.name).where(
                    User.db_role.is_(None), User.name != "(setup)")))
            assert no_login == []  # the cloned people got logins of their own
            assert repair_case_states(project, CURATOR, dry_run=True) == []
            report = verify_history(project)
            assert report.intact, report.as_json()
        finally:
            project.close()
    assert counts[f"{root}_bench_200"] == 4 * counts[f"{root}_bench_base_50"] > 0


def test_a_store_that_is_no_postgresql_url_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "annotator", "bench-scale", "--cases", "50", "--store",
         "sqlite:///x.db", "--workdir", str(tmp_path)],
        capture_output=True, text=True, timeout=120, check=False)
    assert done.returncode != 0
    assert "postgresql://" in done.stderr and "Traceback" not in done.stderr
