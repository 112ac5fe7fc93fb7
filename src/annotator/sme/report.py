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
        _text(8, 18, "Mean normalised score, 95% BCa interval", 12, weight="bold"),
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


def html_page(results: SmeResults) -> str:
    e = html.escape
    rows = csv_rows(results)
    head = "".join(f"<th>{e(c)}</th>" for c in BENCHMARK_COLUMNS)
    body = "".join(
        "<tr>" + "".join(f"<td>{e(_html_cell(row, c))}</td>" for c in BENCHMARK_COLUMNS)
        + "</tr>"
        for row in rows
    )
    rel = "".join(
        f"<tr><td>{e(r.code)}</td><td>{e(json.dumps(r.kappa))}</td><td>{e(json.dumps(r.alpha))}"
        f"</td><td>{_fmt(r.icc)} (n={r.icc_units})</td>"
        f"<td>{e(json.dumps(r.automated) if r.automated else '–')}</td>"
        f"<td>{e(json.dumps(r.ci))}</td><td>{e('; '.join(r.flags))}</td></tr>"
        for r in results.reliability
    )
    consistency = "".join(
        f"<tr><td>{e(r.code)}</td><td>{_fmt(r.cronbach.value)}</td>"
        f"<td>{e(_fmt(list(r.cronbach.ci)) if r.cronbach.ci else '–')}</td>"
        f"<td>{r.cronbach.cases}</td><td>{r.cronbach.items}</td>"
        f"<td>{e(r.cronbach.flag or '')}</td></tr>"
        for r in results.rubrics
    )
    basis = e(json.dumps(results.basis))
    rule = e(str(results.basis.get("threshold_rule", "")))
    minimum = results.basis.get("min_items_for_ci", {})
    return (
        "<!doctype html><meta charset='utf-8'><title>SME review results</title>"
        "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:3px 6px}"
        "table{border-collapse:collapse;margin-bottom:1em}</style>"
        "<h1>SME review results</h1>"
        f"{forest_svg(results)}"
        f"<h2>Benchmarks and rubrics</h2><table><tr>{head}</tr>{body}</table>"
        f"<p>Threshold decision: {rule}. No interval (–) below {e(json.dumps(minimum))} "
        "items: too few to estimate. Rubric scores are weighted means over the benchmarks "
        "with a score, weights renormalised; weight_covered is the share of the rubric's "
        "weight they carry.</p>"
        "<h2>Reliability</h2><table><tr><th>benchmark</th><th>kappa</th><th>alpha</th>"
        "<th>ICC(1,1)</th><th>SME vs automated</th><th>95% CIs</th>"
        "<th>flags</th></tr>"
        f"{rel}</table>"
        "<h2>Rubric consistency (Cronbach's alpha: benchmarks as items, test cases as "
        "subjects)</h2><table><tr><th>rubric</th><th>alpha</th><th>95% CI (Feldt)</th>"
        f"<th>cases</th><th>benchmarks</th><th>flag</th></tr>{consistency}</table>"
        f"<p>Basis: {basis}</p>"
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
