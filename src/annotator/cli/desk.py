"""``desk``: where the project stands, the figures of the app's desk page."""

from __future__ import annotations

import argparse
from typing import Any

from annotator.cli._shared import actor_of, print_json, project_of
from annotator.services.desk import DeskSnapshot, desk_snapshot, set_stuck_after_days

HELP = ("where the project stands: cases by state, each annotator's work, conflicts waiting "
        "per kind, stuck work, agreement, SME and judge-scoring progress (seniors)")


def register(subparsers: Any) -> None:
    """Add ``desk`` to the ``annotator`` parser."""
    p = subparsers.add_parser("desk", help=HELP, description=HELP)
    p.add_argument("--json", action="store_true", help="the whole snapshot as JSON")
    p.add_argument("--stuck-days", type=int, metavar="N", default=None,
                   help="list open work nobody edited for N days (default: the project's "
                   "stuck_after_days setting, 7)")
    p.add_argument("--set-stuck-days", type=int, metavar="N", default=None,
                   help="keep N as the project's stuck limit (curators; in the history)")
    p.set_defaults(func=cmd_desk)


def cmd_desk(args: argparse.Namespace) -> int:
    project = project_of(args)
    actor = actor_of(project, args)
    if args.set_stuck_days is not None:
        before = set_stuck_after_days(project, actor, args.set_stuck_days)
        print(f"stuck limit: {args.set_stuck_days} days (was {before})")
        return 0
    # Every annotator row: the desk page reads them a page at a time as its table scrolls.
    snapshot = desk_snapshot(project, actor, stuck_after_days=args.stuck_days, annotators=None)
    if args.json:
        print_json(snapshot.as_json())
    else:
        print("\n".join(text_lines(snapshot)))
    return 0


def _minutes(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds / 60:.1f} min"


def _maybe(value: int | None) -> str:
    return "-" if value is None else str(value)


def text_lines(s: DeskSnapshot) -> list[str]:
    """The snapshot as text, one section after another."""
    states = ", ".join(f"{n} {state.replace('_', ' ')}" for state, n in s.cases_by_state.items())
    lines = [f"cases: {s.status['cases']} ({states}); {s.needs_fix} need a fix", "",
             f"{'annotator':<24} assigned progress submitted bundled returned  median time"]
    for a in s.annotators:
        lines.append(f"{a.name:<24} {a.assigned:>8} {a.in_progress:>8} {a.submitted:>9} "
                     f"{_maybe(a.bundled):>7} {_maybe(a.returned):>8}  "
                     f"{_minutes(a.median_active_seconds)}")
    lines.append("")
    for q in s.conflicts:
        lines.append(f"conflicts waiting, {q.title}: {q.open_conflicts} open in {q.items} item(s)")
    lines.append(f"stuck (no edit for {s.stuck_after_days} days): {s.stuck_total}")
    for stuck in s.stuck:
        lines.append(f"    {stuck.case_id}  {stuck.annotator}  {stuck.state}  "
                     f"idle {stuck.idle_days:g} days")
    if s.agreement is None:
        lines.append(f"agreement: {s.agreement_note}")
    elif not s.agreement_intervals:
        lines.append(f"agreement: {s.agreement_note}; `annotator agreement` computes them")
    for f in s.agreement or []:
        value = "n/a" if f.agreement is None else f"{100 * f.agreement:.1f}%"
        lines.append(f"agreement, {f.title}: {value} over {f.n_units} units")
    for b in s.sme_benchmarks:
        lines.append(f"SME {b.code}: {b.resolved} of {b.total} items with a reference verdict "
                     f"({b.undecided} undecided, {b.unsubmitted} unsubmitted)")
    for kind, w in s.work.items():
        lines.append(f"{kind} work: {w.submitted} of {w.assigned} submitted, "
                     f"{w.in_progress} in progress")
    per_day = ", ".join(f"{d} {n}" for d, n in s.submissions_per_day) or "none yet"
    lines.append(f"case submissions per day: {per_day}")
    lines.extend(f"note: {n}" for n in s.notes)
    return lines
