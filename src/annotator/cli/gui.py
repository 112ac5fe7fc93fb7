"""``gui``: start the desktop app (the command line is the process entry point)."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from annotator.cli._shared import EXIT_ERROR
from annotator.displaycheck import display_problem

PAGES = ["desk", "annotate", "sme", "review", "agreement", "judge", "export"]


def register(subparsers: Any) -> None:
    """Add ``gui`` to the ``annotator`` parser."""
    help_ = "start the desktop app"
    p = subparsers.add_parser("gui", help=help_, description=help_)
    p.set_defaults(func=cmd_gui)
    p.add_argument("--page", choices=PAGES)
    p.add_argument("--screenshot", metavar="FILE.png", help="render offscreen to a PNG and exit")
    p.add_argument(
        "--size",
        metavar="WxH",
        help="window size (default: the last session's; screenshots 1600x1000)",
    )
    p.add_argument("--theme", choices=["light", "dark"],
                   help="colours for this run (default: the app's setting, which follows the "
                   "system until changed)")
    p.add_argument("--scale", type=float, metavar="F",
                   help="interface scale for this run, e.g. 1.25 (default: the app's setting; "
                   "Ctrl+= and Ctrl+- change it)")
    p.add_argument("--case", metavar="ID")
    p.add_argument("--open-bundle", metavar="FILE", help="open a work bundle (with --into DIR)")
    p.add_argument("--into", metavar="DIR", help="the new folder for the bundle's project")
    p.add_argument(
        "--as",
        dest="as_user",
        default=argparse.SUPPRESS,
        metavar="USER",
        help="act as this user (also accepted before the command)",
    )


def cmd_gui(args: argparse.Namespace) -> int:
    problem = None if args.screenshot else display_problem()
    if problem is not None:  # say what to do, before Qt can abort naming the wrong library
        print(problem, file=sys.stderr)
        return EXIT_ERROR
    # Imported here, not for a cycle (the gui never imports the cli) but so that every other
    # command runs without loading Qt (tests/test_layers.py imports the cli with Qt absent).
    from annotator.gui.app import run_gui

    return run_gui(args)
