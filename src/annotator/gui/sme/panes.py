"""Rich text of the SME page: item panes, the field-level diff, the benchmark card and the
SME's verdict beside the automated one. Pure functions of the service's views (no Qt)."""

from __future__ import annotations

import html
import json
from typing import Any

from annotator.gui import theme
from annotator.services.sme.review import BenchmarkCard, Pane
from annotator.sme.diff import FieldDiff

e = html.escape
VERDICT_ROWS = (
    ("applicability", "Applicability"),
    ("exclusion_clause", "Exclusion clause"),
    ("outcome", "Outcome"),
    ("flag_condition", "Failed condition"),
    ("failure_reason", "Failure reason"),
    ("score", "Score"),
    ("rationale", "Rationale"),
)


def _num(value: float) -> str:
    return f"{value:g}"


def pane_html(title: str, pane: Pane | None) -> str:
    """One of input / ground truth / output; JSON is already pretty-printed by the core."""
    if pane is None:
        return f"<h4>{e(title)}</h4><p><i>none given</i></p>"
    kind = " <small>(JSON)</small>" if pane.is_json else ""
    body = (
        f"<pre style='white-space: pre-wrap'>{e(pane.text)}</pre>"
        if pane.is_json
        else f"<p style='white-space: pre-wrap'>{e(pane.text)}</p>"
    )
    return f"<h4>{e(title)}{kind}</h4>{body}"


def _short(value: Any) -> str:
    return "—" if value is None else e(str(value))


def _side(value: Any, present: bool) -> str:
    """A diff cell: JSON null where the side has the field, a dash where it has none."""
    if not present:
        return "—"
    return "null" if value is None else e(json.dumps(value, ensure_ascii=False))


def _kind_colour(kind: str) -> str:
    """changed / missing / extra, in the theme's colours (its text colour for anything else)."""
    return theme.colour(f"diff_{kind}" if kind in ("changed", "missing", "extra") else "text")


def diff_html(diff: list[FieldDiff] | None) -> str:
    """The field-level difference of ground truth and output ('' when not both JSON)."""
    if diff is None:
        return ""
    if not diff:
        return "<p><b>Field-level difference:</b> the output matches the ground truth.</p>"
    rows = "".join(
        f"<tr><td><code>{e(d.path)}</code></td>"
        f"<td style='color:{_kind_colour(d.kind)}'>{e(d.kind)}</td>"
        f"<td>{_side(d.ground_truth, d.kind != 'extra')}</td>"
        f"<td>{_side(d.output, d.kind != 'missing')}</td></tr>"
        for d in diff
    )
    return (
        f"<p><b>Field-level difference</b> ({len(diff)} field(s))</p>"
        "<table cellspacing='0' cellpadding='3' border='1' width='100%'>"
        "<tr><th align='left'>field</th><th align='left'>kind</th>"
        "<th align='left'>ground truth</th><th align='left'>output</th></tr>"
        f"{rows}</table>"
    )


def card_html(card: BenchmarkCard) -> str:
    """The benchmark the SME judges against: label, concept, criteria, scale, examples."""
    levels = "".join(
        f"<tr><td align='right'><b>{i}</b></td><td align='right'>{_num(lv.value)}</td>"
        f"<td>{e(lv.description)}</td></tr>"
        for i, lv in enumerate(card.levels, start=1)
    )
    threshold = "" if card.threshold is None else f" · threshold {_num(card.threshold)}"
    flag = (
        f"<p><b>Flag if</b> {e(card.flag_if)}</p>"
        if card.flag_if
        else "<p><i>No “Flag if” clause: a flagged verdict gives a failure reason.</i></p>"
    )
    examples = "".join(f"<li>{e(x)}</li>" for x in card.examples) or "<li>—</li>"
    return (
        f"<h3>{e(card.code)} · {e(card.label)}</h3>"
        f"<p><small>rubric {e(card.parent_rubric)} · {e(card.evaluator_type)} · "
        f"version {card.version}</small></p>"
        f"<p><b>Concept.</b> {e(card.concept)}</p>"
        f"<p><b>Inclusion.</b> {e(card.apply_when)}</p>{flag}"
        f"<p><b>Exclusion.</b> {e(card.exclusion_criteria)}</p>"
        f"<p><b>Scale</b> {_num(card.min_value)}..{_num(card.max_value)}{threshold} "
        "<small>(key = level)</small></p>"
        f"<table cellpadding='2'>{levels}</table>"
        f"<p><b>Examples</b></p><ul>{examples}</ul>"
    )


def _automated_value(automated: dict[str, Any], key: str) -> Any:
    if key == "outcome" and "outcome" not in automated and "passed" in automated:
        return "pass" if automated["passed"] else "flag"
    return automated.get(key)


def verdicts_html(mine: dict[str, Any], automated: dict[str, Any] | None) -> str:
    """The submitted verdict, and beside it the automated one of a hybrid benchmark."""
    head = "<tr><th></th><th align='left'>your verdict</th>"
    if automated is not None:
        judge = automated.get("judge") or "automated"
        head += f"<th align='left'>{e(str(judge))} (automated)</th>"
    rows = ""
    for key, title in VERDICT_ROWS:
        theirs = None if automated is None else _automated_value(automated, key)
        if mine.get(key) is None and theirs is None:
            continue
        rows += f"<tr><td><b>{e(title)}</b></td><td>{_short(mine.get(key))}</td>"
        if automated is not None:
            rows += f"<td>{_short(theirs)}</td>"
        rows += "</tr>"
    return f"<table cellpadding='3' border='1' cellspacing='0'>{head}</tr>{rows}</table>"
