"""``annotator export`` and ``annotator validate`` (registered by the command line)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from annotator.cli._shared import actor_of, long_task, project_of
from annotator.export.validate import validate_release
from annotator.services.export import export_release, read_case_list
from annotator.services.history_audit import release_head_problems

EXIT_INVALID = 1


def register(subparsers: Any) -> None:
    """Add the ``export`` and ``validate`` subcommands to the ``annotator`` parser."""
    p = subparsers.add_parser(
        "export", help="write the release of every green-lit case (curators)",
        description="Write the release of every green-lit case: release JSON, images,"
        " images.csv, ATTRIBUTION.tsv, croissant.json, benchmark card, excluded.csv,"
        " agreement report and MANIFEST.sha256.",
    )
    p.add_argument("--out", required=True, metavar="DIR", help="a new or empty folder")
    p.add_argument("--version", dest="release_version", metavar="X.Y.Z",
                   help="release version (default: the card's version)")
    p.add_argument("--date", metavar="YYYY-MM-DD",
                   help="release date in the card and croissant.json (default: today, UTC)")
    p.add_argument("--previous", metavar="DIR", help="a previous release to diff against")
    p.add_argument("--include-comments", action="store_true",
                   help="include reviewers' free-text comments in the provenance")
    p.add_argument("--include-dicom", action="store_true",
                   help="also ship the de-identified DICOM originals under dicom/")
    p.add_argument("--cases", metavar="FILE", type=Path,
                   help="release only the cases named in FILE (one case id a line); the"
                   " project's other cases are left out of the release and its counts")
    p.set_defaults(func=cmd_export)
    v = subparsers.add_parser(
        "validate", help="check a release folder against the contract and its manifest",
        description="Check a release folder; exit 0 when valid, else print each problem."
        " With --project, also check that the project's history still contains the history"
        " chain head the release published.",
    )
    v.add_argument("folder", metavar="DIR")
    v.set_defaults(func=cmd_validate)


def cmd_export(args: argparse.Namespace) -> int:
    project = project_of(args)
    with long_task() as task:
        result = export_release(
            project, actor_of(project, args), Path(args.out),
            version=args.release_version, date=args.date,
            previous=Path(args.previous) if args.previous else None,
            include_comments=args.include_comments, include_dicom=args.include_dicom,
            task=task, cases=read_case_list(args.cases) if args.cases else None,
        )
    print(f"release written to {result.folder}: {result.cases} case(s),"
          f" {result.images} image(s), {len(result.files)} file(s)")
    for held in result.excluded:
        print(f"excluded   {held.case_id}: {held.reason}")
    for held in result.held_back:
        print(f"held back  {held.case_id}: {held.reason}")
    for note in result.notes:
        print(f"note: {note}")
    return 0


def cmd_validate(args: argparse.Namespace) -> int:
    problems = validate_release(Path(args.folder))
    if args.project:
        problems += release_head_problems(project_of(args), Path(args.folder))
    for problem in problems:
        print(problem)
    if problems:
        print(f"{len(problems)} problem(s) in {args.folder}", file=sys.stderr)
        return EXIT_INVALID
    print(f"{args.folder}: valid release")
    return 0
