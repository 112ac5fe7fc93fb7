"""``stats``: agreement statistics for any ratings table, no project needed."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from annotator.agreement.ratings_table import stats_report
from annotator.cli._shared import print_json
from annotator.cli.agreement import add_kappa_arguments, kappa_choice


def register(subparsers: Any) -> None:
    """Add ``stats`` to the ``annotator`` parser."""
    help_ = "agreement statistics for any ratings table (CSV)"
    p = subparsers.add_parser("stats", help=help_, description=help_)
    p.set_defaults(func=cmd_stats)
    p.add_argument("csv", metavar="RATINGS.csv")
    p.add_argument("--level", required=True, choices=["nominal", "ordinal", "interval", "ratio"])
    p.add_argument("--order", help="comma-separated order of ordinal labels")
    p.add_argument("--json", action="store_true")
    add_kappa_arguments(p)


def cmd_stats(args: argparse.Namespace) -> int:
    order = [s.strip() for s in args.order.split(",")] if args.order else None
    report = stats_report(Path(args.csv), args.level, order, kappa_choice(args))
    if args.json:
        print_json(report)
    else:
        for key, value in report.items():
            print(f"{key}: {value}")
    return 0
