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
import traceback
from collections.abc import Sequence
from types import ModuleType

from annotator import __version__
from annotator.cli import (
    agreement,
    bench,
    export,
    gui,
    imports,
    judging,
    project,
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

__all__ = ["COMMAND_MODULES", "EXIT_ERROR", "EXIT_FAILED", "build_parser", "main"]

# The command groups, in the order ``annotator --help`` lists them.
COMMAND_MODULES: tuple[ModuleType, ...] = (
    project,
    imports,
    redact,
    users,
    stats,
    agreement,
    gui,
    sync,
    export,
    review,
    judging,
    sme,
    bench,
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="annotator",
        description="Annotate, adjudicate and release medical AI benchmark cases.",
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
        print(f"annotator: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print("annotator: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `annotator ... | head`: the reader left, which is not a bug
        _silence_stdout()
        return 141
    except Exception as exc:  # a bug: one line for the user, the traceback in a log file
        log = write_error_log(traceback.format_exc())
        print(
            f"annotator: internal error: {type(exc).__name__}: {exc} (details in {log})",
            file=sys.stderr,
        )
        return EXIT_ERROR
