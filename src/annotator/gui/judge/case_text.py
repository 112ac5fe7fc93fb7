"""The case and the model's output as rich text (no judge score, no model name)."""

from __future__ import annotations

import html

from annotator.judging.rubrics import reference_answer
from annotator.services.judging.scoring import ScoringView


def case_html(view: ScoringView) -> str:
    e = html.escape
    payload = view.case_payload
    options = "".join(
        f"<li>{e(str(o))}</li>" for o in payload.get("reference_differential_options", [])
    )
    differential = "".join(
        f"<tr><td>{i}.</td><td>{e(str(d.get('diagnosis', '')))}</td>"
        f"<td align='right'>{float(d.get('probability') or 0):.2f}</td></tr>"
        for i, d in enumerate(view.differential, start=1)
    )
    where = view.location
    location = ", ".join(
        f"{k}: {e(str(where.get(k) or '—'))}" for k in ("laterality", "region", "substructure")
    )
    trajectory = "".join(f"<li>{e(d)}</li>" for d in view.trajectory)
    linked = (
        "<p><i>Not a case of this project: shown from the run alone.</i></p>"
        if view.linked_images is None
        else f"<p><i>Case of this project ({view.linked_images} image(s); "
        "open it on the Annotate page to read them).</i></p>"
    )
    return (
        f"<h3>{e(view.title)} · case {e(view.case_id)}</h3>"
        f"{linked}<p><b>History.</b> {e(view.history) or '—'}</p>"
        f"<p><b>Reference diagnosis.</b> {e(reference_answer(payload, 'diagnosis'))}</p>"
        f"<p><b>Reference localisation.</b> {e(reference_answer(payload, 'localization'))}</p>"
        f"<p><b>Reference differential options</b></p><ul>{options}</ul>"
        "<hr><h3>Model output</h3>"
        f"<p><b>Top diagnosis.</b> {e(view.top_diagnosis) or '—'}</p>"
        f"<p><b>Differential</b></p><table>{differential}</table>"
        f"<p><b>Localisation.</b> {location}</p>"
        f"<p><b>Unique diagnoses of the trajectory</b></p><ul>{trajectory}</ul>"
    )


def judges_html(judges: dict[str, dict[str, dict[str, object]]], mine: dict[str, object]) -> str:
    """The judges' scores and reasons beside the physician's, after submit."""
    e = html.escape
    keys = list(mine)
    head = "".join(f"<th>{e(m)}</th>" for m in judges)
    rows = ""
    for key in keys:
        cells = "".join(
            f"<td>{e(str(j['scores'].get(key, '—')))}"
            f"<br><small>{e(str(j['reasons'].get(key, '')))}</small></td>"
            for j in judges.values()
        )
        rows += f"<tr><td>{e(key)}</td><td><b>{e(str(mine[key]))}</b></td>{cells}</tr>"
    head = f"<tr><th>target</th><th>you</th>{head}</tr>"
    return f"<table border='1' cellpadding='3'>{head}{rows}</table>"
