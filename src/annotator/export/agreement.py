"""The project's agreement report as release files, when the app has the report built in.

The statistics, tables and HTML belong to :mod:`annotator.agreement`; the agreement service
computes them and this module keeps the release's promises. The report is computed on the
same basis the curator sees, with two changes made before the computation, not after:
annotators are keyed by their release pseudonym (so "Annotator 1..n" are numbered the same
way on every database back end and in every release) and submission times are left out (a
public release states no calendar weeks of anyone's work). Names never ship.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Collection, Sequence
from dataclasses import dataclass, field
from typing import Any

from annotator.export.layout import dump_json
from annotator.export.release_input import pseudonym


@dataclass
class AgreementPart:
    """What the release carries of the agreement report (``json`` None: not included)."""

    json: bytes | None = None
    html: bytes | None = None
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    note: str = ""


def release_basis(basis: Any, seed: str, released: Collection[str] | None = None) -> Any:
    """The basis keyed by reviewer pseudonyms, without submission times or names.

    With ``released``, only those cases remain (and only their exam-level exclusions): the
    released report names no case that is not in the release.
    """
    names = {a.key: a.name for a in basis.annotators}
    if released is not None:
        keep = set(released)
        basis = dataclasses.replace(
            basis, cases=tuple(c for c in basis.cases if c.case_id in keep),
            exclusions=tuple(e for e in basis.exclusions if e.case_id in keep and e.figure),
            cases_total=len(keep))

    def key(old: str) -> str:
        return pseudonym(seed, names[old]) if names.get(old) else old

    cases = tuple(
        dataclasses.replace(case, labels={key(k): v for k, v in case.labels.items()},
                            submitted_at={key(k): None for k in case.submitted_at})
        for case in basis.cases
    )
    annotators = tuple(dataclasses.replace(a, key=key(a.key), name="") for a in basis.annotators)
    return dataclasses.replace(basis, cases=cases, annotators=annotators)


def _kappa_words(report: dict[str, Any]) -> str:
    """The kappa definition the report used (for the card's agreement note)."""
    options = (report.get("basis") or {}).get("options") or {}
    return str(options.get("kappa_definition") or "")


def release_agreement(
    report: dict[str, Any] | None,
    *,
    html: str | None = None,
    header: Sequence[str] = (),
    rows: Sequence[Sequence[str]] = (),
) -> AgreementPart:
    """The release's part of the agreement ``report``, or an empty part whose ``note`` says why.

    The agreement service computes the report on the released cases' basis as
    :func:`release_basis` shapes it, and renders its HTML and Table 8 rows (``header``,
    ``rows``); the caller checks that the actor is a curator.
    """
    if report is None:
        return AgreementPart(note="The agreement report is not available in this version of"
                                  " the app; this release does not include it.")
    part = AgreementPart(json=dump_json(report))
    if html is not None:
        part.html = html.encode("utf-8")
    part.header = [str(h) for h in header[:7]]
    part.rows = [[str(c) for c in row[:7]] for row in rows]
    part.note = (
        "Agreement on the released cases' labels as submitted, before adjudication"
        " (agreement/agreement.json"
        + (", agreement/agreement.html" if part.html else "")
        + "; all coefficients with their 95% intervals are there). Annotators are numbered in"
        " the order of their pseudonyms; names and submission dates are not released."
        + (f" Kappa: {kappa}." if (kappa := _kappa_words(report)) else "")
    )
    return part
