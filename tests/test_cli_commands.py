"""The real command-line parser has every command the README and docs show, and no others."""

from __future__ import annotations

import argparse
import re
import shlex
from pathlib import Path

import pytest

from annotator.cli import build_parser

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

# Every subcommand, spelled out: dropping a registration from the cli package fails here.
COMMANDS = {
    "demo", "import", "status", "desk", "users", "assign", "backup", "repair", "history-verify",
    "stats", "agreement",
    "gui", "bundle", "unbundle", "package", "package-import", "roundtrip-status", "export",
    "validate", "review", "judge-import", "judge-assign", "judge-scores", "judge-conflicts",
    "judge-adjudicate", "judge-agreement", "sme-lint", "sme-import", "sme-items", "sme-assign",
    "sme-queue", "sme-verdict", "rate", "sme-review", "sme-results", "bench-project", "bench",
    "redact", "history", "bench-scale", "quality", "quality-mark", "quality-calibration",
    "quality-settings", "migrate",
}


def _subcommands(parser: argparse.ArgumentParser) -> set[str]:
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(action.choices)


def _documented() -> list[tuple[str, list[str]]]:
    """Command lines of the docs' code examples, without the ``annotator`` word and comments."""
    found = []
    for doc in DOCS:
        for line in doc.read_text(encoding="utf-8").splitlines():
            if re.match(r"^annotator (-|[a-z])", line):
                argv = shlex.split(line, comments=True)[1:]
                # Placeholders in brackets are optional parts of the synopsis, not arguments.
                found.append((doc.name, [a for a in argv if not a.startswith("[")
                                         and not a.endswith("]")]))
    return found


def test_the_parser_registers_every_command() -> None:
    assert _subcommands(build_parser()) == COMMANDS


def test_the_docs_show_commands() -> None:
    assert len(_documented()) >= 20


@pytest.mark.parametrize(("doc", "argv"), _documented(), ids=lambda v: " ".join(v)[:60]
                         if isinstance(v, list) else v)
def test_every_documented_command_line_parses(doc: str, argv: list[str]) -> None:
    args = build_parser().parse_args(argv)
    assert args.command in COMMANDS
    assert callable(args.func)
