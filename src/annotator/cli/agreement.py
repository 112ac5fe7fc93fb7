"""``annotator --project P [--as USER] agreement [--json | --csv FILE | --html FILE]``.

Without an option it prints the Table 7 summary and the Table 8 rows as text. Only
curators may run it (the service refuses everyone else with a one-line error).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from annotator.agreement.html_report import nothing_to_compare, write_html
from annotator.agreement.kappa_choice import POOLINGS, WEIGHT_WORDS, KappaChoice
from annotator.agreement.options import ReportOptions
from annotator.agreement.tables import table7_rows, table8_rows, write_csv
from annotator.cli._shared import actor_of, print_json, project_of
from annotator.services.agreement import agreement_report

HELP = "inter-annotator agreement report (curators only)"


def register(subparsers: Any) -> None:
    """Add ``agreement`` to the ``annotator`` parser."""
    p = subparsers.add_parser("agreement", help=HELP, description=HELP)
    p.set_defaults(func=cmd_agreement)
    add_arguments(p)


def _print_tables(report: dict[str, Any]) -> None:
    empty = nothing_to_compare(report["basis"])
    if empty is not None:
        print(empty)
        return
    print(report["basis"]["statement"])
    print()
    for metric, value in table7_rows(report):
        print(f"{metric}: {value}")
    print()
    for row in table8_rows(report):
        family, agreement, ci, metric, common, resolved, notes = row[:7]
        print(f"{family}: {agreement} {ci}; {metric}")
        print(f"    most common disagreement: {common}; resolved: {resolved}; {notes}")


def cmd_agreement(args: argparse.Namespace) -> int:
    """Compute the project's agreement report and print or write it; returns the exit code."""
    choice = kappa_choice(args)
    options = None if choice is None else ReportOptions(kappa=choice)
    project = project_of(args)
    try:
        report = agreement_report(project, actor_of(project, args), options)
    finally:
        project.close()
    csv_path = getattr(args, "csv", None)
    html_path = getattr(args, "html", None)
    if getattr(args, "json", False):
        print_json(report)
    elif csv_path:
        print(f"wrote {write_csv(report, Path(csv_path))}")
    elif html_path:
        print(f"wrote {write_html(report, Path(html_path))}")
    else:
        _print_tables(report)
    return 0


def add_kappa_arguments(parser: argparse.ArgumentParser) -> None:
    """``--kappa`` and ``--kappa-pooling``: which kappa is the headline (stats, agreement)."""
    parser.add_argument("--kappa", choices=list(WEIGHT_WORDS), default=None,
                        help="kappa weights for ordered labels (default: linear; nominal "
                             "labels are always unweighted)")
    parser.add_argument("--kappa-pooling", choices=list(POOLINGS), default="pairs",
                        help="pairs: mean of Cohen's kappas over annotator pairs; fleiss: "
                             "Fleiss' kappa over all raters (Gwet's generalisation)")


def kappa_choice(args: argparse.Namespace) -> KappaChoice | None:
    """The kappa the options ask for; None when neither option was given (the default)."""
    weights = getattr(args, "kappa", None)
    pooling = getattr(args, "kappa_pooling", "pairs") or "pairs"
    if weights is None and pooling == "pairs":
        return None
    return KappaChoice.parse(weights or "linear", pooling)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of the ``agreement`` subcommand (one output at a time)."""
    out = parser.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the whole report as JSON")
    out.add_argument("--csv", metavar="FILE", help="write the Table 8 layout as CSV")
    out.add_argument("--html", metavar="FILE", help="write the HTML report with charts")
    add_kappa_arguments(parser)
