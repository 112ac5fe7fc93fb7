"""``annotator judge-*``: import judged runs, assign, spreadsheet scores, adjudicate, agree."""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from annotator.cli._shared import actor_of, print_json, project_of, write_outputs
from annotator.cli.quality import add_assign_parser, assign_items
from annotator.judging.report import INTERVAL_NOTE, issue_json, table9_cells, write_reports
from annotator.services import kinds
from annotator.services.judging.agreement import judge_agreement
from annotator.services.judging.imports import import_runs
from annotator.services.judging.review import item_of, list_conflicts
from annotator.services.judging.scoring import assign
from annotator.services.judging.sheets import import_scores_csv


def register(subparsers: Any) -> None:
    """Add the ``judge-*`` subcommands to the ``annotator`` parser."""
    p = subparsers.add_parser("judge-import", help="import scoring-core benchmark_full.json runs")
    p.add_argument("runs", nargs="+", type=Path, metavar="RUN")
    p.set_defaults(func=cmd_import)

    add_assign_parser(subparsers, "judge-assign", "give every judged output k physicians",
                      cmd_assign)

    p = subparsers.add_parser("judge-scores", help="import physicians' spreadsheet scores")
    p.add_argument("file", type=Path, metavar="FILE.csv")
    p.set_defaults(func=cmd_scores)

    p = subparsers.add_parser("judge-conflicts", help="physicians' conflicts for meta-review")
    p.add_argument("--open", action="store_true", help="only undecided conflicts")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_conflicts)

    p = subparsers.add_parser("judge-adjudicate", help="decide one conflicting score")
    p.add_argument("run", metavar="RUN", help="the run's target model")
    p.add_argument("case_id", metavar="CASE")
    p.add_argument("key", metavar="KEY", help="diagnosis, ..., or trajectory/<dx>/score|label")
    p.add_argument("value", metavar="VALUE", help="0-3 or E/A/U")
    p.add_argument("--reason", required=True)
    p.set_defaults(func=cmd_adjudicate)

    p = subparsers.add_parser("judge-agreement", help="Table 9: agreement of judges and humans")
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", type=Path, metavar="DIR", help="write JSON, CSV and HTML here")
    p.set_defaults(func=cmd_agreement)


def cmd_import(args: argparse.Namespace) -> int:
    project = project_of(args)
    report = import_runs(project, actor_of(project, args), args.runs)
    print("\n".join(report.lines()))
    return 0


def cmd_assign(args: argparse.Namespace) -> int:
    return assign_items(args, assign, "judge")


def cmd_scores(args: argparse.Namespace) -> int:
    project = project_of(args)
    report = import_scores_csv(project, actor_of(project, args), args.file)
    print(f"{report.rows} row(s) read, {report.submitted} sheet(s) submitted")
    for line in report.drafts:
        print(f"left as draft: {line}")
    return 0


def cmd_conflicts(args: argparse.Namespace) -> int:
    project = project_of(args)
    found = list_conflicts(project, actor_of(project, args), open_only=args.open)
    if args.json:
        print_json(
            [
                {
                    "run": c.run,
                    "case_id": c.case_id,
                    "key": c.key,
                    "by_scorer": c.by_scorer,
                    "reason": c.reason,
                    "decided": c.decided,
                }
                for c in found
            ]
        )
        return 0
    for c in found:
        decided = "open" if c.decided is None else f"decided {c.decided}"
        print(f"{c.run} {c.case_id} {c.key}: {c.by_scorer} — {c.reason} [{decided}]")
    if not found:
        print("no conflicts")
    return 0


def cmd_adjudicate(args: argparse.Namespace) -> int:
    project = project_of(args)
    value: Any = int(args.value) if args.value.isdigit() else args.value
    item = item_of(project, args.run, args.case_id)
    kinds.JUDGE.adjudicate(project, actor_of(project, args), item, args.key, value, args.reason)
    print(f"decided {args.run} {args.case_id} {args.key} = {value}")
    return 0


def cmd_agreement(args: argparse.Namespace) -> int:
    project = project_of(args)
    report = judge_agreement(project, actor_of(project, args))
    write_outputs(args, lambda out: write_reports(report, out), lambda: issue_json(report))
    if not args.json and not args.out:
        raters = report["raters"]
        print("macro binary agreement (Table 9 layout)")
        print("".ljust(16) + "".join(r[:33].ljust(34) for r in raters[1:]))
        for i, row in enumerate(table9_cells(report)[:-1]):
            cells = ["" if j <= i else v for j, v in enumerate(row)][1:]
            print(raters[i][:15].ljust(16) + "".join(c.ljust(34) for c in cells))
        print(f"95% intervals: {INTERVAL_NOTE}")
        print(json.dumps({"big_differences": len(report["big_differences"])}))
    return 0
