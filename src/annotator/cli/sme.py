"""``annotator sme-*``: lint and import benchmarks, import items, assign, verdicts, review,
results. Every page action has a command here, so the SME review runs without a screen.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from annotator.agreement.intervals import Interval, interval_text
from annotator.cli._shared import (
    EXIT_FAILED,
    actor_of,
    print_json,
    project_of,
    write_outputs,
)
from annotator.cli.quality import add_assign_parser, assign_items
from annotator.errors import ValidationError
from annotator.services import kinds
from annotator.services.sme.adjudication import list_conflicts
from annotator.services.sme.imports import ImportRejected, import_benchmarks, import_items
from annotator.services.sme.results import compare, results
from annotator.services.sme.review import assign, queue, task_of
from annotator.sme.compare_report import write_comparison, write_comparison_html
from annotator.sme.lint import lint
from annotator.sme.report import write_html, write_reports


def register(subparsers: Any) -> None:
    """Add the ``sme-*`` subcommands to the ``annotator`` parser."""
    p = subparsers.add_parser("sme-lint", help="check benchmark YAML files (no project needed)")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    p.set_defaults(func=cmd_lint)

    p = subparsers.add_parser("sme-import", help="import benchmark specifications (YAML)")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    p.set_defaults(func=cmd_import)

    p = subparsers.add_parser("sme-items", help="import SME review items (JSON or JSONL)")
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH")
    p.set_defaults(func=cmd_items)

    add_assign_parser(subparsers, "sme-assign", "give every SME review item k SMEs", cmd_assign)

    p = subparsers.add_parser("sme-queue", help="the acting SME's review queue")
    p.add_argument("--benchmark", metavar="CODE")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_queue)

    p = subparsers.add_parser("sme-review", help="SME conflicts: list, or adjudicate one")
    p.add_argument("--open", action="store_true", help="only undecided conflicts")
    p.add_argument("--json", action="store_true")
    p.add_argument("--decide", nargs=4, metavar=("ITEM", "CODE", "FIELD", "VALUE"))
    p.add_argument("--reason", help="required with --decide")
    p.set_defaults(func=cmd_review)

    p = subparsers.add_parser("sme-results", help="benchmark and rubric results, reliability")
    p.add_argument("--json", action="store_true")
    p.add_argument("--out", type=Path, metavar="DIR", help="write JSON, CSV, HTML and SVG here")
    p.add_argument("--html", type=Path, metavar="FILE",
                   help="write the HTML report alone (with --compare: table and forest plot)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--compare", nargs=2, metavar=("A", "B"),
                   help="system B against system A (e.g. copilot@1.3 copilot@1.4)")
    p.set_defaults(func=cmd_results)


def cmd_lint(args: argparse.Namespace) -> int:
    result = lint(args.paths)
    for problem in result.problems:
        print(problem)
    print(f"{len(result.benchmarks)} benchmark(s), {len(result.errors)} error(s), "
          f"{len(result.warnings)} warning(s)")  # fmt: skip
    return EXIT_FAILED if result.errors else 0


def _import_all_or_nothing(args: argparse.Namespace, run: Callable[..., Any], what: str) -> int:
    """Run an all-or-nothing import and print its report, or every problem and exit 1."""
    project = project_of(args)
    try:
        report = run(project, actor_of(project, args), args.paths)
    except ImportRejected as exc:
        print("\n".join(exc.lines))
        print(f"nothing imported: {len(exc.lines)} {what}(s)")
        return EXIT_FAILED
    print("\n".join(report.lines()))
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    return _import_all_or_nothing(args, import_benchmarks, "error")


def cmd_items(args: argparse.Namespace) -> int:
    return _import_all_or_nothing(args, import_items, "problem")


def cmd_assign(args: argparse.Namespace) -> int:
    return assign_items(args, assign, "sme")


def cmd_queue(args: argparse.Namespace) -> int:
    project = project_of(args)
    entries = queue(project, actor_of(project, args), args.benchmark)
    if args.json:
        print_json([{"item": e.item_id, "benchmark": e.benchmark, "state": e.state}
                     for e in entries])  # fmt: skip
        return 0
    for e in entries:
        print(f"{e.item_id}\t{e.benchmark}\t{e.state}")
    return 0


def _value(field: str, text: str) -> Any:
    if text == "":
        return None
    if field == "score":
        try:
            return float(text)
        except ValueError:
            return text  # the service names the bad value
    return text


def cmd_review(args: argparse.Namespace) -> int:
    project = project_of(args)
    actor = actor_of(project, args)
    if args.decide:
        item, code, field, text = args.decide
        if not args.reason:
            raise ValidationError("--decide needs --reason")
        task = task_of(project, item, code)
        kinds.SME.adjudicate(project, actor, task, field, _value(field, text), args.reason)
        print(f"decided {item} {code} {field} = {text}")
        return 0
    found = list_conflicts(project, actor, open_only=args.open)
    if args.json:
        print_json([
            {"item": c.item_id, "benchmark": c.benchmark, "field": c.key, "reason": c.reason,
             "by_letter": c.by_letter, "decided": c.decided, "decided_reason": c.decided_reason}
            for c in found
        ])  # fmt: skip
        return 0
    for c in found:
        state = "open" if c.decided is None else f"decided {c.decided}"
        values = ", ".join(f"{k}: {v.get(c.key)}" for k, v in c.by_letter.items())
        print(f"{c.item_id} {c.benchmark} {c.key}: {values} — {c.reason} [{state}]")
    if not found:
        print("no conflicts")
    return 0


def _ci(bounds: tuple[float, float] | None, n: int) -> Interval | None:
    return None if bounds is None else Interval(bounds[0], bounds[1], n)


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:+.{digits}f}"


def _pair(bounds: tuple[float, float] | None) -> str:
    return "" if bounds is None else f"[{bounds[0]:+.3f}, {bounds[1]:+.3f}]"


def cmd_compare(args: argparse.Namespace) -> int:
    project = project_of(args)
    a, b = args.compare
    found = compare(project, actor_of(project, args), a, b, seed=args.seed)
    write_outputs(args, lambda out: write_comparison(found, out), found.as_json)
    if args.html:
        print(f"wrote {write_comparison_html(found, args.html)}")
    if args.json:
        return 0
    print(f"{b} - {a}: mean normalised score and pass rate, 95% intervals")
    for c in found.benchmarks:
        p = "–" if c.p_holm is None else f"p {c.p:.3g} (Holm {c.p_holm:.3g}, Bonferroni " \
            f"{c.p_bonferroni:.3g})"
        d = "" if c.cohen_d is None else f"\td {c.cohen_d:+.2f}"
        print(f"{c.code}\tn {c.n_a}/{c.n_b}\t{c.method} ({c.pairs} shared cases)\tscore "
              f"{_num(c.difference)} {_pair(c.ci)}\tpass rate "
              f"{_num(c.pass_rate_difference)} {_pair(c.pass_rate_ci)}\t{p}{d}\t"
              f"{c.conclusion}")
        for name, runs in ((a, c.worst_of_k_a), (b, c.worst_of_k_b)):
            if runs is not None:
                print(f"  {name} worst-of-{runs.k} over {runs.cases} cases: mean "
                      f"{runs.mean:.3f}, worst {runs.worst:.3f}")
        if c.drift is not None:
            alert = "DRIFT ALERT" if c.drift.alert else "no drift alert"
            print(f"  drift: KS p {c.drift.ks_p:.3g}, Mann-Whitney p "
                  f"{c.drift.mann_whitney_p:.3g}, change {c.drift.change:+.3f}: {alert}")
    for r in found.rubrics:
        print(f"{r.code} (rubric)\tscore {_num(r.difference)} {_pair(r.ci)} over "
              f"{', '.join(r.benchmarks)}")
    print(json.dumps(found.basis))
    return 0


def cmd_results(args: argparse.Namespace) -> int:
    if args.compare:
        return cmd_compare(args)
    project = project_of(args)
    found = results(project, actor_of(project, args), seed=args.seed)
    write_outputs(args, lambda out: write_reports(found, out), found.as_json)
    if args.html:
        print(f"wrote {write_html(found, args.html)}")
    if not args.json and not args.out and not args.html:
        for b in found.benchmarks:
            score = interval_text(b.score, _ci(b.score_ci, b.score_n), b.score_n, 3)
            rate = interval_text(b.pass_rate, _ci(b.pass_rate_ci, b.pass_rate_n),
                                 b.pass_rate_n, 3)
            decision = b.threshold_decision or "–"
            print(f"{b.code}\tapplicable {b.applicable}\tpass rate {rate}\tscore {score}"
                  f"\tthreshold {decision}\tundecided {b.undecided}"
                  f"\tunsubmitted {b.unsubmitted}")
        for r in found.rubrics:
            score = interval_text(r.score, _ci(r.score_ci, r.score_n), r.score_n, 3)
            print(f"{r.code} (rubric)\tweighted score {score}\tweight covered "
                  f"{r.weight_covered:.0%} ({', '.join(r.scored) or 'none'})")
        for rel in found.reliability:
            for flag in rel.flags:
                print(f"{rel.code}: reliability flag: {flag}")
        print(json.dumps(found.basis))
    return 0
