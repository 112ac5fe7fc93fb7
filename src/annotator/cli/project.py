"""``demo``, ``status``, ``backup``, ``repair`` and ``history``: the project as a whole."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from annotator.cli._shared import EXIT_FAILED, actor_of, print_json, project_of
from annotator.errors import ProjectError
from annotator.services.backup import backup_project
from annotator.services.case_history import case_history
from annotator.services.demo import build_demo, default_demo_folder
from annotator.services.history_audit import verify_history
from annotator.services.pixel_review import (
    backups_before_redaction,
    drop_backups_before_redaction,
)
from annotator.services.repair import (
    repair_case_states,
    repair_counts,
    repair_queue_keys,
    repair_sme_keys,
)
from annotator.services.status import project_status
from annotator.store.project import DB_NAME, schema_revision


def register(subparsers: Any) -> None:
    """Add the project-wide subcommands to the ``annotator`` parser."""
    p = subparsers.add_parser("demo", help=DEMO_HELP, description=DEMO_HELP)
    p.set_defaults(func=cmd_demo)
    help_ = "counts of cases, exams, images and states"
    p = subparsers.add_parser("status", help=help_, description=help_)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_status)
    help_ = "write a consistent copy of the project database"
    p = subparsers.add_parser("backup", help=help_, description=help_)
    p.add_argument("file", nargs="?")
    p.add_argument("--drop-before-redaction", action="store_true",
                   help="instead: delete the project's backups (backups/) made before its"
                        " last redaction")
    p.add_argument("--list-before-redaction", action="store_true",
                   help="instead: list those backups")
    p.set_defaults(func=cmd_backup)
    help_ = "recompute derived case states and fix any that drifted"
    p = subparsers.add_parser("repair", help=help_, description=help_)
    p.add_argument("--dry-run", action="store_true", help="only list what would change")
    p.set_defaults(func=cmd_repair)
    help_ = ("bring the store's schema (and on PostgreSQL its roles and row-level security)"
             " to this app's version; through the store's administrative URL")
    p = subparsers.add_parser("migrate", help=help_, description=help_)
    p.set_defaults(func=cmd_migrate)
    help_ = "check the history's hash chain; name the first row changed, removed or inserted"
    p = subparsers.add_parser("history-verify", help=help_, description=help_ + ", or a"
                              " reordered row or a cut tail; exit 1 when the chain is broken")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_history_verify)
    help_ = ("who changed what and when on a case, from the append-only history (an "
             "annotator sees only their own entries)")
    p = subparsers.add_parser("history", help=help_, description=help_)
    p.add_argument("case", metavar="CASE_ID")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_history)


DEMO_HELP = (
    "build the bundled demo project and replay simulated work (in --project, else in the "
    "user's data folder, e.g. ~/.local/share/annotator/demo)"
)


def cmd_migrate(args: argparse.Namespace) -> int:
    """Opening the store migrates it; a non-owner's connection is told who must."""
    project = project_of(args)
    print(f"{_shown(project.location)}: schema {schema_revision(project)}")
    return 0


def _shown(location: str) -> str:
    return location.rsplit("@", 1)[-1] if "://" in location else location


def cmd_demo(args: argparse.Namespace) -> int:
    if args.project:
        print(build_demo(args.project))
        return 0
    where = default_demo_folder()
    if (where / DB_NAME).exists():
        print(f"The demo project is already in {where}.")
    else:
        print(build_demo(str(where)))
    print(f"Open it with: annotator --project {where} gui")
    return 0


def cmd_status(args: argparse.Namespace) -> int:
    counts = project_status(project_of(args))
    if args.json:
        print_json(counts)
    else:
        width = max(len(k) for k in counts)
        for key, value in counts.items():
            print(f"{key:<{width}}  {value}")
    return 0


def cmd_backup(args: argparse.Namespace) -> int:
    if args.drop_before_redaction or args.list_before_redaction:
        project = project_of(args)
        actor = actor_of(project, args)
        if args.drop_before_redaction:
            dropped = drop_backups_before_redaction(project, actor)
            for backup in dropped:
                print(f"deleted {backup.path} (written {backup.written:%Y-%m-%d %H:%M} UTC)")
            print(f"{len(dropped)} backup(s) made before a redaction deleted")
        else:
            old = backups_before_redaction(project, actor)
            for backup in old:
                print(f"{backup.path} (written {backup.written:%Y-%m-%d %H:%M} UTC)")
            print(f"{len(old)} backup(s) made before a redaction")
        return 0
    if not args.file:
        raise ProjectError("give the backup FILE, or --drop-before-redaction")
    project = project_of(args)
    target = backup_project(project, actor_of(project, args), Path(args.file))
    print(f"backup written to {target}")
    return 0


def cmd_repair(args: argparse.Namespace) -> int:
    project = project_of(args)
    fixes = repair_case_states(project, actor_of(project, args), dry_run=args.dry_run)
    verb = "would move" if args.dry_run else "moved"
    for fix in fixes:
        print(f"{fix.case_id}: {verb} from {fix.before} to {fix.after}")
    print(f"{len(fixes)} case state(s) {'to repair' if args.dry_run else 'repaired'}")
    drifted = repair_counts(project, actor_of(project, args), dry_run=args.dry_run)
    verb = "would set" if args.dry_run else "set"
    for count in drifted:
        print(f"counter {count.key}: {verb} {count.stored} to {count.actual}")
    print(f"{len(drifted)} counter(s) {'to repair' if args.dry_run else 'repaired'}")
    keys = repair_queue_keys(project, actor_of(project, args), dry_run=args.dry_run)
    for key in keys:
        print(f"queue key of {key.case_id}: {verb} {key.stored} to {key.actual}")
    print(f"{len(keys)} review queue key(s) {'to repair' if args.dry_run else 'repaired'}")
    sme = repair_sme_keys(project, actor_of(project, args), dry_run=args.dry_run)
    for sme_fix in sme:
        print(f"SME task key of {sme_fix.task_id}: {verb} {sme_fix.stored} to {sme_fix.actual}")
    print(f"{len(sme)} SME task key(s) {'to repair' if args.dry_run else 'repaired'}")
    return 0


def cmd_history_verify(args: argparse.Namespace) -> int:
    report = verify_history(project_of(args))
    if args.json:
        print_json(report.as_json())
    elif report.problem is None:
        print(f"history intact: {report.rows} row(s), head row {report.head_seq}"
              f" {report.head_hash}")
    else:
        print(f"history chain broken ({report.problem.kind}): {report.problem.message}")
    return 0 if report.intact else EXIT_FAILED


def cmd_history(args: argparse.Namespace) -> int:
    project = project_of(args)
    lines = case_history(project, actor_of(project, args), args.case)
    if args.json:
        print_json([line.as_json() for line in lines])
        return 0
    for line in lines:
        print(f"{line.at:%Y-%m-%d %H:%M:%S}  {line.actor}  {line.what}")
    print(f"{len(lines)} change(s) of {args.case}")
    return 0
