"""``annotator rate``: set and submit any kind of rated work (a case's labels, an SME's
verdict, a physician's scores) through the one rating engine; ``sme-verdict`` is its alias
for SME items."""

from __future__ import annotations

import argparse
import json
from typing import Any

from annotator.cli._shared import actor_of, print_json, project_of
from annotator.errors import ValidationError
from annotator.services.judging.review import item_of
from annotator.services.kinds import KINDS
from annotator.services.rating import FieldEdit
from annotator.services.sme.review import task_of
from annotator.store.project import Project

ITEMS = {
    "case": (("case", "CASE", "the case id"),),
    "sme": (("item", "ITEM", "the review item id"), ("code", "CODE", "the benchmark code")),
    "judge": (("output", "OUTPUT", "the case id of the judged output"),
              ("target", "TARGET", "the run's target model")),
}  # fmt: skip


def _options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--set", action="append", default=[], metavar="KEY=VALUE",
        help="KEY as --show prints it; a VALUE that parses as JSON is JSON, else text; "
             "an empty VALUE clears the field",
    )  # fmt: skip
    p.add_argument("--submit", action="store_true")
    p.add_argument("--show", action="store_true", help="print the blind view as JSON")
    p.add_argument("--history", action="store_true",
                   help="print your own history on the item as JSON")


def register(subparsers: Any) -> None:
    rate = subparsers.add_parser("rate", help="set and submit rated work of any kind")
    kinds = rate.add_subparsers(dest="kind", required=True, metavar="KIND")
    for kind, items in ITEMS.items():
        p = kinds.add_parser(kind, help=f"rate one {kind} item")
        for dest, metavar, help_text in items:
            p.add_argument(dest, metavar=metavar, help=help_text)
        _options(p)
        p.set_defaults(func=cmd_rate)
    p = subparsers.add_parser("sme-verdict", help="set verdict fields of one item, or submit")
    for dest, metavar, help_text in ITEMS["sme"]:
        p.add_argument(dest, metavar=metavar, help=help_text)
    _options(p)
    p.set_defaults(func=cmd_rate, kind="sme")


def parse_value(text: str) -> Any:
    """A command-line VALUE: JSON when it parses as JSON, else the text; empty clears."""
    if text == "":
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def _ref(project: Project, args: argparse.Namespace) -> tuple[Any, str]:
    """The engine's reference of the item the arguments name, and its name in messages."""
    if args.kind == "sme":
        return task_of(project, args.item, args.code), f"{args.item} {args.code}"
    if args.kind == "judge":
        return item_of(project, args.target, args.output), f"{args.target} {args.output}"
    return args.case, args.case


def cmd_rate(args: argparse.Namespace) -> int:
    project = project_of(args)
    actor = actor_of(project, args)
    kind = KINDS[args.kind]
    ref, name = _ref(project, args)
    edits = []
    for assignment in args.set:
        key, sep, text = assignment.partition("=")
        if not sep:
            raise ValidationError(f"--set {assignment!r}: write KEY=VALUE")
        edits.append((key.strip(), parse_value(text)))
    if edits:  # one transaction: a refused value leaves every field as it was
        kind.set_fields(project, actor, ref,
                        [FieldEdit(key, kind.entered(key, value)) for key, value in edits])
    if args.submit:
        moved = kind.submit(project, actor, ref)
        print(f"submitted {name}" + (f" (the case is {moved})" if isinstance(moved, str) else ""))
    shown = kind.blind_view(project, actor, ref)
    if args.history:
        print_json(kind.trail(project, actor, ref))
    elif args.show:
        print_json(shown)
    elif not args.submit and not args.history:
        print(f"{name}: {shown['state']}; still needed: {', '.join(shown['missing']) or 'nothing'}")
    return 0
