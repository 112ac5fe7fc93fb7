"""The scoring core's ``benchmark_full.json``: only the keys a human-scoring import reads.

Extra keys are ignored (the scoring core writes many more). A file that is not a finished
scoring-core run is refused with one line, before anything is written.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from annotator.errors import ValidationError as InputError

TARGETS = ("diagnosis", "localization", "differential_list")
TRAJECTORY = "trajectory"
ALL_TARGETS = (*TARGETS, TRAJECTORY)
LABELS = ("E", "A", "U")


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Score(_Loose):
    score: int = Field(ge=0, le=3)
    reason: str = ""


class FinalScores(_Loose):
    diagnosis: Score
    localization: Score
    differential_list: Score


class TrajectoryLabel(_Loose):
    diagnosis: str
    label: Literal["E", "A", "U"]
    reason: str = ""


class TrajectoryScore(_Loose):
    diagnosis: str
    score: int = Field(ge=0, le=3)
    reason: str = ""


class ModeResult(_Loose):
    final_scores: FinalScores
    trajectory_labels: list[TrajectoryLabel] = []
    trajectory_scores: list[TrajectoryScore] = []
    case_payload: dict[str, Any] = {}
    model_payload: dict[str, Any] = {}


class Judge(_Loose):
    by_mode: dict[str, ModeResult] = {}
    errors: dict[str, Any] = {}


class CaseResult(_Loose):
    case_id: str
    judge: Judge


class RunConfig(_Loose):
    target_model: str
    judge_model: str | None = None
    judge_modes: str | None = None


class RunFile(_Loose):
    run_config: RunConfig
    enabled_scoring_modes: list[str] = []
    code_version: dict[str, Any] = {}
    case_results: list[CaseResult]

    def case_payload(self, case: CaseResult) -> dict[str, Any]:
        """What the judges saw of the case (the same for every mode; first one wins)."""
        return next((m.case_payload for m in case.judge.by_mode.values() if m.case_payload), {})

    def model_payload(self, case: CaseResult) -> dict[str, Any]:
        return next((m.model_payload for m in case.judge.by_mode.values() if m.model_payload), {})


def _aborted(data: dict[str, Any]) -> bool:
    """The scoring core marks a run stopped before any model call in one of these places."""
    for holder in (data, data.get("run_health"), data.get("run_progress")):
        if isinstance(holder, dict) and holder.get("aborted_before_api_calls"):
            return True
    return False


def load_run(path: Path) -> tuple[RunFile, str]:
    """Read and check one run file: ``(run, raw text)``; refusals raise with one line."""
    name = path.name
    try:
        raw = path.read_text(encoding="utf-8")
        data = json.loads(raw)
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InputError(f"{name}: not a scoring-core run (not JSON: {exc})") from None
    if not isinstance(data, dict) or "run_config" not in data:
        raise InputError(f"{name}: not a scoring-core run (no run_config)")
    if _aborted(data):
        raise InputError(f"{name}: the run was aborted before any API call; nothing to score")
    if "case_results" not in data:
        raise InputError(
            f"{name}: no case_results (a benchmark_summary.json?); import benchmark_full.json"
        )
    try:
        run = RunFile.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise InputError(f"{name}: not a scoring-core run ({where}: {first['msg']})") from None
    if not run.case_results:
        raise InputError(f"{name}: the run has no case results")
    return run, raw
