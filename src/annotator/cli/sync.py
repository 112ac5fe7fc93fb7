"""Command-line subcommands of the offline round trip (registered by annotator.cli).

``bundle`` and ``package-import`` and ``roundtrip-status`` run in the curator's project;
``unbundle`` creates the annotator's project; ``package`` runs in it. Exit status: 0, or
EXIT_FAILED when a package was refused whole (a refused case alone is a report, not a failure).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from annotator.cli._shared import EXIT_FAILED, actor_of, long_task, print_json, project_of
from annotator.errors import AnnotatorError
from annotator.services.sync.bundle import make_bundle
from annotator.services.sync.package import make_package
from annotator.services.sync.package_import import import_packages
from annotator.services.sync.status import roundtrip_status
from annotator.services.sync.unbundle import unbundle
from annotator.sync.formats import SyncFileError
from annotator.sync.import_report import STATUSES


def register(subparsers: Any) -> None:
    """Add the round-trip subcommands to the ``annotator`` parser."""

    def add(name: str, func: Any, help_: str) -> argparse.ArgumentParser:
        parser: argparse.ArgumentParser = subparsers.add_parser(name, help=help_, description=help_)
        parser.set_defaults(func=func)
        return parser

    p = add("bundle", cmd_bundle, "write one annotator's work bundle (their cases and images)")
    p.add_argument("--annotator", required=True, metavar="NAME")
    p.add_argument("--out", required=True, metavar="FILE")
    p = add(
        "unbundle", cmd_unbundle, "create an annotator's own project (--project DIR) from a bundle"
    )
    p.add_argument("file", metavar="FILE")
    p = add("package", cmd_package, "write this offline project's work to an annotation package")
    p.add_argument("--out", required=True, metavar="FILE")
    p = add("package-import", cmd_package_import, "import annotators' packages (idempotent)")
    p.add_argument("files", nargs="+", metavar="FILE")
    p.add_argument("--json", action="store_true")
    p = add("roundtrip-status", cmd_roundtrip_status, "per annotator: assigned, bundled, returned")
    p.add_argument("--json", action="store_true")


def cmd_bundle(args: argparse.Namespace) -> int:
    project = project_of(args)
    with long_task() as task:
        result = make_bundle(project, actor_of(project, args), args.annotator, Path(args.out),
                             task)
    print(
        f"bundle for {result.annotator}: {len(result.case_ids)} case(s), "
        f"{result.images} image(s) written to {result.path}"
    )
    for case_id, why in result.left_out.items():
        print(f"    left out {case_id}: {why}")
    return 0


def cmd_unbundle(args: argparse.Namespace) -> int:
    if not args.project:
        raise AnnotatorError("unbundle needs --project DIR: the new folder for your project")
    with long_task() as task:
        result = unbundle(Path(args.file), args.project, task)
    print(
        f"{result.annotator}'s project with {len(result.case_ids)} case(s) is ready in "
        f"{result.folder}; open it with: annotator --project {result.folder} gui"
    )
    return 0


def cmd_package(args: argparse.Namespace) -> int:
    result = make_package(project_of(args), Path(args.out))
    print(
        f"package {result.sequence} of {result.annotator}: {len(result.case_ids)} case(s), "
        f"{result.changes} new change(s), written to {result.path}"
    )
    return 0


def cmd_package_import(args: argparse.Namespace) -> int:
    project = project_of(args)
    with long_task() as task:
        results = import_packages(project, actor_of(project, args), [Path(f) for f in args.files],
                                  task)
    refused = [r for r in results if isinstance(r, SyncFileError)]
    if args.json:
        print_json([_as_json(r) for r in results])
        return EXIT_FAILED if refused else 0
    for r in results:
        if isinstance(r, SyncFileError):
            print(f"annotator: refused whole, nothing applied: {r}", file=sys.stderr)
            continue
        print(f"{r.path}: package {r.sequence} of {r.annotator}")
        for c in r.cases:
            print(f"  {c.status:<9} {c.case_id}" + (f": {c.reason}" if c.reason else ""))
        if r.note:
            print(f"  {r.note}")
        else:
            counts = ", ".join(f"{r.count(s)} {s}" for s in STATUSES if r.count(s))
            print(f"  {counts or 'no cases'}")
            if r.changed_nothing:
                print("  nothing changed")
    return EXIT_FAILED if refused else 0


def _as_json(result: Any) -> dict[str, Any]:
    if isinstance(result, SyncFileError):
        return {"path": result.path, "refused": result.reason}
    return {
        "path": result.path,
        "package_id": result.package_id,
        "annotator": result.annotator,
        "sequence": result.sequence,
        "note": result.note,
        "cases": [
            {"case_id": c.case_id, "status": c.status, "reason": c.reason} for c in result.cases
        ],
    }


def cmd_roundtrip_status(args: argparse.Namespace) -> int:
    rows = roundtrip_status(project_of(args))
    if args.json:
        print_json([r.to_json() for r in rows])
        return 0
    print(f"{'annotator':<24} assigned bundled returned  last bundle       last package")
    for r in rows:
        bundle = f"{r.last_bundle_at:%Y-%m-%d %H:%M}" if r.last_bundle_at else "-"
        package = f"{r.last_package_at:%Y-%m-%d %H:%M}" if r.last_package_at else "-"
        print(
            f"{r.annotator:<24} {r.assigned:>8} {r.bundled:>7} {r.returned:>8}  "
            f"{bundle:<17} {package}"
        )
    return 0
