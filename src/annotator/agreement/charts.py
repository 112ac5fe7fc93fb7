"""Charts of the agreement report as SVG text, drawn once here and shown by the GUI and HTML.

Plain SVG 1.1 with presentation attributes only (no CSS, no scripts), so Qt's SVG renderer
(SVG Tiny) draws it exactly as a browser does. Every chart has a fixed pixel size, given in
its ``width``/``height`` attributes.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any
from xml.sax.saxutils import escape, quoteattr

FONT = "DejaVu Sans, Arial, Helvetica, sans-serif"
COLOURS = ("#1f6fb4", "#d9731a", "#2a9d55", "#c23b3b", "#7d5bb5", "#8c6239", "#d04f9c",
           "#6b7280")
SHOWN = (  # coefficient rows of a family chart
    ("percent_agreement", "Exact agreement"),
    ("krippendorff_alpha", "Krippendorff α"),
    ("fleiss_kappa", "Fleiss κ"),
    ("mean_pairwise_cohen_kappa", "Mean Cohen κ"),
    ("gwet_ac1", "Gwet AC1"),
    ("pabak", "PABAK"),
)


def _text(x: float, y: float, text: str, size: int = 11, anchor: str = "start",
          colour: str = "#222", weight: str = "normal") -> str:
    return (f'<text x="{x:.1f}" y="{y:.1f}" font-family={quoteattr(FONT)} font-size="{size}" '
            f'text-anchor="{anchor}" fill="{colour}" font-weight="{weight}">{escape(text)}</text>')


def _line(x1: float, y1: float, x2: float, y2: float, colour: str = "#999",
          width: float = 1.0) -> str:
    return (f'<line x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" y2="{y2:.1f}" '
            f'stroke="{colour}" stroke-width="{width}"/>')


def _svg(width: int, height: int, body: list[str]) -> str:
    return (f'<svg xmlns="http://www.w3.org/2000/svg" version="1.1" width="{width}" '
            f'height="{height}" viewBox="0 0 {width} {height}">'
            f'<rect x="0" y="0" width="{width}" height="{height}" fill="#ffffff"/>'
            + "".join(body) + "</svg>")


def _short(label: str, n: int = 11) -> str:
    label = label.replace("_", " ")
    return label if len(label) <= n else label[: n - 1] + "…"


def _axis_low(values: Sequence[float]) -> float:
    # Kappas can be negative; show down to the lowest value, in steps of 0.2, at most -1.
    lowest = min([0.0, *values])
    return max(-1.0, math.floor(lowest * 5) / 5)


def _dot_rows(rows: Sequence[tuple[str, float | None, list[float] | None]], x0: float,
              y0: float, width: float, step: float = 22, label_width: float = 112) -> list[str]:
    """Dots with CI whiskers on a shared axis from the lowest value to 1."""
    shown = [v for _, v, _ in rows if v is not None]
    shown += [c[0] for _, _, c in rows if c is not None]
    low = _axis_low(shown)
    left, right = x0 + label_width, x0 + width - 46

    def x(v: float) -> float:
        return left + (min(max(v, low), 1.0) - low) / (1.0 - low) * (right - left)

    body = []
    bottom = y0 + step * len(rows)
    for tick in (low, 0.0, 0.5, 1.0) if low < 0 else (0.0, 0.25, 0.5, 0.75, 1.0):
        body.append(_line(x(tick), y0 - 4, x(tick), bottom - 6, "#e3e3e3"))
        body.append(_text(x(tick), bottom + 6, f"{tick:g}", 9, "middle", "#666"))
    for i, (label, value, ci) in enumerate(rows):
        y = y0 + step * i + 6
        body.append(_text(x0, y + 4, label, 11))
        body.append(_line(left, y, right, y, "#f0f0f0"))
        if ci is not None:
            body.append(_line(x(ci[0]), y, x(ci[1]), y, "#1f6fb4", 2))
            body += [_line(x(c), y - 4, x(c), y + 4, "#1f6fb4", 1.5) for c in ci]
        if value is None:
            body.append(_text(right + 6, y + 4, "n/a", 10, colour="#888"))
        else:
            body.append(f'<circle cx="{x(value):.1f}" cy="{y:.1f}" r="4" fill="#1f6fb4"/>')
            body.append(_text(right + 6, y + 4, f"{value:.2f}", 10))
    return body


def _blend(low: tuple[int, int, int], high: tuple[int, int, int], t: float) -> str:
    r, g, b = (round(a + (z - a) * t) for a, z in zip(low, high, strict=True))
    return f"#{r:02x}{g:02x}{b:02x}"


def _heatmap(labels: Sequence[str], matrix: Sequence[Sequence[int]], x0: float,
             y0: float) -> tuple[list[str], float]:
    """Pooled confusion counts (rows: lower-numbered annotator of each pair); returns the
    drawing and its bottom edge."""
    k = len(labels)
    cell = 44 if k <= 3 else 34
    total = max(1, max((max(r) for r in matrix), default=1))
    left, top = x0 + 84, y0 + 14
    turn = max((len(lab) for lab in labels), default=0) > 4
    body = [_text(left + cell * k / 2, y0 + 2, "Confusion (rating pairs)", 10, "middle", "#444")]
    for i in range(k):
        body.append(_text(left - 5, top + cell * i + cell / 2 + 4, _short(labels[i], 14), 9,
                          "end"))
        cx, cy = left + cell * i + cell / 2, top + cell * k + 12
        if turn:  # column labels turned 40 degrees so that long labels stay whole
            body.append(_text(cx + 3, cy - 2, _short(labels[i], 14), 9, "end").replace(
                "<text ", f'<text transform="rotate(-40 {cx + 3:.1f} {cy - 2:.1f})" ', 1))
        else:
            body.append(_text(cx, cy, labels[i], 9, "middle"))
        for j in range(k):
            n = matrix[i][j]
            # Agreement (diagonal) in blue, disagreement in red, darker for more pairs.
            fill = _blend((245, 248, 255), (91, 143, 214), n / total) if i == j else (
                _blend((255, 245, 245), (224, 102, 102), n / total))
            body.append(f'<rect x="{left + cell * j:.1f}" y="{top + cell * i:.1f}" '
                        f'width="{cell}" height="{cell}" fill="{fill}" stroke="#ffffff"/>')
            body.append(_text(left + cell * j + cell / 2, top + cell * i + cell / 2 + 4, str(n),
                              9, "middle", "#111"))
    longest = max((len(_short(lab, 14)) for lab in labels), default=0) if turn else 2
    return body, top + cell * k + 14 + 5.5 * longest * 0.65


def family_chart(section: Mapping[str, Any]) -> str:
    """One family: its coefficients with 95% CIs, and the pooled confusion matrix."""
    coefficients = section["coefficients"]
    rows = [(label, coefficients[name]["value"], coefficients[name]["ci95"])
            for name, label in SHOWN]
    height = 52 + 22 * len(rows) + 16
    title = (f"{section['title']}: {section['n_units']} units, {section['n_cases']} cases, "
             f"{section['n_rating_pairs']} {section['pair_word']}")
    body = [_text(10, 18, title, 12, weight="bold")]
    body += _dot_rows(rows, 10, 40, 350)
    labels, matrix = section["confusion"]["labels"], section["confusion"]["matrix"]
    if len(labels) <= 4:
        drawing, bottom = _heatmap(labels, matrix, 370, 36)
        body += drawing
        height = max(height, math.ceil(bottom) + 8)
    return _svg(600, height, body)


def overview_chart(report: Mapping[str, Any]) -> str:
    """Exact agreement of every family with its 95% CI."""
    rows = [(_short(s["title"], 30), s["coefficients"]["percent_agreement"]["value"],
             s["coefficients"]["percent_agreement"]["ci95"]) for s in report["families"]]
    width, height = 600, 44 + 22 * len(rows) + 16
    body = [_text(10, 18, "Exact agreement (mean pairwise) with 95% CI", 12, weight="bold")]
    body += _dot_rows(rows, 10, 38, width - 20, label_width=190)
    return _svg(width, height, body)


def timeline_chart(report: Mapping[str, Any]) -> str:
    """Exact agreement per ISO week of entering review, one line per family."""
    weeks = [row["week"] for row in report["timeline"]]
    fams = [s for s in report["families"] if s.get("counts_for_cases", True)]
    width, height = 600, 250
    left, right, top, bottom = 44, 440, 30, 200
    body = [_text(10, 18, "Exact agreement per week of entering review", 12, weight="bold")]
    for tick in (0.0, 0.25, 0.5, 0.75, 1.0):
        y = bottom - tick * (bottom - top)
        body.append(_line(left, y, right, y, "#e3e3e3"))
        body.append(_text(left - 6, y + 4, f"{tick:g}", 9, "end", "#666"))
    if not weeks:
        body.append(_text((left + right) / 2, (top + bottom) / 2, "no submission times", 11,
                          "middle", "#888"))
        return _svg(width, height, body)
    span = max(1, len(weeks) - 1)

    def x(i: int) -> float:
        return left + (right - left) * (i / span if len(weeks) > 1 else 0.5)

    every = max(1, math.ceil(len(weeks) / 8))
    for i, week in enumerate(weeks):
        if i % every == 0:
            body.append(_text(x(i), bottom + 14, week, 9, "middle", "#666"))
    for n, fam in enumerate(fams):
        colour = COLOURS[n % len(COLOURS)]
        points = [(x(i), bottom - v * (bottom - top))
                  for i, row in enumerate(report["timeline"])
                  if (v := row["percent_agreement"].get(fam["id"])) is not None]
        if len(points) > 1:
            path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
            body.append(f'<polyline points="{path}" fill="none" stroke="{colour}" '
                        f'stroke-width="1.8"/>')
        body += [f'<circle cx="{px:.1f}" cy="{py:.1f}" r="2.5" fill="{colour}"/>'
                 for px, py in points]
        body.append(_line(456, 40 + 18 * n, 474, 40 + 18 * n, colour, 3))
        body.append(_text(480, 44 + 18 * n, _short(fam["title"], 18), 10))
    return _svg(width, height, body)
