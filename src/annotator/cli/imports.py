"""``import``: draft case files and folders into the project."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from annotator.cli._shared import EXIT_FAILED, actor_of, print_json, project_of
from annotator.services.imports import ImportReport, import_cases

_STATUSES = ("added", "updated", "new_version", "unchanged", "refused", "rejected")


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
    p.add_argument("--json", action="store_true")


def cmd_import(args: argparse.Namespace) -> int:
    project = project_of(args)
    report = import_cases(
        project,
        actor_of(project, args),
        [Path(p) for p in args.paths],
        new_version=args.new_version,
        deidentify=not args.keep_identifiers,
    )
    if args.json:
        print_json([o.__dict__ for o in report.outcomes])
    else:
        _print_report(report)
    return EXIT_FAILED if report.failed else 0


def _print_report(report: ImportReport) -> None:
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
        if o.flagged_images:
            print(f"    burned-in text: {o.flagged_images} image(s) to review (redact --list)")
    counts = {s: report.count(s) for s in _STATUSES}
    print(
        ", ".join(f"{n} {s.replace('_', ' ')}" for s, n in counts.items() if n)
        or "nothing to import"
    )
    flagged = sum(o.flagged_images for o in report.outcomes)
    if flagged:
        cases = sum(1 for o in report.outcomes if o.flagged_images)
        print(f"{flagged} image(s) in {cases} case(s) may show burned-in text: review them"
              " (annotator redact --list) before export")
    if report.changed_nothing and not report.failed and report.outcomes:
        print("nothing changed: every case was already imported")
