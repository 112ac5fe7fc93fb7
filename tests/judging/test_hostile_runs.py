"""Issue 23: judged runs with hostile ids, text and nesting are one-line refusals.

A NUL or a 10,000-character id crashed PostgreSQL and was stored on SQLite; a payload nested
a thousand levels deep crashed the import. Each is refused before anything is written, on
both stores.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select

from annotator.errors import ValidationError
from annotator.resources import judged_runs_dir
from annotator.services.judging.imports import import_runs
from annotator.store.schema import JudgedRun, JudgeItem

RUN = sorted(judged_runs_dir().glob("*.benchmark_full.json"))[0]


def _nested(levels: int) -> Any:
    value: Any = []
    for _ in range(levels):
        value = [value]
    return value


def _set_case_id(value: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        data["case_results"][0]["case_id"] = value
    return change


def _set_model(value: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        data["run_config"]["target_model"] = value
    return change


def _set_reason(value: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        case = data["case_results"][0]
        mode = next(iter(case["judge"]["by_mode"].values()))
        mode["final_scores"]["diagnosis"]["reason"] = value
    return change


def _set_payload(value: Any) -> Any:
    def change(data: dict[str, Any]) -> None:
        case = data["case_results"][0]
        next(iter(case["judge"]["by_mode"].values()))["case_payload"] = {"deep": value}
    return change


def _set_mode(value: str) -> Any:
    def change(data: dict[str, Any]) -> None:
        by_mode = data["case_results"][0]["judge"]["by_mode"]
        by_mode[value] = by_mode.pop(next(iter(by_mode)))
    return change


@pytest.mark.parametrize("change, why", [
    (_set_case_id("T\x001"), "NUL"),
    (_set_case_id("x" * 10_000), "200 characters"),
    (_set_case_id("T\t1"), "control character U\\+0009"),
    (_set_model("m\x00"), "NUL"),
    (_set_model("m" * 10_000), "200 characters"),
    (_set_reason("r" * 100_000), "20000 characters"),
    (_set_reason("bad \x00 text"), "NUL"),
    (_set_mode("m" * 10_000), "50 characters"),
    (_set_payload(_nested(900)), "nested deeper than 64 levels"),
    (_set_payload("\ud800"), "lone surrogate"),
], ids=["nul-id", "long-id", "tab-id", "nul-model", "long-model", "long-reason", "nul-reason",
        "long-mode", "deep", "surrogate"])
def test_hostile_runs_are_refused_before_anything_is_written(
    team: Any, tmp_path: Path, change: Any, why: str
) -> None:
    data = json.loads(RUN.read_text("utf-8"))
    change(data)
    path = tmp_path / "hostile.benchmark_full.json"
    path.write_text(json.dumps(data), "utf-8")
    with pytest.raises(ValidationError, match=why) as info:
        import_runs(team, "cu", [path])
    assert "\n" not in str(info.value) and len(str(info.value)) < 400
    with team.tx() as session:
        assert session.scalar(select(func.count()).select_from(JudgedRun)) == 0
        assert session.scalar(select(func.count()).select_from(JudgeItem)) == 0


def test_a_fifo_run_file_is_refused_without_blocking(team: Any, tmp_path: Path) -> None:
    fifo = tmp_path / "fifo.benchmark_full.json"
    os.mkfifo(fifo)
    with pytest.raises(ValidationError, match="not a regular file"):
        import_runs(team, "cu", [fifo])


@pytest.mark.parametrize("kind", ["long-cell", "fifo"])
def test_a_hostile_score_sheet_is_a_one_line_refusal(team: Any, tmp_path: Path,
                                                      kind: str) -> None:
    """csv's field limit raised csv.Error (a traceback); a FIFO blocked the command."""
    from annotator.services.judging.sheets import COLUMNS, import_scores_csv

    sheet = tmp_path / "scores.csv"
    if kind == "fifo":
        os.mkfifo(sheet)
    else:
        sheet.write_text(",".join(COLUMNS) + "\n" + '"' + "x" * 200_000 + '",r,c,diagnosis,,1,\n',
                         "utf-8")
    with pytest.raises(ValidationError, match="scores.csv: cannot read") as info:
        import_scores_csv(team, "cu", sheet)
    assert len(str(info.value)) < 300
