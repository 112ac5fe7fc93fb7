"""``annotator bench-project``, ``annotator bench`` (issue 14) and ``annotator bench-scale``."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from annotator.bench.run import format_table, run_bench
from annotator.bench.scale import format_scale, run_scale
from annotator.bench.synth import build_bench_project


def register(subparsers: Any) -> None:
    """Add the ``bench-project`` and ``bench`` subcommands to the ``annotator`` parser."""
    p = subparsers.add_parser("bench-project", help="build a synthetic project to measure")
    p.add_argument("--cases", type=int, default=1000, metavar="N")
    p.add_argument("--annotators", type=int, default=3, metavar="K")
    p.add_argument("out", type=Path, metavar="OUT", help="a new project folder")
    p.set_defaults(func=cmd_bench_project)

    p = subparsers.add_parser("bench", help="measure import, agreement, export and the GUI")
    p.add_argument("--cases", type=int, default=1000, metavar="N")
    p.add_argument("--runs", type=int, default=3, metavar="R", help="runs of each figure")
    p.add_argument("--json", action="store_true")
    p.add_argument("--workdir", type=Path, metavar="DIR", help="keep the projects here")
    p.add_argument("--only", action="append", metavar="KEY", help="measure only these keys")
    p.add_argument("--store", metavar="URL",
                   help="an empty PostgreSQL database for the edit figures (default: SQLite)")
    p.set_defaults(func=cmd_bench)

    p = subparsers.add_parser(
        "bench-scale", help="measure the everyday figures at 1,000 to 100,000 cases")
    p.add_argument("--cases", type=_sizes, default=[1000, 10000, 100000], metavar="N,N,...",
                   help="project sizes, multiples of the base (default 1000,10000,100000)")
    p.add_argument("--runs", type=int, default=3, metavar="R", help="runs of each figure")
    p.add_argument("--json", action="store_true")
    p.add_argument("--workdir", type=Path, metavar="DIR", default=Path("bench-scale"),
                   help="keep the projects here (default ./bench-scale)")
    p.add_argument("--store", metavar="URL",
                   help="a PostgreSQL server (postgresql://owner@host/db): a team store per"
                   " size, databases <db>_bench_<size>, measured through the people's logins")
    p.add_argument("--no-gui", action="store_true", help="leave out the GUI figures")
    p.set_defaults(func=cmd_bench_scale)


def cmd_bench_project(args: argparse.Namespace) -> int:
    summary = build_bench_project(
        str(args.out), args.cases, args.annotators,
        progress=lambda text: print(text, file=sys.stderr, flush=True),
    )
    print(f"bench project ready at {args.out}: {summary.line()}")
    return 0


def cmd_bench(args: argparse.Namespace) -> int:
    results = run_bench(args.cases, runs=args.runs, workdir=args.workdir, only=args.only,
                        progress=lambda text: print(text, file=sys.stderr, flush=True),
                        store=args.store)
    print(json.dumps(results, indent=2) if args.json else format_table(results))
    return 0


def _sizes(text: str) -> list[int]:
    try:
        sizes = [int(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r}: sizes are whole numbers, e.g. 1000,10000") from None
    if not sizes or min(sizes) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: give at least one size of 1 or more")
    return sizes


def cmd_bench_scale(args: argparse.Namespace) -> int:
    results = run_scale(args.cases, workdir=args.workdir, runs=args.runs, gui=not args.no_gui,
                        progress=lambda text: print(text, file=sys.stderr, flush=True),
                        store=args.store)
    print(json.dumps(results, indent=2) if args.json else format_scale(results))
    return 0
