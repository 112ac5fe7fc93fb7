"""The report as the paper's Tables 7 and 8 (rows of text), and the CSV export.

One formatter for every surface: the GUI table, the HTML report, the CSV and the command
line show the same strings for the same numbers (None -> "n/a").
"""

from __future__ import annotations

import csv
import io
import os
import uuid
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from annotator.errors import AnnotatorError

COEFFICIENT_TITLES = {
    "percent_agreement": "Exact agreement",
    "unanimity": "Unanimity",
    "krippendorff_alpha": "Krippendorff's alpha",
    "fleiss_kappa": "Fleiss' kappa",
    "mean_pairwise_cohen_kappa": "Mean pairwise Cohen's kappa",
    "gwet_ac1": "Gwet's AC1",
    "gwet_ac2": "Gwet's AC2",
    "quadratic_weighted_kappa": "Quadratic-weighted kappa",
    "pabak": "PABAK",
    "kappa": "Kappa (as defined)",
}
TABLE8_HEADER = [
    "Label family", "Annotator agreement", "95% CI", "Agreement metric",
    "Common disagreement type", "Resolved by meta-review?", "Notes",
    "Units", "Rating pairs", "Unanimity", "Krippendorff alpha", "alpha 95% CI", "Alpha level",
    "Fleiss kappa", "Fleiss 95% CI", "Mean pairwise Cohen kappa", "kappa 95% CI",
    "Kappa weights", "Gwet AC1", "AC1 95% CI", "PABAK", "PABAK 95% CI",
    "Kappa definition", "Kappa (as defined)", "Kappa 95% CI (as defined)",
    "Quadratic-weighted kappa", "Quadratic kappa 95% CI", "Gwet AC2", "AC2 95% CI",
    "Undefined bootstrap resamples dropped",
]


class ReportWriteError(AnnotatorError):
    """An export file cannot be written."""

    def __init__(self, path: Path, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def fmt_pct(value: float | None) -> str:
    """``0.752`` -> ``"75.2%"``; None -> ``"n/a"``."""
    return "n/a" if value is None else f"{100 * value:.1f}%"


def fmt_num(value: float | None) -> str:
    """A coefficient to three decimals; None -> ``"n/a"``."""
    return "n/a" if value is None else f"{value:.3f}"


def fmt_ci(ci: list[float] | None, pct: bool = False) -> str:
    """``[low, high]`` as text; None -> ``"n/a"``."""
    if ci is None:
        return "n/a"
    if pct:
        return f"[{100 * ci[0]:.1f}%, {100 * ci[1]:.1f}%]"
    return f"[{ci[0]:.3f}, {ci[1]:.3f}]"


def _coef(section: Mapping[str, Any], name: str) -> dict[str, Any]:
    found: dict[str, Any] = section["coefficients"][name]
    return found


def _coef_or_none(section: Mapping[str, Any], name: str) -> dict[str, Any]:
    """A coefficient entry; reports written before a coefficient existed give n/a."""
    found: dict[str, Any] = section["coefficients"].get(name) or {"value": None, "ci95": None}
    return found


def kappa_definition(section: Mapping[str, Any]) -> str:
    """What the headline kappa of a family is (older reports: the former fixed definition)."""
    text = section.get("kappa_definition")
    if text:
        return str(text)
    weighted = f"{section['kappa_weights']}-weighted" if section["kappa_weights"] else "unweighted"
    return f"{weighted} Cohen's kappa, mean over annotator pairs"


def _kappa(section: Mapping[str, Any]) -> dict[str, Any]:
    headline = _coef_or_none(section, "kappa")
    if "kappa" not in section["coefficients"]:
        return _coef(section, "mean_pairwise_cohen_kappa")
    return headline


def headline(section: Mapping[str, Any]) -> tuple[float | None, list[float] | None]:
    """The "Annotator agreement" figure: strict pairwise order agreement for exam order
    (pairs that both tie agree trivially), exact agreement otherwise."""
    strict = ((section.get("details") or {}).get("strict_agreement") or {})
    if section["id"] == "order" and strict:
        return strict.get("value"), strict.get("ci95")
    pa = _coef(section, "percent_agreement")
    return pa["value"], pa["ci95"]


def metric_text(section: Mapping[str, Any]) -> str:
    """The "Agreement metric" cell: what the agreement figure is and the headline kappa."""
    kappa = _kappa(section)["value"]
    alpha = _coef(section, "krippendorff_alpha")["value"]
    weighted = f"{section['kappa_weights']}-weighted " if section["kappa_weights"] else ""
    if section["id"] == "order":
        details = section.get("details") or {}
        tau = details.get("kendall_tau_b") or {}
        pa = _coef(section, "percent_agreement")["value"]
        text = ("Strict pairwise order agreement (exam pairs at least one annotator orders)"
                f"; mean Kendall tau-b {fmt_num(tau.get('mean'))}"
                f"; all pairs incl. shared ties {fmt_pct(pa)}")
        return text + (f"; alpha ({section['level']}, both orientations of each pair) = "
                       f"{fmt_num(alpha)}")
    return (f"Exact agreement; {weighted}kappa = {fmt_num(kappa)} "
            f"({kappa_definition(section)}); alpha ({section['level']}) = {fmt_num(alpha)}")


def notes_text(section: Mapping[str, Any]) -> str:
    """The "Notes" cell: n behind the figure (rating pairs, units, cases, conflicts)."""
    text = (f"n = {section['n_rating_pairs']} {section['pair_word']} over "
            f"{section['n_units']} units in {section['n_cases']} cases")
    if section["unit"] == "case":
        text = f"{section['conflict_cases']} conflict cases; " + text
    details = section.get("details") or {}
    tau = details.get("kendall_tau_b")
    if tau:
        text += f"; tau-b undefined in {tau['n_undefined']} of {tau['n_cases']} cases"
    return text


def dropped_text(section: Mapping[str, Any]) -> str:
    """Resamples dropped because a coefficient was undefined there, per coefficient."""
    dropped = {name: c.get("dropped_resamples", 0) for name, c in section["coefficients"].items()}
    shown = [f"{COEFFICIENT_TITLES.get(n, n)} {d}" for n, d in dropped.items() if d]
    return "; ".join(shown) if shown else "none"


def resolved_text(section: Mapping[str, Any]) -> str:
    """The "Resolved by meta-review?" cell: conflict cases already green-lit."""
    if not section["conflict_cases"]:
        return "no conflicts"
    return f"{section['green_lit_conflict_cases']} of {section['conflict_cases']} green-lit"


def table8_rows(report: Mapping[str, Any]) -> list[list[str]]:
    """One row per family in :data:`TABLE8_HEADER` order (the paper's Table 8, extended)."""
    rows = []
    for s in report["families"]:
        alpha = _coef(s, "krippendorff_alpha")
        fleiss, kappa = _coef(s, "fleiss_kappa"), _coef(s, "mean_pairwise_cohen_kappa")
        ac1, pabak = _coef(s, "gwet_ac1"), _coef(s, "pabak")
        value, ci = headline(s)
        chosen, qwk = _kappa(s), _coef_or_none(s, "quadratic_weighted_kappa")
        ac2 = _coef_or_none(s, "gwet_ac2")
        rows.append([
            s["title"], fmt_pct(value), fmt_ci(ci, pct=True), metric_text(s),
            s["most_common_disagreement"] or "none", resolved_text(s), notes_text(s),
            str(s["n_units"]), str(s["n_rating_pairs"]),
            fmt_pct(_coef(s, "unanimity")["value"]),
            fmt_num(alpha["value"]), fmt_ci(alpha["ci95"]), s["level"],
            fmt_num(fleiss["value"]), fmt_ci(fleiss["ci95"]),
            fmt_num(kappa["value"]), fmt_ci(kappa["ci95"]), s["kappa_weights"] or "none",
            fmt_num(ac1["value"]), fmt_ci(ac1["ci95"]),
            fmt_num(pabak["value"]), fmt_ci(pabak["ci95"]),
            kappa_definition(s), fmt_num(chosen["value"]), fmt_ci(chosen["ci95"]),
            fmt_num(qwk["value"]), fmt_ci(qwk["ci95"]), fmt_num(ac2["value"]),
            fmt_ci(ac2["ci95"]), dropped_text(s),
        ])
    return rows


def table7_rows(report: Mapping[str, Any]) -> list[list[str]]:
    """``[metric, value]`` rows of the paper's Table 7 (annotation quantity and quality)."""
    summary = report["summary"]
    by_id = {s["id"]: s for s in report["families"]}
    n = summary["cases"]
    mean = summary["mean_annotations_per_case"]
    rows = [
        ["Total physician annotations (submitted, contributing cases)",
         str(summary["annotations"])],
        ["Mean annotations per candidate case", "n/a" if mean is None else f"{mean:.2f}"],
    ]
    for fid, title in (("importance", "step importance"), ("order", "preferred order"),
                       ("rarity", "rarity"), ("difficulty", "difficulty")):
        s = by_id.get(fid)
        if s is None:
            continue
        pa = fmt_pct(_coef(s, "percent_agreement")["value"])
        if fid == "order":
            tau = ((s.get("details") or {}).get("kendall_tau_b") or {}).get("mean")
            rows.append([f"Agreement on {title}", f"{fmt_pct(headline(s)[0])} strict pairwise"
                         f" (mean Kendall tau-b = {fmt_num(tau)}; all pairs {pa})"])
        else:
            kappa = fmt_num(_kappa(s)["value"])
            rows.append([f"Agreement on {title}",
                         f"{pa} (kappa = {kappa}, {kappa_definition(s)})"])
    rows.append(["Cases with a disagreement (need adjudication)",
                 f"{summary['cases_with_disagreement']}/{n}"])
    rows.append(["Cases with physician corrections of the draft (submitted fixes)",
                 f"{summary['cases_with_draft_corrections']}/{n}"])
    if "cases_with_metadata_marked_wrong" in summary:
        rows.append(["Cases with draft metadata marked not correct (flags, not fixes)",
                     f"{summary['cases_with_metadata_marked_wrong']}/{n}"
                     f" ({summary['metadata_marked_wrong']} marks)"])
    return rows


def find_pair(section: Mapping[str, Any], first: str, second: str) -> dict[str, Any] | None:
    """The pair entry of two annotator labels, in either order (None: no shared unit)."""
    for pair in section["pairs"]:
        if {pair["first"], pair["second"]} == {first, second}:
            found: dict[str, Any] = pair
            return found
    return None


def pair_cell_text(pair: Mapping[str, Any] | None) -> str:
    """``"78.3% · κ 0.412 (n=60)"``; kappa n/a below the shared-unit minimum; "" when none."""
    if pair is None:
        return ""
    return f"{fmt_pct(pair['agreement'])} · κ {fmt_num(pair['cohen_kappa'])} (n={pair['n_shared']})"


def pair_matrix(section: Mapping[str, Any], names: list[str]) -> list[list[str]]:
    """Annotator x annotator cell texts of one family (diagonal "—")."""
    return [
        ["—" if a == b else pair_cell_text(find_pair(section, a, b)) for b in names]
        for a in names
    ]


def csv_text(report: Mapping[str, Any]) -> str:
    """The Table 8 layout as CSV text (header row first)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(TABLE8_HEADER)
    writer.writerows(table8_rows(report))
    return buffer.getvalue()


def write_text(path: Path, text: str) -> Path:
    """Write through a temporary file and ``os.replace`` (never a half-written export)."""
    path = Path(path).expanduser()
    if path.is_dir():
        raise ReportWriteError(path, "is a folder; give a file name")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # Opened with "x" (not mkstemp) so the file gets the user's usual permissions.
        tmp = path.with_name(f".{path.name}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            with tmp.open("x", encoding="utf-8", newline="") as handle:
                handle.write(text)
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
    except OSError as exc:
        raise ReportWriteError(path, f"cannot write ({exc.strerror or exc})") from None
    return path


def write_csv(report: Mapping[str, Any], path: Path) -> Path:
    """Write the Table 8 CSV to ``path``; raises :class:`ReportWriteError`."""
    return write_text(path, csv_text(report))
