"""``redact``: burned-in text: check stored images, list what needs review, redact."""

from __future__ import annotations

import argparse
from typing import Any

from annotator.cli._shared import (
    EXIT_FAILED,
    actor_of,
    add_command,
    print_json,
    project_of,
)
from annotator.services.pixel_review import (
    RedactionError,
    accept_suggested,
    apply_redaction,
    backups_before_redaction,
    list_images,
    no_phi,
    parse_box,
    scan,
)


def register(subparsers: Any) -> None:
    """Add ``redact`` to the ``annotator`` parser."""
    p = add_command(
        subparsers, "redact",
        "images that may show burned-in text: check, list, redact or clear (curators)",
        cmd_redact)
    p.add_argument("target", nargs="*", metavar="CASE [IMAGE]",
                   help="a case and one of its draft image paths; with --accept-suggested,"
                        " the cases to limit it to")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--scan", action="store_true",
                      help="check the stored images that were never checked")
    mode.add_argument("--list", action="store_true",
                      help="the flagged images (and unchecked ones) and their review")
    mode.add_argument("--accept-suggested", action="store_true",
                      help="black out the boxes the check proposes, on every flagged image")
    mode.add_argument("--box", action="append", metavar="X,Y,W,H",
                      help="black out this box on every frame of CASE IMAGE (repeatable)")
    mode.add_argument("--no-phi", action="store_true",
                      help="record that CASE IMAGE shows no patient data (needs --reason)")
    p.add_argument("--frame", type=int, default=None, metavar="N",
                   help="with --box: black out frame N only (from 0), not every frame")
    p.add_argument("--series", action="store_true",
                   help="with --box: also every image of the case in the same DICOM series"
                        " with the same geometry")
    p.add_argument("--reason", default="", help="why the image holds no patient data")
    p.add_argument("--all", action="store_true", help="with --list: every image")
    p.add_argument("--json", action="store_true")


def cmd_redact(args: argparse.Namespace) -> int:
    project = project_of(args)
    actor = actor_of(project, args)
    if args.scan:
        count = scan(project, actor)
        print(f"checked {count} image(s) stored before the check existed")
        return 0
    if args.list:
        rows = list_images(project, actor, all_images=args.all)
        if args.json:
            print_json([r.as_dict() for r in rows])
            return 0
        for r in rows:
            print(f"{r.status:<9} {r.case_id}  {r.draft_path}  ({', '.join(r.figures)})")
            for reason in r.reasons:
                print(f"    {reason}")
            for box in r.boxes:
                print(f"    box {','.join(str(v) for v in box['box'])} frame {box['frame']}"
                      f" (confidence {box['confidence']})")
            if r.review_reason:
                print(f"    reviewed: {r.review_reason}")
        print(f"{sum(r.unresolved for r in rows)} image(s) to review")
        return 0
    if args.accept_suggested:
        report = accept_suggested(project, actor, args.target)
        for r in report.redacted:
            print(f"redacted  {r.case_id}  {r.draft_path}  ({len(r.boxes)} box(es))")
        for r in report.left:
            print(f"left      {r.case_id}  {r.draft_path}: flagged without boxes ("
                  + "; ".join(r.reasons) + "): redact it with --box or clear it with --no-phi")
        return EXIT_FAILED if report.left else 0
    if len(args.target) != 2 or not (args.box or args.no_phi):
        raise RedactionError("give CASE IMAGE with --box X,Y,W,H or --no-phi --reason TEXT,"
                             " or one of --scan, --list, --accept-suggested")
    case_id, image = args.target
    if args.no_phi:
        no_phi(project, actor, case_id, image, args.reason)
        print(f"{case_id}  {image}: no patient data ({args.reason.strip()})")
        return 0
    boxes = [parse_box(b) for b in args.box]
    where = "every frame" if args.frame is None else f"frame {args.frame}"
    for path in apply_redaction(project, actor, case_id, image, boxes, frame=args.frame,
                                series=args.series):
        print(f"{case_id}  {path}: {len(boxes)} box(es) blacked out on {where}")
    old = backups_before_redaction(project, actor)
    if old:
        print(f"{len(old)} backup(s) in the project's backups folder were made before this"
              " redaction (they copy the database as it was then): delete them with"
              " 'annotator --project P backup --drop-before-redaction'")
    return 0
