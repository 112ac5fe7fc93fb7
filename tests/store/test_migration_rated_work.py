"""Migration 0007: a project of schema 0006 (three tables of rated work, three of
adjudications) reaches the one family of tables with every value, id and history entry kept."""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import pytest
from alembic import command
from sqlalchemy import text

from annotator.store.db import _alembic_config, make_engine
from annotator.store.project import DB_NAME, open_project
from annotator.store.schema import (
    Adjudication,
    Annotation,
    JudgeAdjudication,
    PhysicianScore,
    SmeAdjudication,
    SmeVerdict,
)

T0 = datetime(2026, 5, 1, 9, 30, 0)
T1 = datetime(2026, 5, 2, 10, 0, 0)
IDS = {name: uuid.uuid4() for name in (
    "user", "user2", "case", "rev", "ann", "ann2", "adj", "bench", "item", "task", "verdict",
    "sme_adj", "run", "jitem", "score", "score2", "judge_adj", "hist",
)}


def _url(location: str) -> str:
    return location if "://" in location else f"sqlite:///{location}"


def _insert(conn: Any, table: str, **row: Any) -> None:
    columns = ", ".join(f'"{k}"' for k in row)
    marks = ", ".join(f":{k}" for k in row)
    conn.execute(text(f"INSERT INTO {table} ({columns}) VALUES ({marks})"), row)


def _u(name: str, sqlite: bool) -> Any:
    value = IDS[name]
    return value.hex if sqlite else value


def _old_project(url: str) -> None:
    """Schema 0006 with one row of each kind of rated work and adjudication."""
    engine = make_engine(url)
    sqlite = engine.dialect.name == "sqlite"
    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "0006_sme")

    def u(name: str) -> Any:
        return _u(name, sqlite)

    def js(value: Any) -> str:
        import json

        return json.dumps(value)

    with engine.begin() as conn:
        for name, who in (("user", "Dr Ada"), ("user2", "Dr Bo")):
            _insert(conn, "users", id=u(name), name=who, created_at=T0, version=1)
        _insert(conn, "cases", id=u("case"), case_id="c-1", state="in_review", created_at=T0,
                updated_at=T0, version=3)
        _insert(conn, "case_revisions", id=u("rev"), case_pk=u("case"), number=1,
                content_hash="h" * 64, content=js({"case_id": "c-1"}), original_values="{}",
                problems="[]", warnings="[]", source_file="", imported_at=T0, imported_by="cu")
        for key, who, labels in (("ann", "user", {"difficulty": 3, "rarity": "rare"}),
                                 ("ann2", "user2", {"difficulty": 4})):
            _insert(conn, "annotations", id=u(key), case_pk=u("case"), annotator_id=u(who),
                    revision_id=u("rev"), state="submitted", labels=js(labels),
                    submitted_labels=js(labels), submitted_at=T1, needs_recheck=False,
                    withdrawn_at=None, created_at=T0, updated_at=T1, version=5)
        _insert(conn, "adjudications", id=u("adj"), case_pk=u("case"), key="difficulty",
                value=js(3), reason_code="clinical_judgement", reason_text="why not",
                adjudicator="Dr Senior", decided_at=T1, superseded=False)
        _insert(conn, "sme_benchmarks", id=u("bench"), code="A-NEG1", parent_rubric="A",
                evaluator_type="hybrid", version=2, content="{}", content_hash="b" * 64,
                source_file="", imported_at=T0, imported_by="cu")
        _insert(conn, "sme_items", id=u("item"), item_id="i-1", position=1, test_case=js("q"),
                ground_truth=None, output=js("a"), system="s", content_hash="i" * 64,
                source_file="", imported_at=T0, imported_by="cu")
        _insert(conn, "sme_tasks", id=u("task"), item_pk=u("item"), benchmark_id=u("bench"),
                automated=None)
        _insert(conn, "sme_verdicts", id=u("verdict"), task_id=u("task"), reviewer_id=u("user"),
                state="in_progress", fields=js({"outcome": "pass"}), submitted=None,
                submitted_at=None, needs_recheck=True, benchmark_version=2, created_at=T0,
                updated_at=T1, version=2)
        _insert(conn, "sme_adjudications", id=u("sme_adj"), task_id=u("task"), key="outcome",
                value=js("flag"), reason="the output invents a lesion", adjudicator="Dr Senior",
                decided_at=T1, superseded=True)
        _insert(conn, "judged_runs", id=u("run"), run_hash="r" * 64, target_model="m",
                judge_model="j", modes="[]", code_version="{}", missing="[]", source_file="",
                imported_at=T0, imported_by="cu")
        _insert(conn, "judge_items", id=u("jitem"), run_id=u("run"), case_id="c-1",
                case_pk=u("case"), position=1, case_payload="{}", model_payload="{}")
        _insert(conn, "physician_scores", id=u("score"), item_id=u("jitem"), scorer_id=u("user"),
                scores=js({"top1": 2}), submitted_at=T1, source="csv", created_at=T0, version=4)
        _insert(conn, "physician_scores", id=u("score2"), item_id=u("jitem"),
                scorer_id=u("user2"), scores="{}", submitted_at=None, source="page",
                created_at=T0, version=1)
        _insert(conn, "judge_adjudications", id=u("judge_adj"), item_id=u("jitem"), key="top1",
                value=js(3), reason="", adjudicator="Dr Senior", decided_at=T1, superseded=False)
        _insert(conn, "history", id=u("hist"), at=T1, actor="Dr Ada", action="label",
                case_pk=u("case"), annotation_id=u("ann"), key="difficulty", before=js(None),
                after=js(3), detail="{}")
    engine.dispose()


BACKENDS = ["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_0006_project_keeps_every_value(
    backend: str, tmp_path: Any, request: pytest.FixtureRequest
) -> None:
    if backend == "sqlite":
        (tmp_path / "p").mkdir()
        location, url = str(tmp_path / "p"), f"sqlite:///{tmp_path / 'p' / DB_NAME}"
    else:
        location = url = request.getfixturevalue("pg_url")
    _old_project(url)
    project = open_project(location)
    try:
        with project.read() as s:
            ann = s.get(Annotation, IDS["ann"])
            assert ann is not None
            assert (ann.kind, ann.case_pk, ann.annotator_id, ann.revision_id, ann.state) == (
                "case", IDS["case"], IDS["user"], IDS["rev"], "submitted")
            assert ann.labels == ann.submitted_labels == {"difficulty": 3, "rarity": "rare"}
            assert (ann.submitted_at, ann.created_at, ann.updated_at, ann.version) == (
                T1, T0, T1, 5)
            assert not ann.needs_recheck and ann.withdrawn_at is None
            ann2 = s.get(Annotation, IDS["ann2"])
            assert ann2 is not None and ann2.labels == {"difficulty": 4}

            verdict = s.get(SmeVerdict, IDS["verdict"])
            assert verdict is not None
            assert (verdict.task_id, verdict.reviewer_id, verdict.state, verdict.fields,
                    verdict.submitted, verdict.needs_recheck, verdict.benchmark_version,
                    verdict.updated_at, verdict.version) == (
                IDS["task"], IDS["user"], "in_progress", {"outcome": "pass"}, None, True, 2,
                T1, 2)

            score = s.get(PhysicianScore, IDS["score"])
            assert score is not None
            assert (score.item_id, score.scorer_id, score.scores, score.submitted_at,
                    score.source, score.created_at, score.version, score.state,
                    score.submitted) == (
                IDS["jitem"], IDS["user"], {"top1": 2}, T1, "csv", T0, 4, "submitted",
                {"top1": 2})
            open_score = s.get(PhysicianScore, IDS["score2"])
            assert open_score is not None
            assert (open_score.state, open_score.submitted, open_score.scores) == (
                "assigned", None, {})

            adj = s.get(Adjudication, IDS["adj"])
            assert adj is not None
            assert (adj.case_pk, adj.key, adj.value, adj.reason_code, adj.reason_text,
                    adj.adjudicator, adj.decided_at, adj.superseded) == (
                IDS["case"], "difficulty", 3, "clinical_judgement", "why not", "Dr Senior",
                T1, False)
            sme_adj = s.get(SmeAdjudication, IDS["sme_adj"])
            assert sme_adj is not None
            assert (sme_adj.task_id, sme_adj.key, sme_adj.value, sme_adj.reason,
                    sme_adj.superseded) == (
                IDS["task"], "outcome", "flag", "the output invents a lesion", True)
            judge_adj = s.get(JudgeAdjudication, IDS["judge_adj"])
            assert judge_adj is not None
            assert (judge_adj.item_id, judge_adj.key, judge_adj.value, judge_adj.reason) == (
                IDS["jitem"], "top1", 3, "")

            # The history entry still names the annotation it was written against.
            found = s.execute(text("SELECT annotation_id FROM history")).scalar_one()
            assert str(found).replace("-", "") == IDS["ann"].hex
            names = s.execute(text("SELECT kind, count(*) FROM rated_work GROUP BY kind"))
            assert dict(names.all()) == {"case": 2, "sme": 1, "judge": 2}
    finally:
        project.close()


def test_downgrade_gives_the_three_tables_back(tmp_path: Any) -> None:
    url = _url(str(tmp_path / "p.sqlite"))
    _old_project(url)
    engine = make_engine(url)
    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "0007_rated_work")
    with engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "0006_sme")
    with engine.connect() as conn:
        labels = conn.execute(text("SELECT labels FROM annotations ORDER BY labels")).scalars()
        assert sorted(labels) == sorted(['{"difficulty": 3, "rarity": "rare"}',
                                         '{"difficulty": 4}'])
        scores = conn.execute(text("SELECT source, scores FROM physician_scores")).all()
        assert sorted(scores) == [("csv", '{"top1": 2}'), ("page", "{}")]
        reason = conn.execute(text("SELECT reason_text FROM adjudications")).scalar_one()
        assert reason == "why not"
        assert conn.execute(text("SELECT reason FROM sme_adjudications")).scalar_one() == (
            "the output invents a lesion")
    engine.dispose()
