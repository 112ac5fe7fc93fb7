"""The judge-agreement report as JSON, CSV and a self-contained HTML page."""

from __future__ import annotations

import csv
import html
import json
from pathlib import Path
from typing import Any

from annotator.agreement.intervals import TOO_FEW, Interval, interval_text
from annotator.judging.runfile import ALL_TARGETS
from annotator.judging.table9 import MIN_CASES, ONE_UNIT_MIN_CASES

PAIR_KEYS = ("a", "b", "n_items", "targets", "macro_binary")
INTERVAL_NOTE = (
    "Wilson's score interval; where a case holds several units (trajectory, the macro "
    "cell) at the effective sample size from the jackknife over cases; n = cases; under "
    f"{MIN_CASES} cases ({ONE_UNIT_MIN_CASES} for a target with one unit per case): {TOO_FEW}")


def issue_json(report: dict[str, Any]) -> dict[str, Any]:
    """The agreed JSON shape: ``{"raters": [...], "pairs": [{a, b, n_items, targets,
    macro_binary}]}`` (the report's extras go to the CSV, the HTML and a separate file)."""
    return {
        "raters": list(report["raters"]),
        "pairs": [{k: _agreed(pair[k]) if k == "targets" else pair[k] for k in PAIR_KEYS}
                  for pair in report["pairs"]],
    }


def _agreed(targets: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per-target figures in the agreed shape (case counts go to the extras and the CSV)."""
    return {t: {k: v for k, v in fig.items() if not k.endswith("n_cases")}
            for t, fig in targets.items()}


def extras_json(report: dict[str, Any]) -> dict[str, Any]:
    """Macro CIs with their cases, per-run judge vs human means, and gaps of 2 or more."""
    return {
        "macro_ci": [{"a": p["a"], "b": p["b"], "ci": p.get("macro_ci"),
                      "n_cases": p.get("macro_n"),
                      "target_n_cases": {t: f["n_cases"] for t, f in p["targets"].items()}}
                     for p in report["pairs"]],
        "run_means": report.get("run_means", []),
        "big_differences": report.get("big_differences", []),
    }


def table9_matrix(report: dict[str, Any]) -> list[list[float | None]]:
    """Upper triangle of macro binary agreement, raters x raters (None elsewhere)."""
    raters = report["raters"]
    index = {r: i for i, r in enumerate(raters)}
    matrix: list[list[float | None]] = [[None] * len(raters) for _ in raters]
    for pair in report["pairs"]:
        matrix[index[pair["a"]]][index[pair["b"]]] = pair["macro_binary"]
    return matrix


def table9_cells(report: dict[str, Any], digits: int = 3) -> list[list[str]]:
    """The Table 9 matrix as text: each cell with its interval and n, or "too few"."""
    raters = report["raters"]
    index = {r: i for i, r in enumerate(raters)}
    cells = [[""] * len(raters) for _ in raters]
    for pair in report["pairs"]:
        bounds, n = pair.get("macro_ci"), pair.get("macro_n", 0)
        ci = None if bounds is None else Interval(bounds[0], bounds[1], n)
        cells[index[pair["a"]]][index[pair["b"]]] = interval_text(pair["macro_binary"], ci, n,
                                                                  digits)
    return cells


def cell_text(value: Any) -> str:
    """A report's value as a cell shows it: 3 decimals, an interval in brackets, '–' for none."""
    if value is None:
        return "–"
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        return "[" + ", ".join(cell_text(v) for v in value) + "]"
    return str(value)


def csv_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for pair in report["pairs"]:
        for target in ALL_TARGETS:
            fig = pair["targets"][target]
            ci = fig["ci"] or [None, None]
            rows.append(
                {
                    "a": pair["a"],
                    "b": pair["b"],
                    "target": target,
                    "n": fig["n"],
                    "n_cases": fig["n_cases"],
                    "binary": fig["binary"],
                    "ci_low": ci[0],
                    "ci_high": ci[1],
                    "macro_ci_low": (pair.get("macro_ci") or [None, None])[0],
                    "macro_ci_high": (pair.get("macro_ci") or [None, None])[1],
                    "macro_n_cases": pair.get("macro_n"),
                    "exact": fig["exact"],
                    "within_one": fig["within_one"],
                    "qwk": fig["qwk"],
                    "label_agreement": fig.get("label_agreement"),
                    "label_kappa": fig.get("label_kappa"),
                    "macro_binary": pair["macro_binary"],
                }
            )
    return rows


def write_reports(report: dict[str, Any], out: Path) -> list[Path]:
    """JSON (the agreed shape), CSV, HTML and the extras' JSON in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [
        out / "judge-agreement.json",
        out / "judge-agreement.csv",
        out / "judge-agreement.html",
        out / "judge-agreement-extras.json",
    ]
    paths[0].write_text(json.dumps(issue_json(report), indent=2, allow_nan=False), "utf-8")
    paths[3].write_text(json.dumps(extras_json(report), indent=2, allow_nan=False), "utf-8")
    rows = csv_rows(report)
    with paths[1].open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]) if rows else ["a", "b"])
        writer.writeheader()
        writer.writerows({k: ("" if v is None else v) for k, v in r.items()} for r in rows)
    paths[2].write_text(html_page(report), encoding="utf-8")
    return paths


def html_page(report: dict[str, Any]) -> str:
    e = html.escape
    raters = report["raters"]
    matrix = table9_cells(report)
    head = "".join(f"<th>{e(r)}</th>" for r in raters[1:])
    body = ""
    for i, rater in enumerate(raters[:-1]):
        cells = "".join(
            f"<td>{e(matrix[i][j]) if j > i else '–'}</td>" for j in range(1, len(raters))
        )
        body += f"<tr><th>{e(rater)}</th>{cells}</tr>"
    detail = "".join(
        "<tr>" + "".join(f"<td>{e(cell_text(v))}</td>" for v in row.values()) + "</tr>"
        for row in csv_rows(report)
    )
    detail_head = "".join(f"<th>{e(k)}</th>" for k in (csv_rows(report) or [{}])[0])
    means = "".join(
        f"<tr><td>{e(m['run'])}</td><td>{e(m['judge'])}</td><td>{e(m['target'])}</td>"
        f"<td>{m['n']}</td><td>{cell_text(m['judge_mean'])}</td><td>{cell_text(m['human_mean'])}</td></tr>"
        for m in report.get("run_means", [])
    )
    diffs = "".join(
        f"<tr><td>{e(d['run'])}</td><td>{e(d['case_id'])}</td><td>{e(d['target'])}</td>"
        f"<td>{e(d['diagnosis'] or '')}</td><td>{e(d['judge'])}</td>"
        f"<td>{d['judge_score']}</td><td>{d['human_score']}</td></tr>"
        for d in report.get("big_differences", [])
    )
    return (
        "<!doctype html><meta charset='utf-8'><title>Judge agreement</title>"
        "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:3px 6px}"
        "table{border-collapse:collapse;margin-bottom:1em}</style>"
        "<h1>Judge agreement (macro binary, Table 9 layout)</h1>"
        f"<table><tr><th>Judge</th>{head}</tr>{body}</table>"
        f"<p>95% intervals: {e(INTERVAL_NOTE)}</p>"
        f"<h2>Per target</h2><table><tr>{detail_head}</tr>{detail}</table>"
        "<h2>Mean score per run: judge vs human reference</h2><table><tr><th>run</th>"
        "<th>judge</th><th>target</th><th>n</th><th>judge mean</th><th>human mean</th></tr>"
        f"{means}</table><h2>Human reference and judge differ by 2 or more</h2><table><tr>"
        "<th>run</th><th>case</th><th>target</th><th>diagnosis</th><th>judge</th>"
        f"<th>judge score</th><th>human score</th></tr>{diffs}</table>"
    )
