"""The authoring rules of benchmark specifications (seed 001): errors and warnings.

Errors reject the import whole (nothing is written); warnings are listed and the
benchmarks imported. Every problem names ``file:line: CODE: rule``. ``sme-lint`` runs the
same checks without a project; ``sme-import`` adds the project's other benchmarks to the
weight-sum check.
"""

from __future__ import annotations

import difflib
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, get_args

from pydantic import BaseModel
from pydantic import ValidationError as PydanticError

from annotator.sme.criteria import flag_clause
from annotator.sme.formula import FormulaError, evaluate, variables
from annotator.sme.spec import EVALUATOR_TYPES, Benchmark
from annotator.sme.yamlfile import Document, YamlProblem, expand, read_documents

WEIGHT_TOLERANCE = 1e-6
_PAREN_NUMBER = re.compile(r"\(\s*\d{1,2}\s*\)")
_DOT_NUMBER = re.compile(r"(?:^|[\s:;(])([1-9])[.)](?=\s)")
_INCLUSION = re.compile(r"^apply when\b", re.IGNORECASE)
_EXCLUSION = re.compile(r"^do not (?:apply|use for)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Problem:
    file: str
    line: int
    code: str
    message: str
    error: bool = True

    def __str__(self) -> str:
        return f"{self.file}:{self.line}: {self.code}: {self.message}"


@dataclass
class LintResult:
    """The benchmarks read (with the file and line of each) and every problem found."""

    benchmarks: list[tuple[Benchmark, Document]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    @property
    def errors(self) -> list[Problem]:
        return [p for p in self.problems if p.error]

    @property
    def warnings(self) -> list[Problem]:
        return [p for p in self.problems if not p.error]


def _numbered(text: str) -> bool:
    """A numbered list: "(1)" anywhere, or "1." / "1)" followed by "2." / "2)"."""
    if _PAREN_NUMBER.search(text):
        return True
    marks = {int(m) for m in _DOT_NUMBER.findall(text)}
    return {1, 2} <= marks


def _did_you_mean(loc: tuple[int | str, ...]) -> str:
    """"; did you mean threshold?" for a misspelt field: the closest field of its mapping."""
    model: Any = Benchmark
    for part in loc[:-1]:  # the nested model holding the unknown key, e.g. scoring_scale
        known = model.model_fields.get(part) if isinstance(part, str) else None
        kinds = (known.annotation, *get_args(known.annotation)) if known else ()
        model = next((t for t in kinds if isinstance(t, type) and issubclass(t, BaseModel)), None)
        if model is None:
            return ""
    close = difflib.get_close_matches(str(loc[-1]), list(model.model_fields), n=1, cutoff=0.6)
    return f"; did you mean {close[0]}?" if close else ""


def _shape(doc: Document, out: list[Problem]) -> Benchmark | None:
    """The pydantic model of one mapping, or None with every shape problem listed."""
    if not isinstance(doc.data, Mapping):
        out.append(
            Problem(doc.file, doc.line, "E-SHAPE", "a benchmark must be a mapping of fields")
        )
        return None
    try:
        return Benchmark.model_validate(doc.data)
    except PydanticError as exc:
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"])
            if err["type"] == "missing":
                out.append(
                    Problem(
                        doc.file, doc.line_of(key), "E-MISSING", f"required field {key} is missing"
                    )
                )
            elif err["type"] == "extra_forbidden":
                message = f"unknown field {key}{_did_you_mean(err['loc'])}"
                out.append(Problem(doc.file, doc.line_of(key), "E-UNKNOWN", message))
            else:
                out.append(Problem(doc.file, doc.line_of(key), "E-TYPE", f"{key}: {err['msg']}"))
        return None


def check_benchmark(b: Benchmark, doc: Document) -> list[Problem]:
    """The rules of one benchmark on its own (weights and duplicates need the whole set)."""
    out: list[Problem] = []

    def add(key: str, code: str, message: str, error: bool = True) -> None:
        out.append(Problem(doc.file, doc.line_of(key), code, message, error))

    if not re.fullmatch(re.escape(b.parent_rubric) + r"\d+", b.code):
        add(
            "code",
            "E-CODE",
            f"code {b.code!r} is not the parent rubric's code {b.parent_rubric!r} plus a number",
        )
    if not 0.0 <= b.weight <= 1.0 or not math.isfinite(b.weight):
        add("weight", "E-WEIGHT", f"weight {b.weight:g} is outside 0..1")
    if b.evaluator_type not in EVALUATOR_TYPES:
        add(
            "evaluator_type",
            "E-EVALUATOR",
            f"unknown evaluator_type {b.evaluator_type!r}; use one of {', '.join(EVALUATOR_TYPES)}",
        )
    elif b.evaluator_type in ("llm_judge", "hybrid") and not (b.llm_prompt_file or "").strip():
        add("evaluator_type", "E-PROMPT", f"an {b.evaluator_type} benchmark needs llm_prompt_file")
    inclusion = " ".join(b.inclusion_criteria.split())
    exclusion = " ".join(b.exclusion_criteria.split())
    if not _INCLUSION.match(inclusion):
        add("inclusion_criteria", "E-INCLUSION", 'inclusion_criteria must start with "Apply when"')
    if not _EXCLUSION.match(exclusion):
        add(
            "exclusion_criteria",
            "E-EXCLUSION",
            'exclusion_criteria must start with "Do not apply" or "Do not use for"',
        )
    for key, text in (("inclusion_criteria", inclusion), ("exclusion_criteria", exclusion)):
        if _numbered(text):
            add(
                key,
                "E-NUMBERED",
                f'{key} uses a numbered list ("(1)", "1."); use natural connectors',
            )
    out += _scale_problems(b, doc)
    if flag_clause(b.inclusion_criteria) is None:
        add(
            "inclusion_criteria",
            "W-FLAG-IF",
            'inclusion_criteria has no "Flag if" clause: the verdict asks for a free-text'
            " failure reason",
            False,
        )
    if b.threshold is not None and not _names_threshold(b.concept, b.threshold):
        add(
            "concept",
            "W-THRESHOLD",
            f"the concept does not name the threshold ({b.threshold:g})",
            False,
        )
    return out


def _scale_problems(b: Benchmark, doc: Document) -> list[Problem]:
    out: list[Problem] = []
    scale = b.scale
    low, high = scale.min_value, scale.max_value
    if low >= high:
        out.append(
            Problem(
                doc.file,
                doc.line_of("scoring_scale.min_value"),
                "E-SCALE",
                f"min_value {low:g} is not below max_value {high:g}",
            )
        )
        return out
    if b.threshold is not None and not low <= b.threshold <= high:
        out.append(
            Problem(
                doc.file,
                doc.line_of("threshold"),
                "E-THRESHOLD",
                f"threshold {b.threshold:g} is outside the scale {low:g}..{high:g}",
            )
        )
    lines = _description_lines(doc)  # once: a lookup per level was quadratic
    for level in scale.descriptions:
        if not low <= float(level) <= high:
            out.append(
                Problem(
                    doc.file,
                    lines.get(float(level), doc.line_of("scoring_scale.descriptions")),
                    "E-LEVEL",
                    f"description level {float(level):g} is outside the scale {low:g}..{high:g}",
                )
            )
    formula = scale.normalization_formula
    if formula is not None:
        reason = _formula_problem(formula, low, high)
        if reason:
            out.append(
                Problem(
                    doc.file,
                    doc.line_of("scoring_scale.normalization_formula"),
                    "W-FORMULA",
                    f"normalization_formula {formula!r} {reason}; (x-min)/(max-min) is used",
                    False,
                )
            )
        elif ends := _ends_problem(formula, low, high):
            out.append(Problem(doc.file, doc.line_of("scoring_scale.normalization_formula"),
                               "W-NORMALISE", f"normalization_formula {formula!r} {ends}", False))
    return out


def _ends_problem(formula: str, low: float, high: float) -> str | None:
    """Why the formula does not map the scale's min to 0 and max to 1 (None when it does):
    scores, thresholds and rubric weights all assume a 0..1 normalised scale."""
    at_low, at_high = evaluate(formula, low, low, high), evaluate(formula, high, low, high)
    if abs(at_low) > 1e-9 or abs(at_high - 1) > 1e-9:
        return (f"maps min {low:g} to {at_low:g} and max {high:g} to {at_high:g}, "
                "not 0 and 1")
    return None


def _description_lines(doc: Document) -> dict[float, int]:
    """The line of each description level (the first, if two keys name one level)."""
    prefix = "scoring_scale.descriptions."
    found: dict[float, int] = {}
    for key, line in doc.lines.items():
        if key.startswith(prefix):
            try:
                found.setdefault(float(key[len(prefix) :]), line)
            except ValueError:
                continue
    return found


def _formula_problem(formula: str, low: float, high: float) -> str | None:
    """Why the formula is not a usable function of x, min, max (None when it is)."""
    try:
        if "x" not in variables(formula):
            return "does not use x"
        for x in (low, high, (low + high) / 2):
            evaluate(formula, x, low, high)
    except FormulaError as exc:
        return f"is not a function of x, min, max ({exc})"
    return None


def _names_threshold(concept: str, threshold: float) -> bool:
    text = concept.lower()
    if "threshold" in text:
        return True
    forms = {f"{threshold:g}", f"{threshold:.2f}", f"{threshold * 100:g}%"}
    return any(re.search(rf"(?<![\d.]){re.escape(f)}(?!\d)", text) for f in forms)


def check_set(
    found: list[tuple[Benchmark, Document]],
    others: Iterable[Benchmark] = (),
    unreadable: Iterable[str] = (),
) -> list[Problem]:
    """Duplicates within the files, and each parent rubric's weights summing to 1.

    ``others`` are benchmarks already in the project that this import does not replace;
    the sums of ``unreadable`` rubrics (a member failed its shape check, already an error)
    are not checked.
    """
    out: list[Problem] = []
    first: dict[str, tuple[Benchmark, Document]] = {}
    for b, doc in found:
        seen = first.get(b.code)
        if seen is None:
            first[b.code] = (b, doc)
        elif seen[0].content_hash() != b.content_hash():
            out.append(
                Problem(
                    doc.file,
                    doc.line_of("code"),
                    "E-DUPLICATE",
                    f"code {b.code} is also defined differently at"
                    f" {seen[1].file}:{seen[1].line_of('code')}",
                )
            )
    # Rubrics this import touches, with the project's other benchmarks of those rubrics (a
    # benchmark cannot leave its rubric: its code names the rubric, see E-CODE).
    weights: dict[str, dict[str, float]] = {}
    for code, (b, _doc) in first.items():
        weights.setdefault(b.parent_rubric, {})[code] = b.weight
    for b in others:
        if b.code not in first and b.parent_rubric in weights:
            weights[b.parent_rubric][b.code] = b.weight
    skipped = set(unreadable)
    for rubric, members in sorted(weights.items()):
        total = sum(members.values())
        if rubric in skipped or abs(total - 1.0) <= WEIGHT_TOLERANCE:
            continue
        doc = next(first[c][1] for c in sorted(members) if c in first)
        parts = ", ".join(f"{c} {w:g}" for c, w in sorted(members.items()))
        out.append(
            Problem(
                doc.file,
                doc.line_of("weight"),
                "E-WEIGHT-SUM",
                f"the weights of rubric {rubric} sum to {total:g}, not 1 ({parts})",
            )
        )
    return out


def lint(paths: list[Path], others: Iterable[Benchmark] = ()) -> LintResult:
    """Read and check every YAML file (folders recursively)."""
    result = LintResult()
    files = expand(paths)
    if not files:
        result.problems.append(
            Problem(" ".join(map(str, paths)) or ".", 1, "E-NOFILE", "no YAML file found")
        )
    unreadable: set[str] = set()
    for path in files:
        try:
            docs = read_documents(path)
        except YamlProblem as exc:
            result.problems.append(Problem(exc.file, exc.line, exc.code, exc.reason))
            continue
        for doc in docs:
            b = _shape(doc, result.problems)
            if b is not None:
                result.problems += check_benchmark(b, doc)
                result.benchmarks.append((b, doc))
            elif isinstance(doc.data, Mapping):
                unreadable.add(str(doc.data.get("parent_rubric")))
    result.problems += check_set(result.benchmarks, others, unreadable)
    result.problems.sort(key=lambda p: (not p.error, p.file, p.line, p.code))
    return result


def as_lines(problems: Iterable[Problem]) -> list[str]:
    return [str(p) for p in problems]
