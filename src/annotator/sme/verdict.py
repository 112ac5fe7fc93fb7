"""One SME's verdict on one (item, benchmark): a flat map of fields, like annotation labels.

Every edit sets one field, so the inverse of an edit is the same operation with the old
value (undo), and history, conflicts and agreement all work per field.

Fields::

    applicability     "applicable" | "excluded"
    exclusion_clause  one of the benchmark's exclusion clauses (when excluded)
    outcome           "pass" | "flag" (when applicable)
    flag_condition    one of the "Flag if" choices or "other" (when flagged and the
                      benchmark has a "Flag if" clause)
    failure_reason    free text (when flagged and the benchmark has no "Flag if" clause)
    score             a number on the benchmark's scale (when applicable)
    rationale         free text; required when flagged or excluded
"""

from __future__ import annotations

import math
from typing import Any

from annotator.errors import ValidationError
from annotator.sme.criteria import exclusion_choices, flag_choices
from annotator.sme.spec import Benchmark

Verdict = dict[str, Any]

APPLICABILITY = ("applicable", "excluded")
OUTCOMES = ("pass", "flag")
FIELDS = (
    "applicability",
    "exclusion_clause",
    "outcome",
    "flag_condition",
    "failure_reason",
    "score",
    "rationale",
)
MAX_TEXT = 4000


def check_field(benchmark: Benchmark, key: str, value: Any) -> Any:
    """The value to store for ``key`` (None clears); ValidationError names what is wrong."""
    if key not in FIELDS:
        raise ValidationError(f"unknown verdict field {key!r}; use one of {', '.join(FIELDS)}")
    if value is None:
        return None
    if key == "applicability" and value not in APPLICABILITY:
        raise ValidationError(f"applicability must be applicable or excluded, not {value!r}")
    if key == "outcome" and value not in OUTCOMES:
        raise ValidationError(f"outcome must be pass or flag, not {value!r}")
    if key == "exclusion_clause" and value not in exclusion_choices(benchmark.exclusion_criteria):
        raise ValidationError(f"{value!r} is not an exclusion clause of {benchmark.code}")
    if key == "flag_condition":
        choices = flag_choices(benchmark.inclusion_criteria)
        if not choices:
            raise ValidationError(
                f"{benchmark.code} has no 'Flag if' clause: give a failure_reason instead"
            )
        if value not in choices:
            raise ValidationError(f"{value!r} is not a 'Flag if' condition of {benchmark.code}")
    if key == "score":
        return check_score(benchmark, value)
    if key in ("failure_reason", "rationale"):
        if not isinstance(value, str):
            raise ValidationError(f"{key} must be text")
        if len(value) > MAX_TEXT:
            raise ValidationError(f"{key} is longer than {MAX_TEXT} characters")
        return value if value.strip() else None
    return value


def check_score(benchmark: Benchmark, value: Any) -> float:
    scale = benchmark.scale
    if isinstance(value, bool) or not isinstance(value, int | float | str):
        raise ValidationError(f"score must be a number, not {value!r}")
    try:
        number = float(value)
    except ValueError:
        raise ValidationError(f"score must be a number, not {value!r}") from None
    if not math.isfinite(number) or not scale.min_value <= number <= scale.max_value:
        raise ValidationError(
            f"score {number:g} is outside {benchmark.code}'s scale "
            f"{scale.min_value:g}..{scale.max_value:g}"
        )
    return number


def fields_that_apply(verdict: Verdict, has_flag_if: bool) -> tuple[str, ...]:
    """The fields the answers so far make relevant, in the form's order.

    An excluded output is judged by its clause and rationale only; a flagged one names its
    failed condition (a "Flag if" choice, or free text when the benchmark has no such
    clause). The form shows these and hides the rest; ``required_fields`` is the subset a
    complete verdict needs.
    """
    if verdict.get("applicability") == "excluded":
        return ("applicability", "exclusion_clause", "rationale")
    fields = ["applicability", "outcome", "score"]
    if verdict.get("applicability") == "applicable" and verdict.get("outcome") == "flag":
        fields.append("flag_condition" if has_flag_if else "failure_reason")
    return (*fields, "rationale")


def required_fields(verdict: Verdict, has_flag_if: bool) -> tuple[str, ...]:
    """The fields a complete verdict needs, given the answers so far (the submit check)."""
    applicability = verdict.get("applicability")
    if applicability is None:
        return ("applicability",)
    if applicability == "excluded":
        return ("exclusion_clause", "rationale")
    if verdict.get("outcome") == "flag":
        return ("outcome", "score", "flag_condition" if has_flag_if else "failure_reason",
                "rationale")
    return ("outcome", "score")


def missing_fields(benchmark: Benchmark, verdict: Verdict) -> list[str]:
    """Fields a complete verdict needs that this one lacks (the submit check)."""
    has_flag_if = bool(flag_choices(benchmark.inclusion_criteria))
    return [k for k in required_fields(verdict, has_flag_if) if verdict.get(k) in (None, "")]


def stale_fields(benchmark: Benchmark, verdict: Verdict) -> list[str]:
    """Why fields of a verdict no longer fit the (re-imported) benchmark, one line each.

    A score outside a changed scale or a clause the new criteria no longer contain must be
    given again before the verdict can be resubmitted.
    """
    out = []
    for key, value in cleaned(verdict).items():
        try:
            check_field(benchmark, key, value)
        except ValidationError as exc:
            out.append(str(exc))
    return out


def cleaned(verdict: Verdict) -> Verdict:
    """The submitted verdict without fields its own answers made irrelevant."""
    out = dict(verdict)
    if out.get("applicability") == "excluded":
        for key in ("outcome", "flag_condition", "failure_reason", "score"):
            out.pop(key, None)
    else:
        out.pop("exclusion_clause", None)
        if out.get("outcome") == "pass":
            out.pop("flag_condition", None)
            out.pop("failure_reason", None)
    return {k: v for k, v in out.items() if v is not None}


def levels(benchmark: Benchmark) -> list[float]:
    """The described levels in ascending order (the scale's ends when none are described)."""
    scale = benchmark.scale
    described = sorted(float(v) for v in scale.descriptions)
    return described or [scale.min_value, scale.max_value]


def level_index(benchmark: Benchmark, score: float) -> int:
    """Index of the described level nearest to ``score`` (ties go to the lower level)."""
    points = levels(benchmark)
    return min(range(len(points)), key=lambda i: (abs(points[i] - score), i))


def conflicts(benchmark: Benchmark, verdicts: dict[str, Verdict]) -> dict[str, str]:
    """Conflicting fields of the submitted verdicts of one item: ``{field: why}``.

    Applicable vs excluded; pass vs flag (among those who found it applicable); scores
    further apart than one described level (nearest levels two or more steps apart).
    """
    out: dict[str, str] = {}
    applicability = {v.get("applicability") for v in verdicts.values()}
    if len(applicability) > 1:
        out["applicability"] = "applicable vs excluded"
        return out
    if applicability != {"applicable"}:
        return out
    outcomes = {v.get("outcome") for v in verdicts.values()}
    if len(outcomes) > 1:
        out["outcome"] = "pass vs flag"
    scores = [float(v["score"]) for v in verdicts.values() if v.get("score") is not None]
    if len(scores) > 1:
        steps = [level_index(benchmark, s) for s in scores]
        if max(steps) - min(steps) > 1:
            out["score"] = (
                f"scores {min(scores):g} and {max(scores):g} are more than one level apart"
            )
    return out


def reference(
    benchmark: Benchmark, verdicts: dict[str, Verdict], decided: dict[str, Any]
) -> Verdict | None:
    """The item's reference verdict: adjudicated fields, else the SMEs' agreed values.

    Scores that do not conflict are averaged. None while a conflict is undecided.
    """
    if not verdicts:
        return None
    open_ = [k for k in conflicts(benchmark, verdicts) if k not in decided]
    if open_:
        return None
    out: Verdict = {}
    for key in ("applicability", "outcome"):
        if key in decided:
            out[key] = decided[key]
        else:
            values = {v.get(key) for v in verdicts.values()} - {None}
            if len(values) == 1:
                out[key] = values.pop()
    if "score" in decided:
        out["score"] = float(decided["score"])
    else:
        scores = [float(v["score"]) for v in verdicts.values() if v.get("score") is not None]
        if scores:
            out["score"] = sum(scores) / len(scores)
    if out.get("applicability") == "excluded":
        return {"applicability": "excluded"}
    return out
