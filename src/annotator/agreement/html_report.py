"""The agreement report as one self-contained HTML file (no Qt, no scripts, inline SVG).

Same strings as the GUI and CSV (:mod:`annotator.agreement.tables`), same charts as the GUI
(:mod:`annotator.agreement.charts`). Every text from the report is escaped.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from annotator.agreement.charts import family_chart, overview_chart, timeline_chart
from annotator.agreement.tables import (
    TABLE8_HEADER,
    fmt_pct,
    pair_matrix,
    table7_rows,
    table8_rows,
    write_text,
)

STYLE = """
body { font-family: "DejaVu Sans", Arial, sans-serif; margin: 24px; color: #222;
       max-width: 1400px; }
h1 { font-size: 22px; } h2 { font-size: 18px; margin-top: 28px; } h3 { font-size: 15px; }
table { border-collapse: collapse; margin: 8px 0 16px; font-size: 13px; }
th, td { border: 1px solid #ccc; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #f2f4f7; }
p.basis { background: #f7f7f2; padding: 10px; border-left: 4px solid #c9b458; }
.family { display: flex; flex-wrap: wrap; gap: 24px; align-items: flex-start; }
"""


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{escape(str(h))}</th>" for h in header)
    body = "".join(
        "<tr>" + "".join(f"<td>{escape(str(c))}</td>" for c in row) + "</tr>" for row in rows
    )
    return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def _exclusions(basis: Mapping[str, Any]) -> str:
    rows = [[e["case_id"], "", e["detail"]] for e in basis["excluded_cases"]]
    rows += [[e["case_id"], e["figure"], e["detail"]] for e in basis["excluded_exams"]]
    if not rows:
        return "<p>Nothing is left out.</p>"
    return (f"<details><summary>{len(rows)} cases and exams left out, with the reason"
            f"</summary>{_table(['Case', 'Exam', 'Why'], rows)}</details>")


def _family(section: Mapping[str, Any], names: list[str]) -> str:
    parts = [f"<h3>{escape(section['title'])}</h3>", '<div class="family">',
             family_chart(section)]
    active = [n for n in names if n in section["annotator_label_counts"]]
    if len(active) > 1:
        matrix = pair_matrix(section, active)
        parts.append("<div><b>Annotator pairs</b> (agreement · Cohen's kappa, n shared units)"
                     + _table([""] + active, [[a, *row] for a, row in
                                              zip(active, matrix, strict=True)]) + "</div>")
    parts.append("</div>")
    if section["disagreements"]:
        rows = [[" vs ".join(d["labels"]), d["pairs"]] for d in section["disagreements"]]
        parts.append(_table(["Disagreement", "Rating pairs"], rows))
    details = section.get("details") or {}
    if "disagreement_types" in details:
        rows = [[k.replace("_", " "), v] for k, v in details["disagreement_types"].items()]
        parts.append(_table(["Order disagreement type (whole ranking)",
                             "Annotator pairs x cases"], rows))
    if section["top_cases"]:
        rows = [[c["case_id"], c["disagreeing_pairs"], c["rating_pairs"], ", ".join(c["items"])]
                for c in section["top_cases"]]
        parts.append(_table(["Case", "Disagreeing pairs", "Rating pairs", "Items"], rows))
    parts.append(_latent_class(section.get("latent_class")))
    return "".join(parts)


def _latent_class(latent: Mapping[str, Any] | None) -> str:
    """Dawid-Skene's second opinion: each rater's estimated accuracy, contested units."""
    if latent is None:
        return ""
    if "raters" not in latent:
        return f"<p>Latent-class consensus: {escape(latent['note'])}.</p>"
    rows = [[r["rater"], r["n_ratings"], fmt_pct(r["accuracy"])] for r in latent["raters"]]
    text = (f"<p>Latent-class consensus (Dawid-Skene): {latent['n_contested']} of "
            f"{latent['n_units']} units contested (no label reaches "
            f"{latent['contested_below']:.0%} posterior).</p>")
    return text + _table(["Rater", "Ratings", "Estimated accuracy"], rows)


def _annotators(report: Mapping[str, Any]) -> str:
    headline = (("importance", "essential"), ("difficulty", "hard"), ("rarity", "rare"),
                ("discard", "discard"))
    rows = []
    for a in report["annotators"]:
        dist = a["label_distribution"]
        shares = [fmt_pct((dist.get(fid) or {}).get(lab)) for fid, lab in headline]
        rows.append([a["label"], a["name"], a["assigned"], a["submitted"], a["open"],
                     a["in_basis"], *shares])
    header = ["Annotator", "Name", "Assigned", "Submitted", "Open", "In these figures",
              "Essential", "Hard", "Rare", "Discarded"]
    return _table(header, rows)


def _timeline(report: Mapping[str, Any]) -> str:
    fams = [s for s in report["families"] if s["counts_for_cases"]]
    rows = [[t["week"], t["n_cases"], *(fmt_pct(t["percent_agreement"].get(f["id"]))
                                        for f in fams)] for t in report["timeline"]]
    return _table(["Week", "Cases", *(f["title"] for f in fams)], rows)


def nothing_to_compare(basis: Mapping[str, Any]) -> str | None:
    """The sentence a report with no contributing case shows instead of tables of n/a."""
    if basis["cases_included"]:
        return None
    cases = basis["cases_total"]
    return (
        "Nothing to compare yet: agreement needs cases with at least two submitted "
        f"annotations, and none of the project's {cases} case{'' if cases == 1 else 's'} has "
        "them. Assign each case to two or more annotators; the report fills in as they submit."
    )


def render_html(report: Mapping[str, Any], title: str = "Agreement report") -> str:
    """The whole report as an HTML document."""
    basis = report["basis"]
    empty = nothing_to_compare(basis)
    if empty is not None:
        return "\n".join([
            f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>"
            f"{escape(title)}</title><style>{STYLE}</style></head><body><h1>{escape(title)}</h1>",
            f"<p class='empty'>{escape(empty)}</p>",
            _exclusions(basis),
            "</body></html>",
        ])
    names = [a["label"] for a in report["annotators"]]
    t8 = table8_rows(report)
    top = [[c["case_id"], c["disagreeing_pairs"],
            ", ".join(f"{k}: {v}" for k, v in c["by_family"].items())]
           for c in report["top_cases"]]
    parts = [
        f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'><title>{escape(title)}"
        f"</title><style>{STYLE}</style></head><body><h1>{escape(title)}</h1>",
        f"<p class='basis'>{escape(basis['statement'])}</p>",
        _exclusions(basis),
        "<h2>Annotation quantity and quality (Table 7)</h2>",
        _table(["Annotation quantity / quality metric", "Value"], table7_rows(report)),
        overview_chart(report),
        "<h2>Agreement by label family (Table 8)</h2>",
        _table(TABLE8_HEADER[:7], [row[:7] for row in t8]),
        "<h3>Coefficients with 95% bootstrap CIs</h3>",
        _table(["Label family", *TABLE8_HEADER[7:]], [[row[0], *row[7:]] for row in t8]),
        "<h2>Label families</h2>",
        *(_family(s, names) for s in report["families"]),
        "<h2>Cases contributing most disagreement</h2>",
        _table(["Case", "Disagreeing pairs", "By family"], top),
        "<h2>Annotators</h2>",
        _annotators(report),
        "<h2>Over time</h2>",
        timeline_chart(report),
        _timeline(report),
        "</body></html>",
    ]
    return "\n".join(parts)


def write_html(report: Mapping[str, Any], path: Path) -> Path:
    """Write the HTML report to ``path`` (temporary file, then replace)."""
    return write_text(path, render_html(report))
