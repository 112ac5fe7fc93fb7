"""SME results as JSON, CSV and a self-contained HTML page with the forest plot (SVG).

The forest plot is drawn here, once, with the agreement charts' SVG helpers (plain SVG 1.1,
presentation attributes only), so the page and the HTML report show the same picture.
"""

from __future__ import annotations

import csv
import html
import json
from pathlib import Path
from typing import Any

from annotator.agreement.charts import _line, _svg, _text
from annotator.agreement.intervals import TOO_FEW
from annotator.sme.results import SmeResults
from annotator.sme.results_view import (
    COLUMNS,
    CONSISTENCY_CAPTION,
    FLAG_COLOUR,
    RELIABILITY_CAPTION,
    basis_rows,
    consistency_rows,
    reliability_rows,
    table_rows,
)

BENCHMARK_COLUMNS = (
    "code", "label", "parent_rubric", "evaluator_type", "weight", "weight_covered", "items",
    "undecided", "unsubmitted", "applicable", "pass_rate", "pass_rate_low", "pass_rate_high",
    "pass_rate_n", "score", "score_low", "score_high", "score_n", "threshold",
    "threshold_decision", "icc", "cronbach", "flags",
)  # fmt: skip


def _fmt(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, list):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.3f}"
    return str(value)


def _html_cell(row: dict[str, Any], column: str) -> str:
    """A cell; a missing interval bound beside a figure reads "too few to estimate"."""
    figure = column.removesuffix("_low")
    if column.endswith("_low") and row[column] is None and row.get(figure) is not None:
        return TOO_FEW
    return _fmt(row[column])


def csv_rows(results: SmeResults) -> list[dict[str, Any]]:
    """One row per benchmark, then one per rubric (``code`` = the rubric, ``label`` = rubric)."""
    checks = {r.code: r for r in results.reliability}
    rows: list[dict[str, Any]] = []
    for b in results.benchmarks:
        rel = checks.get(b.code)
        rows.append(
            {
                "code": b.code, "label": b.label, "parent_rubric": b.parent_rubric,
                "evaluator_type": b.evaluator_type, "weight": b.weight,
                "weight_covered": None, "items": b.items,
                "undecided": b.undecided, "unsubmitted": b.unsubmitted,
                "applicable": b.applicable, "pass_rate": b.pass_rate,
                "pass_rate_low": b.pass_rate_ci[0] if b.pass_rate_ci else None,
                "pass_rate_high": b.pass_rate_ci[1] if b.pass_rate_ci else None,
                "pass_rate_n": b.pass_rate_n, "score": b.score,
                "score_low": b.score_ci[0] if b.score_ci else None,
                "score_high": b.score_ci[1] if b.score_ci else None, "score_n": b.score_n,
                "threshold": b.threshold, "threshold_decision": b.threshold_decision,
                "icc": rel.icc if rel else None, "cronbach": None,
                "flags": "; ".join(rel.flags) if rel else "",
            }
        )  # fmt: skip
    for r in results.rubrics:
        rows.append(
            {key: None for key in BENCHMARK_COLUMNS}
            | {
                "code": r.code, "label": "rubric", "weight": r.weight_scored,
                "weight_covered": r.weight_covered, "score": r.score,
                "score_low": r.score_ci[0] if r.score_ci else None,
                "score_high": r.score_ci[1] if r.score_ci else None, "score_n": r.score_n,
                "cronbach": r.cronbach.value, "flags": r.cronbach.flag or "",
            }
        )  # fmt: skip
    return rows


def forest_svg(results: SmeResults, width: int = 640) -> str:
    """Mean normalised score of each benchmark and rubric with its 95% CI, on 0..1."""
    rows: list[tuple[str, float | None, tuple[float, float] | None, float | None, bool]] = [
        (b.code, b.score, b.score_ci, b.threshold, False) for b in results.benchmarks
    ] + [(f"{r.code} (rubric)", r.score, r.score_ci, None, True) for r in results.rubrics]
    step, top, label_w, right = 24, 34, 150, 60
    height = top + step * max(len(rows), 1) + 36
    x0, x1 = label_w, width - right
    span = x1 - x0
    body = [
        _text(8, 18, "Mean normalised score, 95% interval", 12, weight="bold"),
        _line(x1 - 70, 9, x1 - 70, 21, "#c23b3b", 1.5),
        _text(x1 - 64, 19, "threshold", 10, colour="#555"),
    ]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        x = x0 + tick * span
        body.append(_line(x, top - 6, x, height - 30, "#e3e3e3"))
        body.append(_text(x, height - 14, f"{tick:g}", 10, "middle", "#555"))
    for i, (name, score, ci, threshold, rubric) in enumerate(rows):
        y = top + step * i + step / 2
        colour = "#7d5bb5" if rubric else "#1f6fb4"
        body.append(_text(8, y + 4, name, 11, colour=colour, weight="bold" if rubric else "normal"))
        if threshold is not None and 0 <= threshold <= 1:
            tx = x0 + threshold * span
            body.append(_line(tx, y - 8, tx, y + 8, "#c23b3b", 1.5))
        if ci is not None:
            lo, hi = (x0 + min(max(v, 0.0), 1.0) * span for v in ci)
            body.append(_line(lo, y, hi, y, colour, 2))
        if score is None:
            body.append(_text(x0 + 4, y + 4, "no score", 10, colour="#888"))
            continue
        cx = x0 + min(max(score, 0.0), 1.0) * span
        shape = "rect" if rubric else "circle"
        if shape == "circle":
            body.append(f'<circle cx="{cx:.1f}" cy="{y:.1f}" r="5" fill="{colour}"/>')
        else:
            body.append(
                f'<rect x="{cx - 5:.1f}" y="{y - 5:.1f}" width="10" height="10" fill="{colour}"/>'
            )
        body.append(_text(x1 + 8, y + 4, f"{score:.2f}", 10, colour="#333"))
    return _svg(width, height, body)


PAGE_STYLE = (
    "body{font-family:sans-serif;max-width:1280px;margin:0 auto;padding:0 12px;color:#222}"
    "table{border-collapse:collapse;margin-bottom:1.2em;width:100%}"
    "caption{text-align:left;font-weight:bold;padding:4px 0}"
    "td,th{border:1px solid #ccc;padding:3px 6px;vertical-align:top}"
    "th{background:#f2f2f2}td.num{text-align:right;white-space:nowrap}"
    "tr.rubric td{background:#eee8f6;font-weight:bold}td.flag{color:" + FLAG_COLOUR + "}"
    ".plots{display:flex;flex-wrap:wrap;gap:16px;align-items:flex-start}"
    ".plots>div{flex:1 1 560px;min-width:0}svg{max-width:100%;height:auto}"
)
FOREST_WIDTH = 560  # beside the reliability table within 1280 px, as in the app's tab


def _results_table(results: SmeResults) -> str:
    e = html.escape
    head = "".join(f"<th>{e(c)}</th>" for c in COLUMNS)
    body = ""
    for rubric, cells, flagged in table_rows(results):
        tds = [f"<td>{e(cells[0].strip())}</td>"]
        tds += [f"<td class='num'>{e(c)}</td>" for c in cells[1:-1]]
        tds.append(f"<td{' class=flag' if flagged else ''}>{e(cells[-1])}</td>")
        body += f"<tr{' class=rubric' if rubric else ''}>{''.join(tds)}</tr>"
    return (
        "<table><caption>Rubrics (weighted score) and their benchmarks: pass rate (Wilson) and "
        "mean normalised score (BCa bootstrap; a rubric's: Welch-Satterthwaite) with 95% "
        "intervals and their n; "
        f"{e(TOO_FEW)} below the minimum</caption><tr>{head}</tr>{body}</table>"
    )


def html_page(results: SmeResults) -> str:
    """The results as the app's results tab shows them, as one self-contained page."""
    e = html.escape
    basis = "".join(
        f"<tr><th align='left'>{e(k)}</th><td>{e(v)}</td></tr>" for k, v in basis_rows(results)
    )
    summary = (
        f"{len(results.benchmarks)} benchmark(s), {len(results.rubrics)} rubric(s); "
        f"{results.basis['n_resamples']:,} bootstrap resamples, seed {results.basis['seed']}."
    )
    return (
        "<!doctype html><html lang='en'><head><meta charset='utf-8'>"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>SME review results</title><style>{PAGE_STYLE}</style></head><body>"
        f"<h1>SME review results</h1><p>{e(summary)}</p>"
        f"{_results_table(results)}"
        f"<div class='plots'><div>{forest_svg(results, width=FOREST_WIDTH)}</div>"
        f"<div><table><caption>{RELIABILITY_CAPTION}</caption>"
        f"{reliability_rows(results)}</table>"
        f"<table><caption>{CONSISTENCY_CAPTION}</caption>{consistency_rows(results)}</table>"
        "</div></div>"
        f"<table><caption>How these figures were computed</caption>{basis}</table>"
        "</body></html>"
    )


def write_reports(results: SmeResults, out: Path) -> list[Path]:
    """``sme-results.json``, ``.csv``, ``.html`` and the forest plot ``.svg`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"sme-results.{ext}" for ext in ("json", "csv", "html", "svg")]
    paths[0].write_text(json.dumps(results.as_json(), indent=2, allow_nan=False), "utf-8")
    with paths[1].open("w", newline="", encoding="utf-8") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(BENCHMARK_COLUMNS))
        writer.writeheader()
        for row in csv_rows(results):
            writer.writerow({k: ("" if v is None else v) for k, v in row.items()})
    paths[2].write_text(html_page(results), encoding="utf-8")
    paths[3].write_text(forest_svg(results), encoding="utf-8")
    return paths


def write_html(results: SmeResults, path: Path) -> Path:
    """The results page (tables, forest plot, basis) alone, at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html_page(results), encoding="utf-8")
    return path
