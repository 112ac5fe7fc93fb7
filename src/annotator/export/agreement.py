"""The project's agreement report as release files, when the app has the report built in.

The statistics, tables and HTML belong to :mod:`annotator.agreement`; this module asks for
them and keeps the release's promises. The report is computed on the same basis the
curator sees, with two changes made before the computation, not after: annotators are keyed
by their release pseudonym (so "Annotator 1..n" are numbered the same way on every database
back end and in every release) and submission times are left out (a public release states
no calendar weeks of anyone's work). Names never ship.
"""

from __future__ import annotations

import dataclasses
import importlib
from dataclasses import dataclass, field
from typing import Any

from annotator.export.collect import pseudonym
from annotator.export.layout import dump_json
from annotator.services.project import Project


@dataclass
class AgreementPart:
    """What the release carries of the agreement report (``json`` None: not included)."""

    json: bytes | None = None
    html: bytes | None = None
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""


def _optional(module: str, name: str) -> Any:
    try:
        return getattr(importlib.import_module(module), name)
    except (ImportError, AttributeError):
        return None


def release_basis(basis: Any, seed: str) -> Any:
    """The basis keyed by reviewer pseudonyms, without submission times or names."""
    names = {a.key: a.name for a in basis.annotators}

    def key(old: str) -> str:
        return pseudonym(seed, names[old]) if names.get(old) else old

    cases = tuple(
        dataclasses.replace(case, labels={key(k): v for k, v in case.labels.items()},
                            submitted_at={key(k): None for k in case.submitted_at})
        for case in basis.cases
    )
    annotators = tuple(dataclasses.replace(a, key=key(a.key), name="") for a in basis.annotators)
    return dataclasses.replace(basis, cases=cases, annotators=annotators)


def _report(project: Project) -> dict[str, Any] | None:
    load = _optional("annotator.services.agreement", "load_basis")
    build = _optional("annotator.agreement.report", "build_report")
    if load is None or build is None:
        return None
    from annotator.services import agreement_cache
    from annotator.services.agreement import input_rows

    seed = str(project.setting("deid_seed") or "")
    with project.read() as session:
        key = agreement_cache.input_key("release", [seed, input_rows(session)])
        cached = agreement_cache.lookup(session, "release", key)
        if cached is not None:
            return cached
        basis = load(session)
    report: dict[str, Any] = build(release_basis(basis, seed))
    return agreement_cache.store(project, "release", key, report)


def release_agreement(project: Project) -> AgreementPart:
    """The agreement report for a release, or an empty part whose ``note`` says why.

    The caller checks that the actor is a curator (the report is theirs to publish).
    """
    report = _report(project)
    if report is None:
        return AgreementPart(note="The agreement report is not available in this version of"
                                  " the app; this release does not include it.")
    part = AgreementPart(json=dump_json(report))
    render = _optional("annotator.agreement.html_report", "render_html")
    if render is not None:
        part.html = str(render(report)).encode("utf-8")
    header = _optional("annotator.agreement.tables", "TABLE8_HEADER")
    rows = _optional("annotator.agreement.tables", "table8_rows")
    if header is not None and rows is not None:
        part.header = [str(h) for h in header[:7]]
        part.rows = [[str(c) for c in row[:7]] for row in rows(report)]
    part.note = (
        "Agreement on the labels as submitted, before adjudication (agreement/agreement.json"
        + (", agreement/agreement.html" if part.html else "")
        + "; all coefficients with their 95% intervals are there). Annotators are numbered in"
        " the order of their pseudonyms; names and submission dates are not released."
    )
    return part
