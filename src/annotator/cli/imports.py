"""``import``: draft case files and folders into the project."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from annotator.cli._shared import EXIT_FAILED, actor_of, long_task, print_json, project_of
from annotator.services.import_summary import report_lines
from annotator.services.imports import import_cases


def register(subparsers: Any) -> None:
    """Add ``import`` to the ``annotator`` parser."""
    help_ = "import draft case files or folders"
    p = subparsers.add_parser("import", help=help_, description=help_)
    p.set_defaults(func=cmd_import)
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
    p.add_argument(
        "--verbose",
        action="store_true",
        help="also list each case's problems and what de-identification did to each tag",
    )
    p.add_argument("--json", action="store_true", help="every detail, as JSON")


def cmd_import(args: argparse.Namespace) -> int:
    project = project_of(args)
    with long_task() as task:
        report = import_cases(
            project,
            actor_of(project, args),
            [Path(p) for p in args.paths],
            new_version=args.new_version,
            deidentify=not args.keep_identifiers,
            task=task,
        )
    if args.json:
        print_json([o.__dict__ for o in report.outcomes])
    else:
        print("\n".join(report_lines(report, verbose=args.verbose)))
    return EXIT_FAILED if report.failed else 0
