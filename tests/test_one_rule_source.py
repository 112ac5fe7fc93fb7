"""Only ``domain.permissions`` says which role may do what.

Services ask it through one helper (``services.users.require`` and its companions); the GUI
asks ``permissions.may``. This test reads every module's syntax tree and fails on a role
check anywhere else: a comparison or set operation that involves a role name (``"curator"``,
``Role.CURATOR``) or a person's roles (``user.role_names``, ``info.roles``), or a person's
roles handed to anything but a question of ``domain.permissions``.
"""

from __future__ import annotations

import ast
from pathlib import Path

from annotator.domain.states import ROLES

SRC = Path(__file__).resolve().parents[1] / "src" / "annotator"
# The rule and the one store-side helper that asks it for the services.
RULE_SOURCE = {SRC / "domain" / "permissions.py", SRC / "services" / "users.py"}
ROLE_ATTRS = {"role_names", "roles"}
QUESTIONS = {"may", "pages_for", "landing_page", "why_not", "guard"}


def _mentions_roles(node: ast.AST) -> bool:
    for sub in ast.walk(node):
        if isinstance(sub, ast.Constant) and sub.value in ROLES:
            return True
        if isinstance(sub, ast.Attribute) and sub.attr in ROLE_ATTRS:
            return True
        if (isinstance(sub, ast.Attribute) and isinstance(sub.value, ast.Name)
                and sub.value.id == "Role"):
            return True
    return False


def role_checks(source: str) -> list[int]:
    """Line numbers of role checks made outside ``domain.permissions``."""
    tree = ast.parse(source)
    asked = {id(arg) for call in ast.walk(tree) if isinstance(call, ast.Call)
             and getattr(call.func, "id", getattr(call.func, "attr", None)) in QUESTIONS
             for arg in call.args}
    found: list[int] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare) and not all(
            isinstance(op, ast.Is | ast.IsNot) for op in node.ops  # "roles is None": not asked yet
        ) and any(
            _mentions_roles(part) for part in (node.left, *node.comparators)
        ):
            found.append(node.lineno)
        elif isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitAnd | ast.Sub) and (
            _mentions_roles(node.left) or _mentions_roles(node.right)
        ):
            found.append(node.lineno)
        elif (isinstance(node, ast.Attribute) and node.attr == "role_names"
              and id(node) not in asked):
            found.append(node.lineno)
    return sorted(set(found))


def test_the_detector_finds_the_checks_it_forbids() -> None:
    checks = [
        'if "curator" in user.role_names: pass',
        "if Role.ADJUDICATOR.value not in user.role_names: pass",
        "ok = bool({Role.CURATOR.value} & set(user.role_names))",
        'ok = "annotator" in info.roles',
        "names = set(user.role_names)",
    ]
    for code in checks:
        assert role_checks(code), code
    allowed = [
        "ok = may(user.role_names, Action.EXPORT)",
        'record(session, actor, "user_added", after={"annotator": name})',
        "user.roles.append(UserRole(role=role))",
    ]
    for code in allowed:
        assert role_checks(code) == [], code


def test_no_module_but_the_rule_checks_a_role() -> None:
    offenders = []
    for path in sorted(SRC.rglob("*.py")):
        if path in RULE_SOURCE or "migrations" in path.parts:
            continue
        for line in role_checks(path.read_text(encoding="utf-8")):
            offenders.append(f"{path.relative_to(SRC)}:{line}")
    assert offenders == [], "ask domain.permissions instead: " + ", ".join(offenders)
