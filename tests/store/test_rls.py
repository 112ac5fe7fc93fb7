"""The database as the wall (migration 0013_rls): psycopg connected straight to PostgreSQL as
an annotator's own login role, bypassing the app, sees and changes only what the policies give.

One demo store is built (as the owner) for the module: cases, SME verdicts with hybrid
automated verdicts, judge scores, adjudications, bundles' settings and history.
"""

from __future__ import annotations

import json
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
import pytest

from annotator.store.schema import Base
from pg_roles import create_database, drop_database

pytestmark = pytest.mark.postgres

# Tables every app role reads whole, with the reason; any other table of the metadata needs
# row-level security and an expectation below, so a new table without a policy fails here.
PUBLIC_BY_DESIGN = {
    "users": "names, roles and db_role (password_hash is column-revoked, tested below)",
    "user_roles": "who holds which role: the pages' gates",
    "history_chain": "the chain head every writer of history locks and advances",
    "sme_benchmarks": "the benchmark specifications every SME reviews against",
    "image_text_checks": "the pixel check of an image hash: boxes, never text or pixels",
    "image_reviews": "a curator's redaction decision on an image hash",
    "image_notes": "attribution and de-identification notes shared by images; which case"
                   " holds them is in case_images, behind its policy",
}

# For each table with row-level security: the ids (as text) an annotator must see, computed by
# the owner from the annotator's users.id (%(me)s) and name (%(name)s).
MINE = "SELECT id FROM rated_work WHERE rater_id = %(me)s"
# Cases assigned to the annotator, and those linked to judged outputs they score.
MY_CASES = ("SELECT case_pk FROM rated_work WHERE rater_id = %(me)s AND case_pk IS NOT NULL"
            " UNION SELECT j.case_pk FROM judge_items j JOIN rated_work w ON w.item_id = j.id"
            " WHERE w.rater_id = %(me)s AND j.case_pk IS NOT NULL")
EXPECTED = {
    "rated_work": ("id", "SELECT id FROM rated_work WHERE rater_id = %(me)s"),
    "decisions": ("id", "SELECT d.id FROM decisions d WHERE EXISTS (SELECT 1 FROM rated_work w"
                  " WHERE w.rater_id = %(me)s AND w.kind = d.kind AND w.submitted_at IS NOT"
                  " NULL AND (w.case_pk = d.case_pk OR w.task_id = d.task_id OR w.item_id ="
                  " d.item_id))"),
    "history": ("id", f"SELECT id FROM history WHERE actor = %(name)s OR annotation_id IN"
                f" ({MINE})"),
    "review_records": ("case_pk", "SELECT case_pk FROM review_records WHERE false"),
    "detected_items": ("id", "SELECT id FROM detected_items WHERE false"),
    "reviewer_letters": ("case_pk", "SELECT case_pk FROM reviewer_letters"
                         " WHERE annotator_id = %(me)s"),
    "cases": ("id", MY_CASES),
    "case_revisions": ("id", f"SELECT id FROM case_revisions WHERE case_pk IN ({MY_CASES})"),
    "case_images": ("id", "SELECT i.id FROM case_images i JOIN case_revisions r ON r.id ="
                    f" i.revision_id WHERE r.case_pk IN ({MY_CASES})"),
    "image_blobs": ("sha256", "SELECT i.sha256 FROM case_images i JOIN case_revisions r ON"
                    f" r.id = i.revision_id WHERE r.case_pk IN ({MY_CASES})"),
    "sme_tasks": ("id", "SELECT task_id FROM rated_work WHERE rater_id = %(me)s"
                  " AND task_id IS NOT NULL"),
    "sme_items": ("id", "SELECT t.item_pk FROM sme_tasks t JOIN rated_work w ON w.task_id ="
                  " t.id WHERE w.rater_id = %(me)s"),
    "judge_items": ("id", "SELECT item_id FROM rated_work WHERE rater_id = %(me)s"
                    " AND item_id IS NOT NULL"),
    "judged_runs": ("id", "SELECT j.run_id FROM judge_items j JOIN rated_work w ON"
                    " w.item_id = j.id WHERE w.rater_id = %(me)s"),
    "judge_mode_scores": ("item_id || mode", "SELECT s.item_id || s.mode FROM"
                          " judge_mode_scores s JOIN rated_work w ON w.item_id = s.item_id"
                          " WHERE w.rater_id = %(me)s AND w.submitted_at IS NOT NULL"),
    # A calibration or gold item's reference: only once one's own work on it is submitted.
    "quality_items": ("id", "SELECT q.id FROM quality_items q JOIN rated_work w ON w.kind ="
                      " q.kind AND w.rater_id = %(me)s AND w.submitted_at IS NOT NULL"
                      " LEFT JOIN cases c ON c.id = w.case_pk WHERE c.case_id = q.item_ref"
                      " OR w.task_id::text = q.item_ref OR w.item_id::text = q.item_ref"),
    "sync_bundles": ("id", "SELECT id FROM sync_bundles WHERE annotator_id = %(me)s"),
    "sync_packages": ("id", "SELECT id FROM sync_packages WHERE annotator_id = %(me)s"),
    # The project counters (status, the desk): project-wide ones for all, per-rater, per-day
    # and active-time ones seniors only; every role changes them through
    # annotator_count_add, never by a write of its own.
    "project_counts": ("key", "SELECT key FROM project_counts WHERE key NOT LIKE 'rater:%%'"
                       " AND key NOT LIKE 'day:%%' AND key NOT LIKE 'active:%%'"),
    # The review queue's keys (0021_queue_key): seniors only; an annotator's write marks a
    # key stale through annotator_queue_stale.
    "queue_keys": ("case_pk", "SELECT case_pk FROM queue_keys WHERE false"),
    # Their totals per group (0032_queue_totals): seniors read them; only the triggers on
    # queue_keys write them.
    "queue_totals": ("grp", "SELECT grp FROM queue_totals WHERE false"),
    # The SME tasks' keys (0025_sme_task_keys): seniors only; an SME's write marks a key
    # stale through annotator_sme_stale.
    "sme_task_keys": ("task_id", "SELECT task_id FROM sme_task_keys WHERE false"),
    # Their totals (0033_sme_totals): seniors read them; only the triggers write them.
    "sme_totals": ("benchmark_id", "SELECT benchmark_id FROM sme_totals WHERE false"),
    # Agreement statistics per case (0019_agreement_stats): curators only.
    "agreement_stats": ("case_pk", "SELECT case_pk FROM agreement_stats WHERE false"),
    # Their rater pairs' summed tables (0034_agreement_pair_sums): curators only.
    "agreement_pair_sums": ("family || pair", "SELECT family || pair FROM agreement_pair_sums"
                            " WHERE false"),
    # Cases whose statistics are stale (0020_agreement_stale): seniors read, curators clear;
    # every role marks through annotator_agreement_stale, never by a write of its own.
    "agreement_stale": ("case_pk", "SELECT case_pk FROM agreement_stale WHERE false"),
    "settings": ("key", "SELECT key FROM settings WHERE (key NOT LIKE 'bundle\\_key:%%' AND"
                 " key <> 'package_secret' AND key NOT LIKE 'resume:%%')"
                 " OR key = 'resume:' || %(name)s"),
}
ALEMBIC = "alembic_version"


@pytest.fixture(scope="module")
def store() -> Iterator[dict[str, Any]]:
    """The demo built on a walled store; the annotators' login roles and ids."""
    from annotator.services.demo import build_demo

    name = create_database()
    try:
        url = f"postgresql://postgres@127.0.0.1:5432/{name}"
        build_demo(url)
        with psycopg.connect(_dsn(name, "postgres")) as conn:
            people = {
                row[0]: {"id": row[1], "db_role": row[2], "roles": row[3]}
                for row in conn.execute(
                    "SELECT u.name, u.id, u.db_role, array_agg(r.role) FROM users u"
                    " JOIN user_roles r ON r.user_id = u.id GROUP BY 1, 2, 3"
                )
            }
        yield {"db": name, "url": url, "people": people}
    finally:
        drop_database(name)


def _dsn(db: str, role: str) -> str:
    return f"host=127.0.0.1 port=5432 dbname={db} user={role}"


def _annotators(store: dict[str, Any]) -> list[str]:
    return sorted(n for n, p in store["people"].items() if p["roles"] == ["annotator"])


def _as(store: dict[str, Any], person: str) -> psycopg.Connection:
    return psycopg.connect(_dsn(store["db"], store["people"][person]["db_role"]))


def _owner(store: dict[str, Any]) -> psycopg.Connection:
    return psycopg.connect(_dsn(store["db"], "postgres"))


def test_every_table_has_row_security_or_is_public_by_design(store: dict[str, Any]) -> None:
    with _owner(store) as conn:
        secured = {r[0]: r[1] for r in conn.execute(
            "SELECT relname, relrowsecurity FROM pg_class WHERE relkind = 'r'"
            " AND relnamespace = 'public'::regnamespace")}
    for table in Base.metadata.tables:
        if table in PUBLIC_BY_DESIGN:
            assert not secured[table], f"{table} is listed public but has row security"
        else:
            assert secured[table], f"{table} holds rows without row-level security"
            assert table in EXPECTED, f"{table}: say what an annotator may see of it"


@pytest.mark.parametrize("table", sorted(EXPECTED))
def test_an_annotator_sees_only_the_rows_the_policies_give(
    store: dict[str, Any], table: str
) -> None:
    key, expected_sql = EXPECTED[table]
    for person in _annotators(store):
        me = store["people"][person]
        params = {"me": me["id"], "name": person}
        with _owner(store) as conn:
            expected = {str(r[0]) for r in conn.execute(expected_sql, params)}
            everything = {str(r[0]) for r in conn.execute(f"SELECT {key} FROM {table}")}
        with _as(store, person) as conn:
            seen = {str(r[0]) for r in conn.execute(f"SELECT {key} FROM {table}")}
        assert seen == expected, (table, person)
        if table in ("rated_work", "history", "cases", "sme_tasks"):
            assert seen and seen != everything, (table, person)  # not vacuous


def test_no_other_annotators_labels_verdicts_or_scores(store: dict[str, Any]) -> None:
    first, second, *_ = _annotators(store)
    other = store["people"][second]["id"]
    with _owner(store) as conn:
        theirs = conn.execute(
            "SELECT kind, count(*) FROM rated_work WHERE rater_id = %s GROUP BY 1", (other,)
        ).fetchall()
        assert {k for k, _n in theirs} >= {"case", "sme"}
    with _as(store, first) as conn:
        assert conn.execute("SELECT count(*) FROM rated_work WHERE rater_id = %s",
                            (other,)).fetchone() == (0,)
        # Their words in the history (label edits, comments, verdict fields) neither.
        assert conn.execute("SELECT count(*) FROM history WHERE actor = %s",
                            (second,)).fetchone() == (0,)
        assert conn.execute("SELECT count(*) FROM detected_items").fetchone() == (0,)


@pytest.mark.parametrize(("table", "column"), [
    ("sme_items", "system"), ("sme_tasks", "automated"), ("users", "password_hash")
])
def test_hidden_columns_are_refused(store: dict[str, Any], table: str, column: str) -> None:
    person = _annotators(store)[0]
    with _as(store, person) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(f"SELECT {column} FROM {table}")


def test_a_hybrid_verdict_is_revealed_only_after_submitting(store: dict[str, Any]) -> None:
    with _owner(store) as conn:
        rows = conn.execute(
            "SELECT u.name, t.id, w.state FROM sme_tasks t"
            " JOIN sme_benchmarks b ON b.id = t.benchmark_id"
            " JOIN rated_work w ON w.task_id = t.id JOIN users u ON u.id = w.rater_id"
            " WHERE b.evaluator_type = 'hybrid' AND t.automated IS NOT NULL"
            " AND u.name = ANY(%s)", (_annotators(store),)
        ).fetchall()
    submitted = [(n, t) for n, t, s in rows if s == "submitted"]
    assert submitted
    for name, task in submitted:
        with _as(store, name) as conn:
            assert conn.execute("SELECT annotator_revealed_automated(%s)",
                                (task,)).fetchone()[0] is not None
    # A task someone else submitted, asked by an annotator not submitted on it: nothing.
    for name in _annotators(store):
        mine = {t for n, t, s in rows if n == name and s == "submitted"}
        foreign = [t for _n, t, _s in rows if t not in mine]
        if foreign:
            with _as(store, name) as conn:
                assert conn.execute("SELECT annotator_revealed_automated(%s)",
                                    (foreign[0],)).fetchone() == (None,)
            return
    pytest.fail("no hybrid task outside some annotator's own submitted ones")


def test_another_raters_rows_cannot_be_changed_or_deleted(store: dict[str, Any]) -> None:
    first, second, *_ = _annotators(store)
    other = store["people"][second]["id"]
    with _owner(store) as conn:
        before = conn.execute("SELECT id, version, values::text FROM rated_work"
                              " WHERE rater_id = %s ORDER BY id", (other,)).fetchall()
    with _as(store, first) as conn:
        changed = conn.execute("UPDATE rated_work SET values = '{}' WHERE rater_id = %s",
                               (other,)).rowcount
        deleted = conn.execute("DELETE FROM rated_work WHERE rater_id = %s", (other,)).rowcount
        own = conn.execute("DELETE FROM rated_work WHERE rater_id = %s",
                           (store["people"][first]["id"],)).rowcount
        conn.commit()
    assert (changed, deleted, own) == (0, 0, 0)  # deleting is a curator's, even one's own
    with _owner(store) as conn:
        after = conn.execute("SELECT id, version, values::text FROM rated_work"
                             " WHERE rater_id = %s ORDER BY id", (other,)).fetchall()
    assert after == before


def test_no_app_role_may_update_or_delete_history(store: dict[str, Any]) -> None:
    for person in (*_annotators(store)[:1], "Sam Curator"):
        for statement in ("UPDATE history SET actor = actor", "DELETE FROM history"):
            with _as(store, person) as conn, pytest.raises(
                psycopg.errors.InsufficientPrivilege
            ):
                conn.execute(statement)


def _history_row(actor: str) -> dict[str, Any]:
    return {"id": uuid.uuid4(), "actor": actor}


def test_history_rows_are_written_in_ones_own_name_only(store: dict[str, Any]) -> None:
    first, second, *_ = _annotators(store)
    insert = ("INSERT INTO history (id, at, actor, action, detail) VALUES"
              " (%(id)s, now(), %(actor)s, 'label_set', '{}')")
    with _as(store, first) as conn:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute(insert, _history_row(second))
    with _as(store, first) as conn:
        conn.execute(insert, _history_row(first))  # allowed, and rolled back here
        conn.rollback()


def test_adjudicator_reads_submitted_work_and_curator_everything(store: dict[str, Any]) -> None:
    senior = next(n for n, p in store["people"].items() if p["roles"] == ["adjudicator"])
    with _owner(store) as conn:
        total = conn.execute("SELECT count(*) FROM rated_work").fetchone()
        submitted = conn.execute("SELECT count(*) FROM rated_work"
                                 " WHERE submitted_at IS NOT NULL").fetchone()
    with _as(store, senior) as conn:
        assert conn.execute("SELECT count(*) FROM rated_work").fetchone() == submitted
    with _as(store, "Sam Curator") as conn:
        assert conn.execute("SELECT count(*) FROM rated_work").fetchone() == total
        assert conn.execute("SELECT count(system) FROM sme_items").fetchone()[0] > 0


def test_the_database_refuses_strangers_and_other_stores(store: dict[str, Any]) -> None:
    """CONNECT was revoked from PUBLIC; a login of this store is no curator elsewhere."""
    with _owner(store) as conn:
        granted = conn.execute(
            "SELECT has_database_privilege('public', current_database(), 'CONNECT')"
        ).fetchone()
    assert granted == (False,)
    person = _annotators(store)[0]
    with _as(store, person) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute("SELECT annotator_create_login(%s)", (person,))


def _cli(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "annotator", *argv], capture_output=True,
                          text=True, timeout=120)


def test_the_app_acts_as_the_connections_person(store: dict[str, Any]) -> None:
    first, second, *_ = _annotators(store)
    role = store["people"][first]["db_role"]
    url = f"postgresql://{role}@127.0.0.1:5432/{store['db']}"
    listed = _cli("--project", url, "users", "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert {u["name"]: u["db_role"] for u in json.loads(listed.stdout)}[first] == role
    refused = _cli("--project", url, "--as", second, "review", "--list")
    assert refused.returncode != 0
    assert f"this connection is {first}'s login" in refused.stderr
    assert "Traceback" not in refused.stderr
    blind = _cli("--project", url, "review", "--list")  # the service's clear message too
    assert blind.returncode != 0 and "adjudicator or curator role" in blind.stderr


def test_history_verify_needs_a_reader_of_the_whole_history(store: dict[str, Any]) -> None:
    first = _annotators(store)[0]
    mine = f"postgresql://{store['people'][first]['db_role']}@127.0.0.1:5432/{store['db']}"
    refused = _cli("--project", mine, "history-verify")
    assert refused.returncode == 2 and "curator or adjudicator role" in refused.stderr
    curator = store["people"]["Sam Curator"]["db_role"]
    done = _cli("--project", f"postgresql://{curator}@127.0.0.1:5432/{store['db']}",
                "history-verify")
    assert done.returncode == 0, done.stdout + done.stderr


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_the_wall_comes_down_and_up_again(backend: str, tmp_path: Any) -> None:
    """0013_rls downgrades (policies, functions, the store's roles, db_role) and upgrades."""
    from alembic import command
    from sqlalchemy import inspect, text

    from annotator.store.db import _alembic_config, make_engine

    name = create_database() if backend == "postgres" else ""  # skips without the server
    url = (f"postgresql://postgres@127.0.0.1:5432/{name}" if name
           else f"sqlite:///{tmp_path / 'p.sqlite'}")
    engine = make_engine(url)
    try:
        with engine.begin() as conn:
            command.upgrade(_alembic_config(conn), "0013_rls")
            if name:
                conn.execute(text("INSERT INTO users (id, name, created_at, version) VALUES"
                                  " (gen_random_uuid(), 'a1', now(), 1)"))
                conn.execute(text("SELECT annotator_create_login('a1')"))
            command.downgrade(_alembic_config(conn), "0012_scale_indexes")
            assert "db_role" not in {c["name"] for c in inspect(conn).get_columns("users")}
            if name:
                left = conn.execute(text(
                    "SELECT count(*) FROM pg_roles WHERE starts_with(rolname, :p)"
                ), {"p": name[:26]}).scalar()
                secured = conn.execute(text(
                    "SELECT count(*) FROM pg_class WHERE relrowsecurity")).scalar()
                assert (left, secured) == (0, 0)
            command.upgrade(_alembic_config(conn), "0013_rls")
    finally:
        engine.dispose()
        if name:
            drop_database(name)


def test_a_person_facing_a_schema_behind_is_told_who_migrates(store: dict[str, Any]) -> None:
    from annotator.errors import ProjectError
    from annotator.store.project import open_project

    first = _annotators(store)[0]
    mine = f"postgresql://{store['people'][first]['db_role']}@127.0.0.1:5432/{store['db']}"
    with _owner(store) as conn:
        head = conn.execute("SELECT version_num FROM alembic_version").fetchone()[0]
        conn.execute("UPDATE alembic_version SET version_num = '0012_scale_indexes'")
        conn.commit()
        try:
            with pytest.raises(ProjectError) as behind:
                open_project(mine)
        finally:
            conn.execute("UPDATE alembic_version SET version_num = %s", (head,))
            conn.commit()
    assert "administrator must migrate it" in str(behind.value)
    assert "annotator --project ADMIN_URL migrate" in str(behind.value)


def test_an_adjudicator_decides_but_cannot_change_anyones_submitted_work(
    store: dict[str, Any],
) -> None:
    """Seniors read what the review queue shows and write decisions; the rated work they read
    stays the raters' (0015_senior_reads): no UPDATE or DELETE of another's row."""
    from annotator.services.review.decisions import decide
    from annotator.services.review.queue import list_items
    from annotator.store.project import open_project

    senior = next(n for n, p in store["people"].items() if p["roles"] == ["adjudicator"])
    me = store["people"][senior]["id"]
    read = ("SELECT id, state, version, values::text, submitted::text FROM rated_work"
            " WHERE submitted_at IS NOT NULL AND rater_id <> %s ORDER BY id")
    with _owner(store) as conn:
        before = conn.execute(read, (me,)).fetchall()
        decided = conn.execute("SELECT count(*) FROM decisions").fetchone()
    assert before
    with _as(store, senior) as conn:
        assert conn.execute(read, (me,)).fetchall() == before  # the queue's reading
        changed = conn.execute(
            "UPDATE rated_work SET values = '{}', state = 'in_progress', submitted_at = NULL"
            " WHERE rater_id <> %s", (me,)).rowcount
        deleted = conn.execute("DELETE FROM rated_work WHERE rater_id <> %s", (me,)).rowcount
        conn.commit()
    assert (changed, deleted) == (0, 0)
    # Deciding a conflict works through the senior's own login.
    project = open_project(
        f"postgresql://{store['people'][senior]['db_role']}@127.0.0.1:5432/{store['db']}")
    try:
        item = next(i for i in list_items(project, senior, only_open=True)
                    if any(v is not None for v in i.values.values()))
        value = next(v for v in item.values.values() if v is not None)
        decide(project, senior, item.case_id, item.key, value, "protocol", "by the wall test")
    finally:
        project.close()
    with _owner(store) as conn:
        assert conn.execute(read, (me,)).fetchall() == before
        assert conn.execute("SELECT count(*) FROM decisions").fetchone()[0] > decided[0]
        assert conn.execute("SELECT adjudicator FROM decisions WHERE reason = 'by the wall test'"
                            ).fetchone() == (senior,)


def test_an_annotators_submission_marks_its_case_without_seeing_any_mark(
    store: dict[str, Any],
) -> None:
    """0020_agreement_stale: the app marks through the SECURITY DEFINER function; the marks
    are the seniors' to read and the curators' to clear, never an annotator's."""
    import random

    from annotator.services import kinds
    from annotator.services.demo import _label_fully
    from annotator.store.project import open_project

    with _owner(store) as conn:
        found = conn.execute(
            "SELECT u.name, c.case_id, c.id FROM rated_work w JOIN users u ON u.id = w.rater_id"
            " JOIN cases c ON c.id = w.case_pk WHERE w.kind = 'case' AND w.state IN"
            " ('assigned', 'in_progress') AND w.repeat_of IS NULL AND w.withdrawn_at IS NULL"
            " AND c.state = 'annotating' AND u.name = ANY(%s) ORDER BY c.case_id",
            (_annotators(store),)).fetchone()
        conn.execute("DELETE FROM agreement_stale")
        conn.commit()
    assert found is not None
    name, case_id, pk = found
    project = open_project(
        f"postgresql://{store['people'][name]['db_role']}@127.0.0.1:5432/{store['db']}")
    try:
        _label_fully(project, name, case_id, random.Random(1), disagree=0.3)
        kinds.CASES.submit(project, name, case_id)
    finally:
        project.close()
    with _owner(store) as conn:
        assert [r[0] for r in conn.execute("SELECT case_pk FROM agreement_stale")] == [pk]
    with _as(store, name) as conn:
        assert conn.execute("SELECT count(*) FROM agreement_stale").fetchone() == (0,)
        assert conn.execute("DELETE FROM agreement_stale").rowcount == 0
        conn.commit()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO agreement_stale (case_pk, token) VALUES (%s, %s)",
                         (pk, uuid.uuid4()))
    senior = next(n for n, p in store["people"].items() if p["roles"] == ["adjudicator"])
    with _as(store, senior) as conn:
        assert [r[0] for r in conn.execute("SELECT case_pk FROM agreement_stale")] == [pk]
        assert conn.execute("DELETE FROM agreement_stale").rowcount == 0
        conn.commit()
    with _as(store, "Sam Curator") as conn:
        assert conn.execute("DELETE FROM agreement_stale").rowcount == 1
        conn.rollback()


def test_an_annotators_write_marks_the_queue_key_stale_for_a_senior_to_recompute(
    store: dict[str, Any],
) -> None:
    """An annotator's connection cannot read the other labels a queue key is computed from,
    nor write the keys: their write marks the key stale (annotator_queue_stale) and the next
    senior's read of the queue recomputes it."""
    from annotator.services import annotating
    from annotator.services.review.queue import case_queue_page
    from annotator.store.project import open_project

    annotators = _annotators(store)
    with _owner(store) as conn:
        case_pk, case_id, person = conn.execute(
            "SELECT c.id, c.case_id, u.name FROM queue_keys k JOIN cases c ON c.id = k.case_pk"
            " JOIN rated_work w ON w.case_pk = c.id JOIN users u ON u.id = w.rater_id"
            " WHERE c.state = 'in_review' AND w.state = 'submitted' AND w.withdrawn_at IS NULL"
            " AND w.repeat_of IS NULL AND NOT k.stale AND u.name = ANY(%s) AND NOT EXISTS"
            " (SELECT 1 FROM decisions d WHERE d.case_pk = c.id AND NOT d.superseded)"
            " ORDER BY c.case_id LIMIT 1", (annotators,)).fetchone()
        totals_before = _queue_totals(conn)
    with _as(store, person) as conn:  # no direct write: the policies give seniors only
        assert conn.execute("UPDATE queue_keys SET impact = 99").rowcount == 0
        conn.rollback()
    project = open_project(
        f"postgresql://{store['people'][person]['db_role']}@127.0.0.1:5432/{store['db']}")
    try:
        annotating.reopen(project, person, case_id)  # back to annotating: out of the queue
    finally:
        project.close()
    with _owner(store) as conn:
        assert conn.execute("SELECT stale FROM queue_keys WHERE case_pk = %s",
                            (case_pk,)).fetchone() == (True,)
        # The database took the stale key out of its group's total, whoever marked it.
        totals = _queue_totals(conn)
        assert sum(n for n, _ in totals.values()) == sum(
            n for n, _ in totals_before.values()) - 1
        assert totals == _counted_totals(conn)
    senior = next(n for n, p in store["people"].items() if p["roles"] == ["adjudicator"])
    project = open_project(
        f"postgresql://{store['people'][senior]['db_role']}@127.0.0.1:5432/{store['db']}")
    try:
        page = case_queue_page(project, senior, limit=None)
    finally:
        project.close()
    assert case_id not in {e.case_id for e in page.entries}
    with _owner(store) as conn:
        assert conn.execute("SELECT count(*) FROM queue_keys WHERE stale OR case_pk = %s",
                            (case_pk,)).fetchone() == (0,)
        assert _queue_totals(conn) == _counted_totals(conn)


def _queue_totals(conn: Any) -> dict[int, tuple[int, int]]:
    return {g: (n, o) for g, n, o in conn.execute(
        "SELECT grp, cases, open_conflicts FROM queue_totals WHERE cases > 0")}


def _counted_totals(conn: Any) -> dict[int, tuple[int, int]]:
    return {g: (n, o) for g, n, o in conn.execute(
        "SELECT grp, count(*), coalesce(sum(open_conflicts), 0) FROM queue_keys"
        " WHERE NOT stale GROUP BY grp")}


@pytest.mark.parametrize("table", ["queue_totals", "sme_totals"])
def test_the_kept_totals_are_written_by_the_triggers_only(store: dict[str, Any],
                                                          table: str) -> None:
    """No app role writes the totals itself (only the triggers' SECURITY DEFINER function
    does): an annotator reads none, a senior reads them, neither may change a row."""
    annotator = _annotators(store)[0]
    senior = next(n for n, p in store["people"].items() if p["roles"] == ["adjudicator"])
    with _owner(store) as conn:
        rows = conn.execute(f"SELECT count(*) FROM {table}").fetchone()
    for person, seen in ((annotator, (0,)), (senior, rows)):
        with _as(store, person) as conn:
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == seen
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"UPDATE {table} SET open_conflicts = 0")
            conn.rollback()
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                conn.execute(f"DELETE FROM {table}")
