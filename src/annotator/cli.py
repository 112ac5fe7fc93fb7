"""The ``annotator`` command line: every operation the GUI offers, without a screen.

Errors print as one line on stderr with a non-zero exit; unexpected failures also write the
traceback to a log file whose path the line names.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from annotator import __version__
from annotator.errors import AnnotatorError

# Modules that add their own subcommands with ``register(subparsers)``.
COMMAND_MODULES: tuple[str, ...] = (
    "annotator.sync.commands",
    "annotator.export.commands",
    "annotator.review.commands",
    "annotator.judging.commands",
    "annotator.bench.commands",
)

EXIT_FAILED = 1  # the command ran but reported failures (e.g. rejected files)
EXIT_ERROR = 2  # the command could not run (bad arguments, permissions, project)


def _print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, ensure_ascii=False, allow_nan=False))


def _project(args: argparse.Namespace) -> Any:
    from annotator.services.project import open_project

    if not args.project:
        raise AnnotatorError("this command needs --project PATH_OR_URL")
    return open_project(args.project)


def _actor(project: Any, args: argparse.Namespace) -> str:
    from annotator.services.users import logins_required, resolve_actor

    requested = args.as_user if args.as_user is not None else os.environ.get("ANNOTATOR_USER")
    password = _login_password(args) if logins_required(project) else None
    return resolve_actor(project, requested, password)


def _read_password_file(path: str) -> str:
    try:
        return Path(path).read_text(encoding="utf-8").rstrip("\r\n")
    except (OSError, UnicodeDecodeError) as exc:
        raise AnnotatorError(f"cannot read the password file {path}: {exc}") from None


def _login_password(args: argparse.Namespace) -> str | None:
    """The team store password: --password-file, $ANNOTATOR_PASSWORD, or asked at a terminal."""
    if getattr(args, "password_file", None):
        return _read_password_file(args.password_file)
    if "ANNOTATOR_PASSWORD" in os.environ:
        return os.environ["ANNOTATOR_PASSWORD"]
    if sys.stdin.isatty():
        import getpass

        return getpass.getpass("team store password: ")
    return None


def _new_password(args: argparse.Namespace) -> str:
    if getattr(args, "new_password_file", None):
        return _read_password_file(args.new_password_file)
    if not sys.stdin.isatty():
        raise AnnotatorError("give the new password with --new-password-file FILE")
    import getpass

    first = getpass.getpass("new password: ")
    if getpass.getpass("again: ") != first:
        raise AnnotatorError("the two passwords differ; nothing was changed")
    return first


def cmd_status(args: argparse.Namespace) -> int:
    from annotator.services.status import project_status

    counts = project_status(_project(args))
    if args.json:
        _print_json(counts)
    else:
        width = max(len(k) for k in counts)
        for key, value in counts.items():
            print(f"{key:<{width}}  {value}")
    return 0


def cmd_users(args: argparse.Namespace) -> int:
    from annotator.services.users import add_user, list_users, set_password

    project = _project(args)
    if args.users_command == "add":
        info = add_user(project, _actor(project, args), args.name, args.role)
        print(f"{info.name}: {', '.join(info.roles)}")
        return 0
    if args.users_command == "passwd":
        set_password(project, _actor(project, args), args.name, _new_password(args))
        print(f"{args.name}: password set (stored as a salted scrypt hash)")
        return 0
    users = list_users(project)
    if args.json:
        _print_json([{"name": u.name, "roles": u.roles} for u in users])
    else:
        for u in users:
            print(f"{u.name}\t{', '.join(u.roles)}")
    return 0


def _quotas(values: list[str]) -> dict[str, int]:
    quotas: dict[str, int] = {}
    for value in values:
        name, sep, number = value.rpartition("=")
        if not sep or not number.isdigit():
            raise AnnotatorError(f"--quota expects NAME=NUMBER, got {value!r}")
        quotas[name] = int(number)
    return quotas


def cmd_assign(args: argparse.Namespace) -> int:
    from annotator.services.assignments import assign, reassign

    project = _project(args)
    actor = _actor(project, args)
    if args.reassign_from:
        report = reassign(project, actor, args.reassign_from, args.to)
    else:
        report = assign(project, actor, args.per_case, quotas=_quotas(args.quota))
    print(f"{report.count} assignment(s) made")
    for case_id, missing in report.short:
        print(f"{case_id}: {missing} annotator(s) short (not enough annotators or quota)")
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from annotator.services.imports import import_cases

    project = _project(args)
    report = import_cases(
        project,
        _actor(project, args),
        [Path(p) for p in args.paths],
        new_version=args.new_version,
        deidentify=not args.keep_identifiers,
    )
    if args.json:
        _print_json([o.__dict__ for o in report.outcomes])
    else:
        for o in report.outcomes:
            where = f" [{o.field}]" if o.field else ""
            line = f"{o.status:<11} {o.case_id or '-'}  {o.file}{where}"
            print(line + (f": {o.reason}" if o.reason else ""))
            for text in o.needs_fix:
                print(f"    needs fix: {text}")
            for text in o.warnings:
                print(f"    warning:   {text}")
            for text in o.removed:
                print(f"    removed:   {text}")
            for key, original in o.normalised.items():
                print(f"    normalised {key} (was {original!r})")
        counts = {
            s: report.count(s)
            for s in ("added", "updated", "new_version", "unchanged", "refused", "rejected")
        }
        print(
            ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts.items() if n)
            or "nothing to import"
        )
        if report.changed_nothing and not report.failed and report.outcomes:
            print("nothing changed: every case was already imported")
    return EXIT_FAILED if report.failed else 0


def cmd_backup(args: argparse.Namespace) -> int:
    from annotator.services.project import backup_to

    target = backup_to(_project(args), Path(args.file))
    print(f"backup written to {target}")
    return 0


def cmd_repair(args: argparse.Namespace) -> int:
    from annotator.services.repair import repair_case_states

    project = _project(args)
    fixes = repair_case_states(project, _actor(project, args), dry_run=args.dry_run)
    verb = "would move" if args.dry_run else "moved"
    for fix in fixes:
        print(f"{fix.case_id}: {verb} from {fix.before} to {fix.after}")
    print(f"{len(fixes)} case state(s) {'to repair' if args.dry_run else 'repaired'}")
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    from annotator.services.demo import build_demo

    summary = build_demo(args.project)
    print(summary)
    return 0


def cmd_stats(args: argparse.Namespace) -> int:
    from annotator.agreement.ratings_table import stats_report

    order = [s.strip() for s in args.order.split(",")] if args.order else None
    report = stats_report(Path(args.csv), args.level, order)
    if args.json:
        _print_json(report)
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0


def cmd_gui(args: argparse.Namespace) -> int:
    from annotator.gui.app import run_gui

    return run_gui(args)


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

    def add(
        name: str, func: Callable[[argparse.Namespace], int], help_: str
    ) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help_, description=help_)
        p.set_defaults(func=func)
        return p

    add("demo", cmd_demo, "build the bundled demo project and replay simulated work")
    p = add("import", cmd_import, "import draft case files or folders")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "--new-version",
        action="store_true",
        help="store a changed, already annotated case as a new revision (re-check)",
    )
    p.add_argument(
        "--keep-identifiers",
        action="store_true",
        help="do not de-identify DICOM/strip image metadata (not for laptops)",
    )
    p.add_argument("--json", action="store_true")
    p = add("status", cmd_status, "counts of cases, exams, images and states")
    p.add_argument("--json", action="store_true")
    p = add("users", cmd_users, "add or list users")
    users_sub = p.add_subparsers(dest="users_command", required=True)
    ua = users_sub.add_parser("add", help="add a user or give them more roles")
    ua.add_argument("name")
    ua.add_argument(
        "--role", nargs="+", required=True, choices=["annotator", "adjudicator", "curator"]
    )
    up = users_sub.add_parser("passwd", help="set a user's team store password")
    up.add_argument("name")
    up.add_argument("--new-password-file", metavar="FILE",
                    help="read the new password from FILE (else asked at the terminal)")
    ul = users_sub.add_parser("list", help="list users and their roles")
    ul.add_argument("--json", action="store_true")
    p = add("assign", cmd_assign, "assign cases to annotators (balanced)")
    p.add_argument("--per-case", type=int, default=2, metavar="K")
    p.add_argument(
        "--quota",
        action="append",
        default=[],
        metavar="NAME=N",
        help="at most N active cases for NAME (repeatable)",
    )
    p.add_argument("--reassign-from", metavar="NAME", help="move NAME's open cases")
    p.add_argument("--to", metavar="NAME", help="with --reassign-from: the new annotator")
    p = add("backup", cmd_backup, "write a consistent copy of the project database")
    p.add_argument("file")
    p = add("repair", cmd_repair, "recompute derived case states and fix any that drifted")
    p.add_argument("--dry-run", action="store_true", help="only list what would change")
    p = add("stats", cmd_stats, "agreement statistics for any ratings table (CSV)")
    p.add_argument("csv", metavar="RATINGS.csv")
    p.add_argument("--level", required=True, choices=["nominal", "ordinal", "interval", "ratio"])
    p.add_argument("--order", help="comma-separated order of ordinal labels")
    p.add_argument("--json", action="store_true")
    from annotator.agreement.commands import add_arguments as agreement_arguments
    from annotator.agreement.commands import cmd_agreement

    p = add("agreement", cmd_agreement, "inter-annotator agreement report (curators only)")
    agreement_arguments(p)
    p = add("gui", cmd_gui, "start the desktop app")
    p.add_argument("--page", choices=["annotate", "sme", "review", "agreement", "judge", "export"])
    p.add_argument("--screenshot", metavar="FILE.png", help="render offscreen to a PNG and exit")
    p.add_argument("--size", default="1600x1000", metavar="WxH")
    p.add_argument("--case", metavar="ID")
    p.add_argument("--open-bundle", metavar="FILE", help="open a work bundle (with --into DIR)")
    p.add_argument("--into", metavar="DIR", help="the new folder for the bundle's project")
    p.add_argument(
        "--as",
        dest="as_user",
        default=argparse.SUPPRESS,
        metavar="USER",
        help="act as this user (also accepted before the command)",
    )
    for module_name in COMMAND_MODULES:
        importlib.import_module(module_name).register(sub)
    return parser


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
    except Exception as exc:  # a bug: one line for the user, the traceback in a log file
        from annotator.logfiles import write_error_log

        log = write_error_log(traceback.format_exc())
        print(
            f"annotator: internal error: {type(exc).__name__}: {exc} (details in {log})",
            file=sys.stderr,
        )
        return EXIT_ERROR
