"""``annotator review``: the meta-review from the command line (scripts and the demo use it).

``--list`` and ``--decide`` use the same stored reviewer letters as the review page, so
``--value B`` means the annotator shown as Reviewer B everywhere.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from annotator.cli._shared import actor_of, print_json, project_of
from annotator.errors import AnnotatorError
from annotator.review.order_board import board_text
from annotator.review.textdiff import diff_text
from annotator.services.kinds import waiting_elsewhere
from annotator.services.review import actions, decisions, queue, reopen
from annotator.services.review.feedback import feedback
from annotator.services.review.view import case_detail
from annotator.store.project import Project

_TEXT_WIDTH = 60


def register(subparsers: Any) -> None:
    """Add the ``review`` subcommand to the ``annotator`` parser."""
    p = subparsers.add_parser(
        "review",
        help="adjudicate: list conflicts, decide them, green-light or exclude cases",
        description="Adjudication: conflicts in order of benchmark impact, decisions with a "
        "reason code, the green light and exclusions.",
    )
    what = p.add_mutually_exclusive_group(required=True)
    what.add_argument("--list", action="store_true", help="conflicts, most important first")
    what.add_argument("--status", action="store_true", help="counts of conflicts and cases")
    what.add_argument("--show", metavar="CASE", help="one case: items, notes, blockers")
    what.add_argument("--decide", nargs=2, metavar=("CASE", "ITEM"), help="decide one item")
    what.add_argument("--reopen", nargs=2, metavar=("CASE", "ITEM"), help="withdraw a decision")
    what.add_argument("--green-light", metavar="CASE", help="green-light a case")
    what.add_argument(
        "--green-light-unanimous", action="store_true", help="green-light every unanimous case"
    )
    what.add_argument("--exclude", metavar="CASE", help="exclude a case as irresolvable")
    what.add_argument("--reinstate", metavar="CASE", help="bring an excluded case back")
    what.add_argument(
        "--bulk", metavar="TYPE", help="decide every open conflict of TYPE with --value"
    )
    what.add_argument(
        "--split", nargs="*", metavar="ADJUDICATOR", help="share cases among adjudicators"
    )
    what.add_argument("--feedback", metavar="CASE", help="your labels that differ from final")
    p.add_argument("--value", help="a reviewer letter (A, B, ...), JSON, or a bare word")
    p.add_argument(
        "--reason", help="reason code (--decide, --bulk) or reason text (--exclude, ...)"
    )
    p.add_argument("--text", default="", help="optional text beside the reason code")
    p.add_argument("--open", action="store_true", help="--list: only open conflicts")
    p.add_argument("--all", action="store_true", help="--list: include auto-resolved items")
    p.add_argument("--case", action="append", metavar="CASE", help="--list: only these cases")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=handler)


def _need(args: argparse.Namespace, *names: str) -> None:
    missing = [f"--{n}" for n in names if not getattr(args, n)]
    if missing:
        raise AnnotatorError(f"this review action needs {' and '.join(missing)}")


def short(value: Any) -> str:
    """A value in one short line (order boards read as ``Figure 1 < Figure 2``)."""
    if value is None:
        return "-"
    if isinstance(value, dict) and value and all(isinstance(k, str) for k in value):
        if all(v is None or isinstance(v, int) for v in value.values()):
            return board_text(value)
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _TEXT_WIDTH else text[: _TEXT_WIDTH - 1] + "…"


def handler(args: argparse.Namespace) -> int:
    """Run the review action the arguments name."""
    project = project_of(args)
    if args.list:
        return _list(project, args)
    if args.status:
        return _status(project, args)
    if args.show:
        return _show(project, args)
    if args.feedback:
        return _feedback(project, actor_of(project, args), args)
    _act(project, actor_of(project, args), args)
    return 0


def _list(project: Project, args: argparse.Namespace) -> int:
    items = queue.list_items(
        project, actor_of(project, args), include_auto=args.all, only_open=args.open,
        case_ids=args.case,
    )
    if args.json:
        print_json([i.as_json() for i in items])
    for i in items if not args.json else []:
        values = "  ".join(f"{k}={short(v)}" for k, v in i.values.items())
        print(f"{i.case_id}\t{i.key}\t{i.disagreement or '-'}\t{i.state}\t{values}")
    return 0


def _status(project: Project, args: argparse.Namespace) -> int:
    reader = actor_of(project, args)
    counts = queue.review_status(project, reader)
    others = waiting_elsewhere(project, reader)
    if args.json:
        print_json({**counts, "other_queues": {
            o.key: {"items": o.items, "open_conflicts": o.open_conflicts} for o in others}})
    else:
        for key, value in counts.items():
            print(f"{key:<22} {value}")
        for other in others:
            print(f"{other.key:<22} {other.describe()}")
    return 0


def _act(project: Project, actor: str, args: argparse.Namespace) -> None:
    """The actions that change the review: decide, reopen, green-light, exclude, ..."""
    if args.decide:
        _need(args, "value", "reason")
        case_id, key = args.decide
        result = actions.decide_value(
            project, actor, case_id, key, args.value, args.reason, args.text
        )
        print(f"{case_id} {key}: decided ({args.reason}); case is {result.state}")
        for blocker in result.blockers:
            print(f"    not green yet: {blocker}")
    elif args.reopen:
        _need(args, "reason")
        reopen.reopen_decision(project, actor, args.reopen[0], args.reopen[1], args.reason)
        print(f"{args.reopen[0]} {args.reopen[1]}: decision reopened")
    elif args.green_light:
        result = decisions.green_light(project, actor, args.green_light)
        print(f"{args.green_light}: green-lit")
        for warning in result.warnings:
            print(f"    warning: {warning}")
    elif args.green_light_unanimous:
        outcome = actions.green_light_unanimous(project, actor)
        print(f"{len(outcome.done)} case(s) green-lit: {', '.join(outcome.done) or '-'}")
        for case_id, why in outcome.skipped.items():
            print(f"    {case_id}: {why}")
    elif args.exclude:
        _need(args, "reason")
        decisions.exclude(project, actor, args.exclude, args.reason)
        print(f"{args.exclude}: excluded ({args.reason})")
    elif args.reinstate:
        _need(args, "reason")
        reopen.reinstate(project, actor, args.reinstate, args.reason)
        print(f"{args.reinstate}: reinstated")
    else:
        _bulk_or_split(project, actor, args)


def _bulk_or_split(project: Project, actor: str, args: argparse.Namespace) -> None:
    if args.bulk:
        _need(args, "value", "reason")
        outcome = actions.bulk_decide(
            project, actor, args.value, args.reason, args.text, disagreement=args.bulk
        )
        print(f"{len(outcome.done)} conflict(s) decided as {args.value}")
        for where, why in outcome.skipped.items():
            print(f"    skipped {where}: {why}")
    elif args.split is not None:
        given = actions.split_cases(project, actor, args.split or None)
        for name, cases in given.items():
            print(f"{name}: {len(cases)} case(s) {', '.join(cases)}")


def _show(project: Project, args: argparse.Namespace) -> int:
    detail = case_detail(project, args.show, actor_of(project, args))
    if args.json:
        print_json(detail.as_json())
        return 0
    print(f"{detail.case_id}  {detail.title}  [{detail.state}]  reviewers: {detail.letters}")
    for item in detail.items:
        print(f"  {item.state:<13} {item.key}  ({item.disagreement or 'agreed'})")
        texts = [v for v in item.values.values() if isinstance(v, str)]
        if item.kind == "conflict" and len(texts) == len(item.values) and len(texts) > 1:
            print(f"      {diff_text(texts[0], texts[1])}")
        else:
            for letter, value in item.values.items():
                print(f"      {letter}: {short(value)}")
    for letter, notes in detail.notes.items():
        for note in notes:
            print(f"  Reviewer {letter} {note.kind} ({note.where}): {note.text}")
    for blocker in detail.blockers:
        print(f"  not green yet: {blocker}")
    return 0


def _feedback(project: Project, annotator: str, args: argparse.Namespace) -> int:
    result = feedback(project, annotator, args.feedback)
    if args.json:
        print_json([i.__dict__ for i in result.items])
        return 0
    if result.exclusion:
        print(f"{result.case_id} was excluded: {result.exclusion}")
    if not result.items:
        print(f"{result.case_id}: your labels are the final values")
    for i in result.items:
        why = (i.reason_code or "") + (f": {i.reason_text}" if i.reason_text else "")
        print(f"{i.label}: yours {short(i.yours)}, final {short(i.final)} ({why or 'no decision'})")
    return 0
