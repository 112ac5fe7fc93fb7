"""The SME results as people read them: the rows of the app's results tab and its reliability
table. The tab (``gui/sme/results_tab.py``) and the HTML report (``sme.report``) both show
these, so the page a curator sends round reads like the tab they looked at."""

from __future__ import annotations

import html
from typing import Any

from annotator.sme.results import SmeResults

COLUMNS = [
    "rubric / benchmark", "weight", "items", "applicable", "pass rate [95% CI]",
    "score [95% CI]", "threshold", "met", "ICC", "κ pass/flag", "reliability flags",
]  # fmt: skip
FLAG_COLOUR = "#c0392b"


def num(value: float | None) -> str:
    """A figure rounded to two decimals, or a dash where there is none."""
    return "–" if value is None else f"{value:.2f}"


def with_ci(value: float | None, ci: tuple[float, float] | None) -> str:
    if value is None:
        return "–"
    return num(value) + ("" if ci is None else f" [{ci[0]:.2f}, {ci[1]:.2f}]")


def table_rows(results: SmeResults) -> list[tuple[bool, list[str], bool]]:
    """(is_rubric, cells, flagged) rows under ``COLUMNS``: each rubric, then its benchmarks."""
    checks = {r.code: r for r in results.reliability}
    out: list[tuple[bool, list[str], bool]] = []
    for rubric in results.rubrics:
        out.append(
            (True, [f"{rubric.code} (weighted)", f"{rubric.weight_scored:g}", "", "", "",
                    with_ci(rubric.score, rubric.score_ci), "", "", "", "", ""], False)
        )  # fmt: skip
        for b in (b for b in results.benchmarks if b.parent_rubric == rubric.code):
            rel = checks.get(b.code)
            met = "–" if b.threshold_met is None else ("yes" if b.threshold_met else "no")
            kappa = None if rel is None else rel.kappa.get("outcome")
            flags = "; ".join(rel.flags) if rel else ""
            out.append(
                (False, [f"  {b.code} · {b.label}", f"{b.weight:g}",
                         f"{b.items} (+{b.unresolved} open)" if b.unresolved else str(b.items),
                         str(b.applicable), with_ci(b.pass_rate, b.pass_rate_ci),
                         with_ci(b.score, b.score_ci), num(b.threshold), met,
                         num(rel.icc if rel else None), num(kappa), flags], bool(flags))
            )  # fmt: skip
    return out


def _cell(value: float | None, ci: dict[str, Any], family: str, stat: str) -> str:
    """A right-aligned figure with its 95% CI (when the core gives one) below it."""
    interval = (ci.get(family) or {}).get(stat)
    below = (
        ""
        if value is None or interval is None
        else f"<br><small>[{interval[0]:.2f}, {interval[1]:.2f}]</small>"
    )
    return f"<td align='right'>{num(value)}{below}</td>"


RELIABILITY_CAPTION = (
    "Reliability (items with 2+ SME verdicts; 95% CI below each figure; "
    "flagged: ICC &lt; 0.75, Cronbach α &lt; 0.7)"
)


def reliability_rows(results: SmeResults, flag_colour: str = FLAG_COLOUR) -> str:
    """The reliability table's header and rows (HTML): per benchmark, kappa and alpha on
    applicability and pass/flag, ICC and interval alpha on scores, Cronbach's alpha, and SME vs
    automated agreement (hybrid); flags in red on a row of their own."""
    head = (
        "<tr><th align='left'>code</th><th>κ appl.</th><th>α appl.</th><th>κ pass/flag</th>"
        "<th>α pass/flag</th><th>ICC</th><th>α score</th><th>Cronbach</th>"
        "<th>vs auto κ / qwk</th></tr>"
    )
    rows = ""
    for r in results.reliability:
        auto = r.automated or {}
        versus = (
            f"{num(auto.get('outcome_kappa'))} / {num(auto.get('score_weighted_kappa'))}"
            if r.automated
            else "–"
        )
        ci = r.ci or {}
        cells = (
            _cell(r.kappa.get("applicability"), ci, "applicability", "kappa"),
            _cell(r.alpha.get("applicability"), ci, "applicability", "alpha"),
            _cell(r.kappa.get("outcome"), ci, "outcome", "kappa"),
            _cell(r.alpha.get("outcome"), ci, "outcome", "alpha"),
            _cell(r.icc, ci, "score", "icc"),
            _cell(r.alpha.get("score"), ci, "score", "alpha"),
            _cell(r.cronbach, ci, "", ""),
        )
        rows += (
            f"<tr><td>{html.escape(r.code)}</td>"
            + "".join(cells)
            + f"<td align='right'>{versus}</td></tr>"
        )
        if r.flags:
            rows += (
                f"<tr><td></td><td colspan='8' style='color:{flag_colour}'>"
                f"⚠ {html.escape('; '.join(r.flags))}</td></tr>"
            )
    return head + rows


def reliability_html(results: SmeResults, flag_colour: str = FLAG_COLOUR) -> str:
    """The reliability table as the app's tab shows it (a caption line above the table);
    ``flag_colour`` for flags, the app's theme's own on screen."""
    return (
        f"<p><b>{RELIABILITY_CAPTION}</b></p>"
        "<table cellspacing='0' cellpadding='3' border='1' width='100%'>"
        f"{reliability_rows(results, flag_colour)}</table>"
    )


def basis_rows(results: SmeResults) -> list[tuple[str, str]]:
    """How the figures were computed, as labelled sentences (not the JSON basis)."""
    basis = results.basis
    return [
        ("Reference verdict", str(basis["reference"])),
        ("Confidence intervals", f"{basis['confidence']:.0%} percentile bootstrap over items, "
         f"{basis['n_resamples']:,} bootstrap resamples, seed {basis['seed']}; none below "
         f"{basis['min_items_for_ci']} items"),
        ("Score reliability", f"{basis['icc_form']} (each task's SMEs come from a larger pool)"),
    ]
