"""``quality`` and ``quality-*``: physicians' quality (calibration, hidden repeats, gold
items, time on task, latent-class estimates), and the ``--repeat-*`` flags of the assign
commands."""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotator.cli._shared import actor_of, project_of, write_outputs
from annotator.errors import ValidationError
from annotator.services.kinds import KINDS
from annotator.services.quality import (
    mark_item,
    set_in_calibration,
    set_quality_settings,
    snapshot,
    summary_rows,
    unmark_item,
    write_quality,
)
from annotator.services.rating.repeats import add_repeats, check_rate
from annotator.store.project import Project


def add_repeat_flags(p: argparse.ArgumentParser) -> None:
    """``--repeat-rate R --repeat-after DAYS`` of an assign command."""
    p.add_argument("--repeat-rate", type=float, metavar="R",
                   help="serve this share of each rater's submitted items again, hidden")
    p.add_argument("--repeat-after", type=float, metavar="DAYS",
                   help="with --repeat-rate: days after the first rating (default 14)")


def add_assign_parser(
    subparsers: Any, name: str, help_: str, func: Callable[[argparse.Namespace], int]
) -> None:
    """An ``assign`` command of reviewed items: ``--per-item K`` and the repeat flags."""
    p = subparsers.add_parser(name, help=help_)
    p.add_argument("--per-item", type=int, default=2, metavar="K")
    add_repeat_flags(p)
    p.set_defaults(func=func)


def assign_items(
    args: argparse.Namespace, assign: Callable[[Project, str, int], int], kind: str
) -> int:
    """An ``assign`` command of reviewed items: ``--per-item`` each, then its repeats."""
    project = project_of(args)
    check_rate(args.repeat_rate, args.repeat_after)
    print(f"{assign(project, actor_of(project, args), args.per_item)} assignment(s) added")
    run_repeats(args, kind)
    return 0


def run_repeats(args: argparse.Namespace, kind: str) -> None:
    """Add the hidden repeats an assign command asked for (after its assignments)."""
    check_rate(args.repeat_rate, args.repeat_after)
    if args.repeat_rate is None:
        return
    project = project_of(args)
    days = 14.0 if args.repeat_after is None else args.repeat_after
    report = add_repeats(project, actor_of(project, args), kind, args.repeat_rate, days)
    print(f"{report.count} hidden repeat(s) added")


def register(subparsers: Any) -> None:
    """Add ``quality`` and ``quality-*`` to the ``annotator`` parser."""
    p = subparsers.add_parser("quality", help="each rater's quality: calibration, repeats, gold, "
                              "time, drift, latent class")
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", type=Path, metavar="DIR", help="write quality.json and quality.csv")
    p.set_defaults(func=cmd_quality)

    p = subparsers.add_parser("quality-mark", help="mark a calibration or gold item")
    p.add_argument("kind", choices=sorted(KINDS))
    p.add_argument("item", metavar="ITEM", help="a case id, an SME task id or a judged output id")
    p.add_argument("--purpose", choices=("calibration", "gold"), default="calibration")
    p.add_argument("--reference", metavar="JSON", help='the answer, e.g. {"importance:Figure 1":'
                   ' "essential"}; without it the adjudicated answer is promoted')
    p.add_argument("--reason", default="", help="why the reference is right (required to mark)")
    p.add_argument("--remove", action="store_true", help="take the mark off")
    p.set_defaults(func=cmd_mark)

    p = subparsers.add_parser("quality-calibration", help="put a rater in calibration or not")
    p.add_argument("rater", metavar="NAME")
    p.add_argument("mode", choices=("on", "off", "auto"),
                   help="auto: while they have submitted fewer than calibration_first_n items")
    p.set_defaults(func=cmd_calibration)

    p = subparsers.add_parser("quality-settings", help="calibration and gold item settings")
    p.add_argument("--first-n", type=int, metavar="N",
                   help="raters are in calibration for their first N items (0: off)")
    p.add_argument("--gold", choices=("on", "off"), help="the project has gold items")
    p.add_argument("--show-gold", choices=("on", "off"),
                   help="raters see a gold item's answer after submitting it")
    p.set_defaults(func=cmd_settings)


def cmd_quality(args: argparse.Namespace) -> int:
    project = project_of(args)
    snap = snapshot(project, actor_of(project, args))
    write_outputs(args, lambda out: write_quality(snap, out), snap.as_json)
    if not args.json and not args.out:
        for row in summary_rows(snap):
            print("  ".join(f"{k}={v}" for k, v in row.items()))
        print(json.dumps(snap.items))
    return 0


def cmd_mark(args: argparse.Namespace) -> int:
    project = project_of(args)
    actor = actor_of(project, args)
    if args.remove:
        unmark_item(project, actor, args.kind, args.item, args.purpose)
        print(f"{args.item} is no longer a {args.purpose} item")
        return 0
    reference = None
    if args.reference is not None:
        try:
            reference = json.loads(args.reference)
        except json.JSONDecodeError as exc:
            raise ValidationError(f"--reference is not JSON: {exc.msg}") from None
        if not isinstance(reference, dict) or not reference:
            raise ValidationError("--reference must be a JSON object of field -> value")
    key = mark_item(project, actor, args.kind, args.item, args.purpose, reference, args.reason)
    print(f"{key} is a {args.purpose} item")
    return 0


def cmd_calibration(args: argparse.Namespace) -> int:
    project = project_of(args)
    on = {"on": True, "off": False, "auto": None}[args.mode]
    set_in_calibration(project, actor_of(project, args), args.rater, on)
    print(f"{args.rater}: calibration {args.mode}")
    return 0


def cmd_settings(args: argparse.Namespace) -> int:
    project = project_of(args)
    flag = {"on": True, "off": False, None: None}
    settings = set_quality_settings(
        project, actor_of(project, args), first_n=args.first_n, gold=flag[args.gold],
        show_gold=flag[args.show_gold])
    print(json.dumps(settings))
    return 0
