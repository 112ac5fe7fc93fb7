"""Every lint rule with a file that breaks it, the clean case, and file:line reporting."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from annotator.cli import main
from annotator.sme.lint import lint

from .specs import ANEG1, benchmark, valid_set, write


def _line(path: Path, start: str, nth: int = 1) -> int:
    """The 1-based line of the ``nth`` line of ``path`` starting with ``start``."""
    found = [
        i
        for i, t in enumerate(path.read_text().splitlines(), 1)
        if t.lstrip("- ").startswith(start)
    ]
    return found[nth - 1]


def _codes(paths: list[Path]) -> list[str]:
    return [p.code for p in lint(paths).problems]


def test_valid_set_has_only_the_spec_examples_warning(tmp_path: Path) -> None:
    result = lint(valid_set(tmp_path))
    assert [str(p) for p in result.problems] == [
        f'{tmp_path / "a-neg1.yaml"}:24: W-FLAG-IF: inclusion_criteria has no "Flag if" '
        "clause: the verdict asks for a free-text failure reason"
    ]
    assert [b.code for b, _ in result.benchmarks] == ["A-NEG1", "A-NEG2"]


@pytest.mark.parametrize(
    ("changes", "code"),
    [
        ({"label": None}, "E-MISSING"),
        ({"concept": None}, "E-MISSING"),
        ({"code": "A-NEGX"}, "E-CODE"),
        ({"code": "B-NEG2"}, "E-CODE"),
        ({"weight": 1.5}, "E-WEIGHT"),
        ({"weight": -0.1}, "E-WEIGHT"),
        ({"evaluator_type": "robot"}, "E-EVALUATOR"),
        ({"evaluator_type": "llm_judge"}, "E-PROMPT"),
        ({"inclusion_criteria": "Use when X. Flag if Y."}, "E-INCLUSION"),
        ({"exclusion_criteria": "Skip when X."}, "E-EXCLUSION"),
        ({"inclusion_criteria": "Apply when: (1) A; (2) B. Flag if C."}, "E-NUMBERED"),
        ({"exclusion_criteria": "Do not apply when 1. A or 2. B happen."}, "E-NUMBERED"),
        ({"scoring_scale": {"min_value": 4, "max_value": 4}}, "E-SCALE"),
        ({"threshold": 5}, "E-THRESHOLD"),
        ({"scoring_scale": {"min_value": 0, "max_value": 4, "descriptions": {5: "x"}}}, "E-LEVEL"),
        ({"weight": "heavy"}, "E-TYPE"),
        ({"colour": "red"}, "E-UNKNOWN"),
    ],
)
def test_each_error_rule(tmp_path: Path, changes: dict[str, Any], code: str) -> None:
    weight = changes.get("weight")
    paths = [write(tmp_path, "a-neg1.yaml", ANEG1), write(tmp_path, "b.yaml", benchmark(**changes))]
    codes = _codes(paths)
    assert code in codes
    # The weight errors also break the rubric's sum; nothing else fires.
    allowed = {code, "W-FLAG-IF"} | ({"E-WEIGHT-SUM"} if isinstance(weight, float) else set())
    assert set(codes) <= allowed


def test_weights_of_a_rubric_must_sum_to_one(tmp_path: Path) -> None:
    path = write(tmp_path, "b.yaml", benchmark(weight=0.5))
    problems = lint([write(tmp_path, "a.yaml", ANEG1), path]).errors
    assert [str(p) for p in problems] == [
        f"{tmp_path / 'a.yaml'}:10: E-WEIGHT-SUM: the weights of rubric A-NEG sum to 0.75, "
        "not 1 (A-NEG1 0.25, A-NEG2 0.5)"
    ]


def test_weights_within_tolerance_pass(tmp_path: Path) -> None:
    parts = [benchmark(f"R{i}", parent_rubric="R", weight=0.1) for i in range(1, 11)]
    assert lint([write(tmp_path, "r.yaml", parts)]).errors == []  # 0.1 x 10 != 1.0 exactly


def test_duplicate_code_with_other_content(tmp_path: Path) -> None:
    same = [benchmark(), benchmark()]
    assert "E-DUPLICATE" not in _codes(
        [write(tmp_path, "a.yaml", ANEG1), write(tmp_path, "s.yaml", same)]
    )
    other = [benchmark(), benchmark(label="Something else")]
    path = write(tmp_path, "d.yaml", other)
    problems = lint([write(tmp_path, "a.yaml", ANEG1), path]).errors
    assert [str(p) for p in problems] == [
        f"{path}:{_line(path, 'code:', 2)}: E-DUPLICATE: code A-NEG2 is also defined"
        f" differently at {path}:1"
    ]


def test_warnings(tmp_path: Path) -> None:
    concept = "Double negatives are resolved correctly."
    formula = {"min_value": 0, "max_value": 4, "normalization_formula": "__import__('os')"}
    paths = [
        write(tmp_path, "a.yaml", ANEG1),
        write(tmp_path, "b.yaml", benchmark(concept=concept, scoring_scale=formula)),
    ]
    result = lint(paths)
    assert result.errors == []
    assert sorted(p.code for p in result.warnings) == ["W-FLAG-IF", "W-FORMULA", "W-THRESHOLD"]


@pytest.mark.parametrize("formula", ["max - 1", "x / 0 + 1", "y * 2", "x if x else 1", "x.real"])
def test_formula_that_is_not_a_function_of_x_warns(tmp_path: Path, formula: str) -> None:
    scale = {"min_value": 0, "max_value": 4, "normalization_formula": formula}
    paths = [
        write(tmp_path, "a.yaml", ANEG1),
        write(tmp_path, "b.yaml", benchmark(scoring_scale=scale)),
    ]
    assert "W-FORMULA" in _codes(paths)


@pytest.mark.parametrize(("formula", "warns"), [("x / 5", True), ("(x - 1) / 4", False),
                                               ("x / max", True), ("(x-min)/(max-min)", False)])
def test_formula_that_does_not_map_the_scale_to_0_1_warns(
    tmp_path: Path, formula: str, warns: bool
) -> None:
    scale = {"min_value": 1, "max_value": 5, "normalization_formula": formula}
    paths = [
        write(tmp_path, "a.yaml", ANEG1),
        write(tmp_path, "b.yaml", benchmark(scoring_scale=scale, threshold=4)),
    ]
    assert ("W-NORMALISE" in _codes(paths)) is warns


def test_yaml_syntax_error_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, "bad.yaml", "code: A-X1\nlabel: [unclosed\nweight: 1\n")
    (problem,) = lint([path]).problems
    assert problem.code == "E-YAML" and problem.line in (2, 3, 4)


def test_error_lines_point_at_the_key(tmp_path: Path) -> None:
    text = ANEG1.replace("weight: 0.25", "weight: 2.5")
    problems = lint([write(tmp_path, "a.yaml", text)]).errors
    assert {(p.code, p.line) for p in problems} == {("E-WEIGHT", 10), ("E-WEIGHT-SUM", 10)}


def test_folder_is_read_recursively(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    write(tmp_path / "sub", "a.yaml", ANEG1)
    write(tmp_path, "b.yml", benchmark())
    assert [b.code for b, _ in lint([tmp_path]).benchmarks] == ["A-NEG2", "A-NEG1"]


def test_sme_lint_command_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["sme-lint", *map(str, valid_set(tmp_path))]) == 0
    assert "W-FLAG-IF" in capsys.readouterr().out
    bad = write(tmp_path, "a-neg2.yaml", benchmark(weight=3))
    assert main(["sme-lint", str(tmp_path / "a-neg1.yaml"), str(bad)]) == 1
    out = capsys.readouterr().out
    assert f"{bad}:{_line(bad, 'weight:')}: E-WEIGHT: weight 3 is outside 0..1" in out


def test_weight_sums_count_the_project(tmp_path: Path) -> None:
    from annotator.sme.spec import Benchmark

    project = [
        Benchmark.model_validate(benchmark("A-NEG1", weight=0.25)),
        Benchmark.model_validate(benchmark("A-NEG2", weight=0.75)),
    ]
    # A third A-NEG benchmark breaks the project's sum, though this file alone sums to 1.
    third = write(tmp_path, "c.yaml", benchmark("A-NEG3", weight=1.0))
    assert [p.code for p in lint([third], project).errors] == ["E-WEIGHT-SUM"]
    # Re-importing A-NEG2 with a new weight replaces its weight in the sum.
    lighter = write(tmp_path, "n.yaml", benchmark("A-NEG2", weight=0.5))
    (problem,) = lint([lighter], project).errors
    assert problem.message == (
        "the weights of rubric A-NEG sum to 0.75, not 1 (A-NEG1 0.25, A-NEG2 0.5)"
    )


def test_alias_bomb_is_refused(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 7)]
    (problem,) = lint([write(tmp_path, "bomb.yaml", "\n".join(lines) + "\n")]).problems
    assert problem.code == "E-YAML" and "aliases" in problem.message


def test_shape_and_empty_inputs(tmp_path: Path) -> None:
    assert _codes([write(tmp_path, "s.yaml", "just a string\n")]) == ["E-SHAPE"]
    assert _codes([write(tmp_path, "e.yaml", "")]) == ["E-YAML"]
    (tmp_path / "empty").mkdir()
    assert _codes([tmp_path / "empty"]) == ["E-NOFILE"]
