"""The scoring core's ``benchmark_full.json``: only the keys a human-scoring import reads.

Extra keys are ignored (the scoring core writes many more). A file that is not a finished
scoring-core run is refused with one line, before anything is written.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
)

from annotator.domain.text import error_location, printable
from annotator.domain.text_fields import Name, Word
from annotator.errors import ValidationError as InputError
from annotator.inputfiles import loads_bounded, read_regular, unstorable_text

MAX_RUN_BYTES = 512 * 2**20
# What a judge writes: a diagnosis is a line, a reason a paragraph or a few; both stored as
# JSON on either back end, so bounded here rather than by a column.
Diagnosis = Annotated[str, StringConstraints(max_length=2_000), AfterValidator(printable)]
Reason = Annotated[str, StringConstraints(max_length=20_000)]

TARGETS = ("diagnosis", "localization", "differential_list")
TRAJECTORY = "trajectory"
ALL_TARGETS = (*TARGETS, TRAJECTORY)
LABELS = ("E", "A", "U")


class _Loose(BaseModel):
    model_config = ConfigDict(extra="ignore")


class Score(_Loose):
    score: int = Field(ge=0, le=3)
    reason: Reason = ""


class FinalScores(_Loose):
    diagnosis: Score
    localization: Score
    differential_list: Score


class TrajectoryLabel(_Loose):
    diagnosis: Diagnosis
    label: Literal["E", "A", "U"]
    reason: Reason = ""


class TrajectoryScore(_Loose):
    diagnosis: Diagnosis
    score: int = Field(ge=0, le=3)
    reason: Reason = ""


class ModeResult(_Loose):
    final_scores: FinalScores
    trajectory_labels: list[TrajectoryLabel] = []
    trajectory_scores: list[TrajectoryScore] = []
    case_payload: dict[str, Any] = {}
    model_payload: dict[str, Any] = {}


class Judge(_Loose):
    by_mode: dict[Word, ModeResult] = {}
    errors: dict[str, Any] = {}


class CaseResult(_Loose):
    case_id: Name
    judge: Judge


class RunConfig(_Loose):
    target_model: Name
    judge_model: Name | None = None
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
        raw = read_regular(path, MAX_RUN_BYTES).decode("utf-8")
        data = loads_bounded(raw)
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    except ValueError as exc:  # not UTF-8, not JSON, nested too deeply
        raise InputError(f"{name}: not a scoring-core run (not JSON: {exc})") from None
    bad_text = unstorable_text(data)
    if bad_text:
        raise InputError(f"{name}: not a scoring-core run ({bad_text})")
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
        where = error_location(first["loc"])
        raise InputError(f"{name}: not a scoring-core run ({where}: {first['msg']})") from None
    if not run.case_results:
        raise InputError(f"{name}: the run has no case results")
    return run, raw
