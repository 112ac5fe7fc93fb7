"""Safe evaluation of a ``normalization_formula``: numbers, x, min, max, + - * / ** and ().

The formula is parsed with :mod:`ast` and walked node by node; anything else (calls,
attributes, names other than x/min/max, comparisons) is refused. Nothing is ``eval``-ed.
"""

from __future__ import annotations

import ast
import math
import operator
from collections.abc import Callable

NAMES = ("x", "min", "max")
MAX_LENGTH = 200
MAX_EXPONENT = 64.0  # bounds ** so that a formula cannot build astronomically large numbers
_BINARY: dict[type[ast.operator], Callable[[float, float], float]] = {
    ast.Add: operator.add,
    ast.Sub: operator.sub,
    ast.Mult: operator.mul,
    ast.Div: operator.truediv,
    ast.Pow: operator.pow,
}
_UNARY: dict[type[ast.unaryop], Callable[[float], float]] = {
    ast.UAdd: operator.pos,
    ast.USub: operator.neg,
}


class FormulaError(ValueError):
    """The formula is not an arithmetic function of x, min and max."""


def parse(formula: str) -> ast.expr:
    """The checked expression tree; FormulaError names the first thing not allowed."""
    if len(formula) > MAX_LENGTH:
        raise FormulaError(f"longer than {MAX_LENGTH} characters")
    try:
        tree = ast.parse(formula.strip(), mode="eval")
    except SyntaxError:
        raise FormulaError("not an arithmetic expression") from None
    for node in ast.walk(tree.body):
        _check(node)
    return tree.body


def _check(node: ast.AST) -> None:
    if isinstance(node, ast.BinOp):
        if type(node.op) not in _BINARY:
            raise FormulaError(f"operator {type(node.op).__name__} is not allowed")
    elif isinstance(node, ast.UnaryOp):
        if type(node.op) not in _UNARY:
            raise FormulaError(f"operator {type(node.op).__name__} is not allowed")
    elif isinstance(node, ast.Constant):
        if isinstance(node.value, bool) or not isinstance(node.value, int | float):
            raise FormulaError(f"{node.value!r} is not a number")
    elif isinstance(node, ast.Name):
        if node.id not in NAMES:
            raise FormulaError(f"unknown name {node.id!r} (use x, min, max)")
    elif not isinstance(node, ast.operator | ast.unaryop | ast.expr_context):
        raise FormulaError(f"{type(node).__name__} is not allowed")


def variables(formula: str) -> set[str]:
    """The names the formula uses (after checking it)."""
    return {n.id for n in ast.walk(parse(formula)) if isinstance(n, ast.Name)}


def evaluate(formula: str | ast.expr, x: float, low: float, high: float) -> float:
    """The formula's value; FormulaError on division by zero, overflow or a non-finite result."""
    tree = parse(formula) if isinstance(formula, str) else formula
    env = {"x": float(x), "min": float(low), "max": float(high)}
    try:
        value = _eval(tree, env)
    except (ZeroDivisionError, OverflowError):
        raise FormulaError("division by zero or overflow") from None
    if isinstance(value, complex) or not math.isfinite(value):
        raise FormulaError("the result is not a finite number")
    return float(value)


def _eval(node: ast.expr, env: dict[str, float]) -> float:
    if isinstance(node, ast.Constant) and isinstance(node.value, int | float):
        return float(node.value)
    if isinstance(node, ast.Name):
        return env[node.id]
    if isinstance(node, ast.UnaryOp):
        return _UNARY[type(node.op)](_eval(node.operand, env))
    if isinstance(node, ast.BinOp):
        left, right = _eval(node.left, env), _eval(node.right, env)
        if isinstance(node.op, ast.Pow) and (abs(right) > MAX_EXPONENT or abs(left) > 1e6):
            raise FormulaError("exponent too large")
        return _BINARY[type(node.op)](left, right)
    raise FormulaError(f"{type(node).__name__} is not allowed")  # parse() refuses these


def normaliser(formula: str | None, low: float, high: float) -> Callable[[float], float]:
    """The normalisation of a scale: the formula when usable, else (x-min)/(max-min)."""
    if formula is not None:
        try:
            tree = parse(formula)
            if "x" in variables(formula):
                return lambda x: evaluate(tree, x, low, high)
        except FormulaError:
            pass
    span = high - low
    return lambda x: (x - low) / span if span else 0.0
