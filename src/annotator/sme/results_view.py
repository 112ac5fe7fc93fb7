"""The SME results as people read them: the rows of the app's results tab and its reliability
table. The tab (``gui/sme/results_tab.py``) and the HTML report (``sme.report``) both show
these, so the page a curator sends round reads like the tab they looked at."""

from __future__ import annotations

import html
from typing import Any

from annotator.agreement.intervals import TOO_FEW, Interval, interval_text
from annotator.sme.consistency import CRONBACH_MIN_CASES
from annotator.sme.results import BenchmarkResult, SmeResults

COLUMNS = [
    "rubric / benchmark", "weight", "items", "applicable", "pass rate [95% CI] n",
    "score [95% CI] n", "threshold", "threshold decision", "ICC", "κ pass/flag",
    "reliability flags",
]  # fmt: skip
FLAG_COLOUR = "#c0392b"


def num(value: float | None) -> str:
    """A figure rounded to two decimals, or a dash where there is none."""
    return "–" if value is None else f"{value:.2f}"


def with_ci(value: float | None, ci: tuple[float, float] | None, n: int) -> str:
    """``0.83 [0.70, 0.95] n=12``, or the figure with "too few to estimate" and its n."""
    return interval_text(value, None if ci is None else Interval(ci[0], ci[1], n), n)


def _items(b: BenchmarkResult) -> str:
    open_ = [f"{count} {word}" for count, word in ((b.undecided, "undecided"),
                                                   (b.unsubmitted, "unsubmitted")) if count]
    return f"{b.items} (+{', '.join(open_)})" if open_ else str(b.items)


def table_rows(results: SmeResults) -> list[tuple[bool, list[str], bool]]:
    """(is_rubric, cells, flagged) rows under ``COLUMNS``: each rubric, then its benchmarks."""
    checks = {r.code: r for r in results.reliability}
    out: list[tuple[bool, list[str], bool]] = []
    for rubric in results.rubrics:
        out.append(
            (True, [f"{rubric.code} (weighted)",
                    f"{rubric.weight_scored:g} ({rubric.weight_covered:.0%} covered)", "", "",
                    "", with_ci(rubric.score, rubric.score_ci, rubric.score_n), "", "", "", "",
                    rubric.cronbach.flag or ""], bool(rubric.cronbach.flag))
        )  # fmt: skip
        for b in (b for b in results.benchmarks if b.parent_rubric == rubric.code):
            rel = checks.get(b.code)
            kappa = None if rel is None else rel.kappa.get("outcome")
            flags = "; ".join(rel.flags) if rel else ""
            out.append(
                (False, [f"  {b.code} · {b.label}", f"{b.weight:g}", _items(b),
                         str(b.applicable), with_ci(b.pass_rate, b.pass_rate_ci, b.pass_rate_n),
                         with_ci(b.score, b.score_ci, b.score_n), num(b.threshold),
                         b.threshold_decision or "–", num(rel.icc if rel else None),
                         num(kappa), flags], bool(flags))
            )  # fmt: skip
    return out


def _cell(
    value: float | None, ci: dict[str, Any], family: str, stat: str, n: int | None = None
) -> str:
    """A right-aligned figure with its 95% CI (when the core gives one) and n below it."""
    interval = (ci.get(family) or {}).get(stat)
    below = (
        ""
        if value is None or interval is None
        else f"<br><small>[{interval[0]:.2f}, {interval[1]:.2f}]</small>"
    )
    count = "" if n is None else f"<br><small>n={n}</small>"
    return f"<td align='right'>{num(value)}{below}{count}</td>"


RELIABILITY_CAPTION = (
    "Reliability (items with 2+ SME verdicts; 95% CI below each figure; ICC flagged "
    "'below 0.75' when its interval is under 0.75, 'possibly below' when it straddles, not "
    "from fewer than 10 tasks)"
)
CONSISTENCY_CAPTION = (
    "Rubric consistency: Cronbach's alpha with each benchmark an item and each test case "
    "scored on all of them a subject (ADF 95% CI on ln(1 - α), from "
    f"{CRONBACH_MIN_CASES} cases, 'too few to estimate' under that; flagged against 0.7 "
    "only from its CI)"
)


def reliability_rows(results: SmeResults, flag_colour: str = FLAG_COLOUR) -> str:
    """The reliability table's header and rows (HTML): per benchmark, kappa and alpha on
    applicability and pass/flag, ICC and interval alpha on scores, and SME vs automated
    agreement (hybrid); flags in red on a row of their own."""
    head = (
        "<tr><th align='left'>code</th><th>κ appl.</th><th>α appl.</th><th>κ pass/flag</th>"
        "<th>α pass/flag</th><th>ICC (n)</th><th>α score</th>"
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
            _cell(r.alpha.get("applicability"), ci, "applicability", "alpha",
                  r.units.get("applicability")),
            _cell(r.kappa.get("outcome"), ci, "outcome", "kappa"),
            _cell(r.alpha.get("outcome"), ci, "outcome", "alpha", r.units.get("outcome")),
            _cell(r.icc, ci, "score", "icc", r.icc_units),
            _cell(r.alpha.get("score"), ci, "score", "alpha", r.units.get("score")),
        )
        rows += (
            f"<tr><td>{html.escape(r.code)}</td>"
            + "".join(cells)
            + f"<td align='right'>{versus}</td></tr>"
        )
        if r.flags:
            rows += (
                f"<tr><td></td><td colspan='7' style='color:{flag_colour}'>"
                f"⚠ {html.escape('; '.join(r.flags))}</td></tr>"
            )
    return head + rows


def consistency_rows(results: SmeResults, flag_colour: str = FLAG_COLOUR) -> str:
    """Each rubric's Cronbach's alpha with its ADF interval (or "too few to estimate"),
    cases and flag (HTML rows)."""
    head = "<tr><th>rubric</th><th>Cronbach α</th><th>cases</th><th>flag</th></tr>"
    return head + "".join(
        f"<tr><td>{html.escape(r.code)}</td>"
        + (_cell(r.cronbach.value, {"c": {"a": r.cronbach.ci}}, "c", "a")
           if r.cronbach.ci is not None or r.cronbach.value is None
           else f"<td align='right'>{num(r.cronbach.value)}<br><small>{TOO_FEW}</small></td>")
        + f"<td align='right'>{r.cronbach.cases}</td>"
        f"<td style='color:{flag_colour}'>{html.escape(r.cronbach.flag or '')}</td></tr>"
        for r in results.rubrics
    )


def reliability_html(results: SmeResults, flag_colour: str = FLAG_COLOUR) -> str:
    """The reliability and rubric-consistency tables as the app's tab shows them;
    ``flag_colour`` for flags, the app's theme's own on screen."""
    table = "<table cellspacing='0' cellpadding='3' border='1' width='100%'>"
    return (
        f"<p><b>{RELIABILITY_CAPTION}</b></p>{table}"
        f"{reliability_rows(results, flag_colour)}</table>"
        f"<p><b>{CONSISTENCY_CAPTION}</b></p>{table}{consistency_rows(results, flag_colour)}"
        "</table>"
    )


def basis_rows(results: SmeResults) -> list[tuple[str, str]]:
    """How the figures were computed, as labelled sentences (not the JSON basis)."""
    basis = results.basis
    return [
        ("Reference verdict", str(basis["reference"])),
        ("Pass-rate interval", f"{basis['confidence']:.0%} {basis['pass_rate_interval']}; "
         f"{basis['below_minimum']} below {basis['min_items_for_ci']['pass_rate']} items"),
        ("Score interval", f"{basis['score_interval']} ({basis['n_resamples']:,} resamples, "
         f"seed {basis['seed']}); {basis['below_minimum']} below "
         f"{basis['min_items_for_ci']['score']} items"),
        ("Threshold decision", str(basis["threshold_rule"])),
        ("Rubric weights", str(basis["rubric_weights"])),
        ("Score reliability", f"{basis['icc_form']} (each task's SMEs come from a larger pool); "
         f"{basis['reliability_flags']}"),
        ("Cronbach's item", str(basis["cronbach_item"])),
        ("Cronbach's interval", str(basis["cronbach_interval"])),
    ]
