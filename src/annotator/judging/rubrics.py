"""The paper's rubric texts (DDx-TRACE, Appendix I): shown beside the physician's buttons.

The diagnosis and localisation rubrics are per case (in the run's ``case_payload``); the
differential-list rubric and the E/A/U definitions are global and live here as data.
"""

from __future__ import annotations

from typing import Any

DIFFERENTIAL_LIST_RUBRIC: dict[int, str] = {
    0: "The list is mostly off-target, fails to include the final diagnosis or close "
    "equivalent, and has little overlap with the reference differential set.",
    1: "The list contains one or more accepted-but-not-gold items, but coverage/ranking is "
    "weak and the list does not function as a strong clinical differential.",
    2: "The list includes the final diagnosis or a near-gold diagnosis, but coverage or "
    "ranking is incomplete/suboptimal.",
    3: "The correct diagnosis is prominent, and the remaining items are largely aligned with "
    "reference_differential_options or explicit case-rubric examples.",
}

TRAJECTORY_LABELS: dict[str, str] = {
    "E": "Exact: reserved exclusively for the gold final diagnosis concept, including close "
    "lexical variants or true near-synonyms of the gold diagnosis. Never a non-gold reference "
    "differential option.",
    "A": "Acceptable: not exact, but accepted for this case because it matches the reference "
    "differential options, is a close synonym of such an option, or would receive score 1 or "
    "2 under the case-specific diagnosis rubric.",
    "U": "Unmatched: not exact and not accepted by the reference differential set or diagnosis "
    "rubric. Not A merely because it is generically clinically plausible.",
}

TRAJECTORY_SCORE_NOTE = (
    "Trajectory scores use the same case-specific 0-3 diagnosis rubric as the final diagnosis."
)


def case_rubric(case_payload: dict[str, Any], target: str) -> dict[int, str]:
    """The 0-3 level texts of a target for one case (trajectory uses the diagnosis rubric)."""
    if target == "differential_list":
        return dict(DIFFERENTIAL_LIST_RUBRIC)
    key = "localization_rubric" if target == "localization" else "diagnosis_rubric"
    rubric = case_payload.get(key) or {}
    return {level: str(rubric.get(str(level), "")) for level in range(4)}


def reference_answer(case_payload: dict[str, Any], target: str) -> str:
    """The rubric's reference answer as one line (localisation: its three levels)."""
    key = "localization_rubric" if target == "localization" else "diagnosis_rubric"
    answer = (case_payload.get(key) or {}).get("reference_answer")
    if isinstance(answer, dict):
        return "; ".join(f"{k}: {v}" for k, v in answer.items())
    return "" if answer is None else str(answer)
