"""Rated work has one writer: only the rating engine and the kind modules assign a rated-work
row's values or submission (imports, packages and bundles go through the engine's operations)."""

from __future__ import annotations

import ast
from pathlib import Path

import annotator

SRC = Path(annotator.__file__).parent
# What a row of rated work holds, by its column names and the kinds' synonyms.
WORK_FIELDS = {
    "values", "labels", "fields", "scores", "submitted", "submitted_labels", "submitted_at",
    "needs_recheck",
}
WRITERS = {
    "services/rating/engine.py", "services/review/kind.py", "services/sme/kind.py",
    "services/judging/kind.py",
}


def _assigned(tree: ast.AST) -> list[tuple[int, str]]:
    found = []
    for node in ast.walk(tree):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign):  # not AugAssign: ``report.submitted += 1``
            targets = [node.target]
        for target in targets:
            if isinstance(target, ast.Attribute) and target.attr in WORK_FIELDS:
                found.append((node.lineno, target.attr))
    return found


def test_only_the_engine_writes_rated_work() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        rel = path.relative_to(SRC).as_posix()
        if rel in WRITERS or rel.startswith(("gui/", "store/migrations/")):
            continue
        for line, attr in _assigned(ast.parse(path.read_text(encoding="utf-8"))):
            offenders.append(f"{rel}:{line} sets .{attr}")
    assert offenders == []


def test_the_check_sees_a_direct_write() -> None:
    tree = ast.parse("annotation.labels = {}\nrow.submitted_at = now\ncase.state = 'x'\n")
    assert _assigned(tree) == [(1, "labels"), (2, "submitted_at")]
