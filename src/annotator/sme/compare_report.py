"""The system comparison as JSON and a self-contained HTML page with its forest plot (SVG).

The forest plot shows, per benchmark and per rubric, the difference B - A in mean normalised
score with its 95% interval on -1..1, a line at 0 (no difference), and the conclusion.
"""

from __future__ import annotations

import html
import json
from pathlib import Path

from annotator.agreement.charts import _line, _svg, _text
from annotator.sme.compare import BenchmarkComparison, Comparison

COLUMNS = ("code", "n A/B", "method", "shared cases", "difference", "95% interval", "p",
           "Holm p", "Bonferroni p", "Cohen's d", "pass-rate difference", "pass-rate interval",
           "conclusion", "drift")


def _num(value: float | None, fmt: str = "+.3f") -> str:
    return "–" if value is None else format(value, fmt)


def _p(value: float | None) -> str:
    """A p-value; one below 0.001 is printed "<0.001"."""
    if value is None:
        return "–"
    return "<0.001" if value < 0.001 else format(value, ".3g")


def _pair(bounds: tuple[float, float] | None) -> str:
    return "–" if bounds is None else f"[{bounds[0]:+.3f}, {bounds[1]:+.3f}]"


def forest_svg(found: Comparison, width: int = 640) -> str:
    """Difference B - A with its interval for each benchmark and rubric, on -1..1."""
    rows = [(c.code, c.difference, c.ci, c.conclusion, False) for c in found.benchmarks] + [
        (f"{r.code} (rubric)", r.difference, r.ci, "", True) for r in found.rubrics]
    step, top, label_w, right = 24, 34, 150, 170
    height = top + step * max(len(rows), 1) + 36
    x0, x1 = label_w, width - right
    span = x1 - x0

    def x(value: float) -> float:
        return x0 + (min(max(value, -1.0), 1.0) + 1) / 2 * span

    body = [_text(8, 18, f"{found.b} - {found.a}: mean normalised score, 95% interval", 12,
                  weight="bold"),
            _line(x(0), top - 6, x(0), height - 30, "#c23b3b", 1.5)]
    for tick in (-1.0, -0.5, 0.0, 0.5, 1.0):
        body.append(_text(x(tick), height - 14, f"{tick:+g}", 10, "middle", "#555"))
    for i, (name, diff, ci, conclusion, rubric) in enumerate(rows):
        y = top + step * i + step / 2
        colour = "#7d5bb5" if rubric else "#1f6fb4"
        body.append(_text(8, y + 4, name, 11, colour=colour, weight="bold" if rubric else "normal"))
        if ci is not None:
            body.append(_line(x(ci[0]), y, x(ci[1]), y, colour, 2))
        if diff is None:
            continue
        body.append(f'<circle cx="{x(diff):.1f}" cy="{y:.1f}" r="5" fill="{colour}"/>')
        body.append(_text(x1 + 8, y + 4, f"{diff:+.2f} {conclusion}", 10, colour="#333"))
    return _svg(width, height, body)


def drift_text(c: BenchmarkComparison) -> str:
    """The drift cell: the 5% rule's alert and the two tests' p-values."""
    if c.drift is None:
        return "–"
    return (f"{'ALERT' if c.drift.alert else 'no alert'} (KS p {_p(c.drift.ks_p)}, "
            f"MW p {_p(c.drift.mann_whitney_p)})")


def table_rows(found: Comparison) -> list[tuple[bool, list[str]]]:
    """(is_rubric, cells under :data:`COLUMNS`): each benchmark, then each parent rubric.

    The results tab and the HTML page both show these rows. A rubric row has its weighted
    difference and normal interval; its other cells are blank.
    """
    rows: list[tuple[bool, list[str]]] = []
    for c in found.benchmarks:
        rows.append((False, [c.code, f"{c.n_a}/{c.n_b}", c.method, str(c.pairs),
                             _num(c.difference), _pair(c.ci), _p(c.p), _p(c.p_holm),
                             _p(c.p_bonferroni),
                             _num(c.cohen_d, "+.2f"), _num(c.pass_rate_difference),
                             _pair(c.pass_rate_ci), c.conclusion, drift_text(c)]))
    for r in found.rubrics:
        cells = [""] * len(COLUMNS)
        cells[0] = f"{r.code} (rubric)"
        cells[2] = f"weighted: {', '.join(r.benchmarks)}"
        cells[4], cells[5] = _num(r.difference), _pair(r.ci)
        rows.append((True, cells))
    return rows


def html_page(found: Comparison) -> str:
    e = html.escape
    rows = "".join(
        "<tr>" + "".join(f"<td>{'<b>' + e(v) + '</b>' if rubric else e(v)}</td>"
                         for v in cells) + "</tr>"
        for rubric, cells in table_rows(found))
    head = "".join(f"<th>{e(c)}</th>" for c in COLUMNS)
    return (
        "<!doctype html><meta charset='utf-8'><title>SME system comparison</title>"
        "<style>body{font-family:sans-serif}td,th{border:1px solid #ccc;padding:3px 6px}"
        "table{border-collapse:collapse;margin-bottom:1em}</style>"
        f"<h1>{e(found.b)} against {e(found.a)}</h1>{forest_svg(found)}"
        f"<h2>Benchmarks and rubrics</h2><table><tr>{head}</tr>{rows}</table>"
        f"<p>Basis: {e(json.dumps(found.basis))}</p>"
    )


def write_comparison(found: Comparison, out: Path) -> list[Path]:
    """``sme-compare.json``, ``.html`` and the forest plot ``.svg`` in ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"sme-compare.{ext}" for ext in ("json", "html", "svg")]
    paths[0].write_text(json.dumps(found.as_json(), indent=2, allow_nan=False), "utf-8")
    paths[1].write_text(html_page(found), encoding="utf-8")
    paths[2].write_text(forest_svg(found), encoding="utf-8")
    return paths


def write_comparison_html(found: Comparison, path: Path) -> Path:
    """The comparison table and paired forest plot as one HTML page at ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(html_page(found), encoding="utf-8")
    return path
