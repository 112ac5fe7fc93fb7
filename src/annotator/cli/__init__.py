"""The ``annotator`` command line: every operation the GUI offers, without a screen.

Errors print as one line on stderr with a non-zero exit; unexpected failures also write the
traceback to a log file whose path the line names. Each module of this package adds one
group of subcommands with ``register(subparsers)``; the parser is built from the explicit
imports below, so a command that is not registered here does not exist.
"""

from __future__ import annotations

import argparse
import os
import sys
import textwrap
import traceback
from collections.abc import Sequence
from types import ModuleType

from annotator import __version__
from annotator.cli import (
    agreement,
    bench,
    desk,
    export,
    gui,
    imports,
    judging,
    project,
    quality,
    rate,
    redact,
    review,
    sme,
    stats,
    sync,
    users,
)
from annotator.cli._shared import EXIT_ERROR, EXIT_FAILED
from annotator.errors import AnnotatorError
from annotator.logfiles import write_error_log

__all__ = ["COMMAND_MODULES", "EXIT_ERROR", "EXIT_FAILED", "PROJECT_FREE", "build_parser", "main"]

# The command groups, in the order ``annotator --help`` lists them.
COMMAND_MODULES: tuple[ModuleType, ...] = (
    project,
    desk,
    imports,
    redact,
    users,
    stats,
    agreement,
    gui,
    sync,
    export,
    review,
    rate,
    judging,
    sme,
    quality,
    bench,
)
# The commands that run without --project; every other one needs it, and its help says so.
PROJECT_FREE = frozenset({"demo", "stats", "validate", "gui", "sme-lint", "bench", "bench-project"})
NEEDS_PROJECT = "This command needs --project PATH_OR_URL, given before the command."


def _say_it_needs_a_project(name: str, parser: argparse.ArgumentParser) -> None:
    """Show ``--project`` in the command's usage line and description (and its subcommands')."""
    parser.prog = f"annotator --project PATH_OR_URL {name}"
    said = (parser.description or "").rstrip(".")
    parser.description = f"{said}. {NEEDS_PROJECT}" if said else NEEDS_PROJECT
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub_name, sub_parser in action.choices.items():
                _say_it_needs_a_project(f"{name} {sub_name}", sub_parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="annotator",
        description="Annotate, adjudicate and release medical AI benchmark cases.",
        epilog=textwrap.fill(
            f"Commands other than {', '.join(sorted(PROJECT_FREE))} need --project "
            "PATH_OR_URL before the command, e.g. annotator --project ~/p status.",
            width=78,
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"annotator {__version__}")
    parser.add_argument(
        "--project",
        metavar="PATH_OR_URL",
        help="project folder (created on first use) or postgresql:// URL",
    )
    parser.add_argument(
        "--as",
        dest="as_user",
        metavar="USER",
        help="act as this user (default: $ANNOTATOR_USER or the project's curator)",
    )
    parser.add_argument(
        "--password-file",
        metavar="FILE",
        help="team store login: read your password from FILE (or $ANNOTATOR_PASSWORD)",
    )
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for module in COMMAND_MODULES:
        module.register(sub)
    for name, command in sub.choices.items():
        if name not in PROJECT_FREE:
            _say_it_needs_a_project(name, command)
    return parser


def _silence_stdout() -> None:
    """Point stdout at /dev/null so the interpreter's final flush cannot fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout is not a real file
        pass


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args))
    except AnnotatorError as exc:
        _say(f"annotator: error: {exc}")
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("annotator: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `annotator ... | head`: the reader left, which is not a bug
        _silence_stdout()
        return 141
    except Exception as exc:  # a bug: one line for the user, the traceback in a log file
        log = write_error_log(traceback.format_exc())
        _say(f"annotator: internal error: {type(exc).__name__}: {exc} (details in {log})")
        return EXIT_ERROR


def _say(line: str) -> None:
    """One line on stderr; a lone surrogate (from a file name or file text) is escaped."""
    print(line.encode("utf-8", "backslashreplace").decode("utf-8"), file=sys.stderr)
