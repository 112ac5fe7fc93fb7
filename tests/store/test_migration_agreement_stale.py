"""Migration 0020 (agreement statistics marked stale by the writers) goes down and up again on
both back ends; coming up it marks every case, so the first point estimates after it
recompute them all and equal the full report."""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

import pytest
from alembic import command
from sqlalchemy import inspect, text

from annotator.services import kinds
from annotator.services.agreement import agreement_report, point_estimates
from annotator.services.assignments import assign
from annotator.services.demo import _label_fully
from annotator.services.imports import import_cases
from annotator.store.db import _alembic_config, head_revision
from factories import make_case, write_case_file


def _function_count(conn: Any) -> int:
    if conn.dialect.name != "postgresql":
        return 0
    return int(conn.execute(text(
        "SELECT count(*) FROM pg_proc WHERE proname = 'annotator_agreement_stale'")).scalar())


def test_agreement_stale_migration_down_and_up(team: Any, tmp_path: Path) -> None:
    cases = [make_case(f"M{i}") for i in range(3)]
    import_cases(team, "cu", [write_case_file(tmp_path / "drafts", cases)])
    placed = list(assign(team, "cu", 2).assigned)
    rng = random.Random(3)
    for case_id, name in placed[:4]:
        _label_fully(team, name, case_id, rng, disagree=0.3)
        kinds.CASES.submit(team, name, case_id)
    before = point_estimates(team, "cu")
    engine = team.engine
    postgres = engine.dialect.name == "postgresql"

    with engine.begin() as conn:
        command.downgrade(_alembic_config(conn), "0019_agreement_stats")
        assert _function_count(conn) == 0
    assert "agreement_stale" not in inspect(engine).get_table_names()

    with engine.begin() as conn:
        command.upgrade(_alembic_config(conn), "head")
        assert conn.execute(text("SELECT version_num FROM alembic_version")).scalar() \
            == head_revision()
        assert _function_count(conn) == (1 if postgres else 0)
        marked = conn.execute(text("SELECT count(*) FROM agreement_stale")).scalar()
    assert marked == 3  # the backfill: every case (none known to be current)
    after = point_estimates(team, "cu")
    assert after["recomputed"] == 3
    report = agreement_report(team, "cu")
    for mine, section in zip(after["families"], report["families"], strict=True):
        for name, full in section["coefficients"].items():
            if full["value"] is not None:
                assert mine["coefficients"][name] == pytest.approx(full["value"], abs=1e-12)
    assert after["families"] == before["families"]
