"""Helpers every command module shares: the project, the acting user, passwords, JSON output."""

from __future__ import annotations

import argparse
import getpass
import json
import os
import signal
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from annotator.errors import AnnotatorError
from annotator.inputfiles import read_regular
from annotator.services.users import logins_required, resolve_actor
from annotator.store.project import Project, is_url, open_project
from annotator.tasks import TaskState

EXIT_FAILED = 1  # the command ran but reported failures (e.g. rejected files)
EXIT_ERROR = 2  # the command could not run (bad arguments, permissions, project)
MAX_PASSWORD_FILE_BYTES = 64 * 2**10


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))


def add_command(
    subparsers: Any, name: str, help_: str, func: Callable[[argparse.Namespace], int]
) -> argparse.ArgumentParser:
    """A subcommand running ``func``, whose ``--help`` opens with its one-line help."""
    p: argparse.ArgumentParser = subparsers.add_parser(name, help=help_, description=help_)
    p.set_defaults(func=func)
    return p


def write_outputs(
    args: argparse.Namespace, write: Callable[[Path], Iterable[Path]],
    as_json: Callable[[], Any],
) -> None:
    """A report command's ``--out DIR`` (each file written is named) and ``--json``."""
    if args.out:
        for path in write(args.out):
            print(f"wrote {path}")
    if args.json:
        print_json(as_json())


def project_of(args: argparse.Namespace) -> Project:
    """The project named by ``--project`` (created on first use)."""
    if not args.project:
        raise AnnotatorError(
            f"{args.command} needs --project PATH_OR_URL, given before the command: "
            f"annotator --project ~/p {args.command} ..."
        )
    password = None
    if is_url(args.project) and (getattr(args, "password_file", None)
                                 or "ANNOTATOR_PASSWORD" in os.environ):
        password = login_password(args)  # the server checks it (a walled team store)
    return open_project(args.project, password=password)


def actor_of(project: Project, args: argparse.Namespace) -> str:
    """The acting user: ``--as``, $ANNOTATOR_USER or the project's curator (logged in if needed)."""
    requested = args.as_user if args.as_user is not None else os.environ.get("ANNOTATOR_USER")
    password = login_password(args) if logins_required(project) else None
    return resolve_actor(project, requested, password)


def read_password_file(path: str) -> str:
    try:  # a regular file only: a FIFO would wait forever for a writer
        return read_regular(path, MAX_PASSWORD_FILE_BYTES).decode("utf-8").rstrip("\r\n")
    except (OSError, ValueError) as exc:  # UnicodeDecodeError is a ValueError
        why = getattr(exc, "strerror", None) or exc
        raise AnnotatorError(f"cannot read the password file {path}: {why}") from None


def login_password(args: argparse.Namespace) -> str | None:
    """The team store password: --password-file, $ANNOTATOR_PASSWORD, or asked at a terminal."""
    if getattr(args, "password_file", None):
        return read_password_file(args.password_file)
    if "ANNOTATOR_PASSWORD" in os.environ:
        return os.environ["ANNOTATOR_PASSWORD"]
    if sys.stdin.isatty():
        return getpass.getpass("team store password: ")
    return None


def new_password(args: argparse.Namespace) -> str:
    if getattr(args, "new_password_file", None):
        return read_password_file(args.new_password_file)
    if not sys.stdin.isatty():
        raise AnnotatorError("give the new password with --new-password-file FILE")
    first = getpass.getpass("new password: ")
    if getpass.getpass("again: ") != first:
        raise AnnotatorError("the two passwords differ; nothing was changed")
    return first


@contextmanager
def long_task() -> Iterator[TaskState]:
    """The command line's side of ``tasks``: progress on a terminal, Ctrl+C as Cancel.

    Progress goes to stderr only when it is a terminal (never into pipes, logs or tests).
    The first Ctrl+C asks the work to stop at its next safe point (it then fails with a
    one-line ``Cancelled``, keeping what it finished whole); a second one interrupts.
    """
    show = sys.stderr.isatty()

    def report(fraction: float, message: str) -> None:
        if show:
            print(f"\r{fraction:4.0%} {message[:70]}\x1b[K", end="", file=sys.stderr, flush=True)

    state = TaskState(report)

    def interrupt(_signal: int, _frame: Any) -> None:
        if state.cancelled:
            raise KeyboardInterrupt
        state.cancel()

    main = threading.current_thread() is threading.main_thread()  # signals go to it only
    previous = signal.signal(signal.SIGINT, interrupt) if main else None
    try:
        yield state
    finally:
        if main:
            signal.signal(signal.SIGINT, previous)
        if show and state.fraction:
            print(file=sys.stderr)
