"""The benchmark card (Markdown): the paper's Appendix K fields, filled from the release.

Counts come from :mod:`annotator.export.counts` and are printed in one table whose labels
``validate`` reads back; the prose comes from the card settings the curator edits.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass
from typing import Any

from annotator.domain.labels import REASON_CODES
from annotator.export.counts import COUNT_LABELS
from annotator.export.licences import LicenceCheck, check_licences
from annotator.export.release_input import HeldBack
from annotator.export.settings import ORIGINAL_HISTORY_KEY, CardSettings

NOT_STATED = "not stated"
COUNTS_HEADING = "## Counts"
HISTORY_HEAD_LABEL = "History chain head"


@dataclass
class CardInput:
    settings: CardSettings
    date: str | None
    counts: dict[str, int]
    distributions: dict[str, dict[str, int]]
    excluded: list[HeldBack]
    held_back: list[HeldBack]
    annotators: int
    adjudicators: int
    reviewers_per_case: str
    dicom_rendered: int
    policies: list[str]
    licences: Counter[str]
    agreement_header: list[str]
    agreement_rows: list[list[str]]
    agreement_note: str
    files: list[str]
    include_comments: bool
    diff: dict[str, Any] | None = None
    history_head: str = ""


def _cell(text: object) -> str:
    return re.sub(r"\s+", " ", str(text)).replace("|", "\\|").strip()


def _table(header: list[str], rows: list[list[Any]]) -> list[str]:
    lines = ["| " + " | ".join(_cell(h) for h in header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _prose(text: str) -> str:
    return text.strip() or f"_{NOT_STATED}_"


def _distribution(dist: dict[str, int]) -> str:
    return ", ".join(f"{n} {label.replace('_', ' ')}" for label, n in dist.items())


def render_card(card: CardInput) -> str:
    """The card's Markdown text (deterministic: no clock, sorted inputs)."""
    s = card.settings
    out = [f"# {s.name} v{s.version}: benchmark card", ""]
    if s.description.strip():
        out += [s.description.strip(), ""]
    out += ["## Identity", ""]
    out += _table(["Field", "Value"], [
        ["Benchmark", s.name], ["Version", s.version],
        ["Release date", card.date or NOT_STATED], ["Clinical domain", s.domain or NOT_STATED],
        ["Source collection", s.source_collection or NOT_STATED],
        ["Source licence", s.source_license or NOT_STATED],
        ["Source publication dates", s.source_dates or NOT_STATED],
        ["Licence", s.license or NOT_STATED],
        ["Licence compatibility", licence_check(card).summary],
        ["Cite as", s.citation or NOT_STATED],
        ["Issue contact", s.contact or NOT_STATED],
        ["Validation status", s.validation_status or NOT_STATED],
        ["Leakage-audit status", s.leakage_audit or NOT_STATED],
    ])
    out += ["", COUNTS_HEADING, ""]
    out += _table(["Quantity", "Count"],
                  [[label, card.counts[key]] for key, label in COUNT_LABELS.items()])
    out += ["", "## Access and code", "",
            f"- Dataset: {s.dataset_url or NOT_STATED}",
            f"- Scoring code: {s.code_url or NOT_STATED}",
            "- Files in this release (checksums in `MANIFEST.sha256`): "
            + ", ".join(f"`{f}`" for f in card.files), ""]
    out += ["## Provenance", "",
            "Source case URLs (`source_url`), captions and image attribution are stored in"
            " `release.json`, `images.csv` and `ATTRIBUTION.tsv`. Each case carries"
            " `annotator_provenance`: the imported revision and its content hash, pseudonymous"
            " reviewer ids, the items resolved by unanimity, the adjudications with their"
            " reason codes, and the green light."
            + ("" if card.include_comments else " Free-text comments are not released."), "",
            _history_text(s), ""]
    if card.history_head:
        out += [f"{HISTORY_HEAD_LABEL}: `{card.history_head}`. Every edit behind this release is"
                " attributed in the project's append-only history, whose rows form a SHA-256"
                " hash chain; this was its head at export. `annotator validate RELEASE --project"
                " PROJECT` checks that the project's history still contains it.", ""]
    out += _team(card)
    out += _filtering(card)
    out += _labels(card)
    out += ["## Agreement", "", card.agreement_note, ""]
    if card.agreement_rows:
        out += _table(card.agreement_header, card.agreement_rows) + [""]
    out += ["## Evaluation protocol", "",
            "Agent input, request budget, reveal unit, judge and metrics are reported per run by"
            " the scoring core; they are not part of this data release.", "",
            "## Croissant and Responsible-AI metadata", "",
            "`croissant.json`: Croissant 1.1 metadata with every distributed file's SHA-256,"
            " record sets for cases (with their exams, steps, preferred order and rubrics),"
            " images and these counts, the licence, and the"
            " Responsible-AI (`rai:`) fields below as text.", ""]
    out += _licences(card)
    for title, text in (("Intended use", s.intended_use), ("Non-use", s.non_use),
                        ("Risks and limitations", s.risks), ("Known biases", s.biases),
                        ("Licence and maintenance", f"{s.license or NOT_STATED}. {s.maintenance}"),
                        ("Contact", s.contact), ("Changelog", s.changelog)):
        out += [f"## {title}", "", _prose(text), ""]
    out += ["## Privacy", "",
            "Images were de-identified at import (DICOM names, ids and UIDs replaced, dates"
            " shifted, private tags removed; PNG/JPEG metadata stripped) and checked again at"
            " export, together with the release text (no user names). Text burned into the"
            " pixels is not detected automatically.", ""]
    if card.diff is not None:
        out += _diff(card.diff)
    return "\n".join(out).rstrip() + "\n"


def source_licences(card: CardInput) -> Counter[str]:
    """Every licence the release derives from: the source collection's and the images'."""
    sources = Counter({lic: n for lic, n in card.licences.items() if lic != NOT_STATED})
    if card.settings.source_license:
        sources[card.settings.source_license] += card.counts.get("released_cases", 0) or 1
    return sources


def licence_check(card: CardInput) -> LicenceCheck:
    """The release licence against every source licence (see :mod:`.licences`)."""
    return check_licences(card.settings.license, source_licences(card))


def _licences(card: CardInput) -> list[str]:
    check = licence_check(card)
    out = ["## Licence compatibility", "",
           f"Release licence {card.settings.license or NOT_STATED}: {check.summary}."]
    if not card.settings.source_license:
        out.append(" The source collection's licence is not stated; only image licences were"
                   " checked.")
    out.append("")
    out += [f"- {line}" for line in check.lines]
    unlicensed = card.licences.get(NOT_STATED, 0)
    if unlicensed:
        out.append(f"- {unlicensed} image(s) without a stated licence: not checked")
    return out + [""]


def _history_text(s: CardSettings) -> str:
    if s.ships_original_history:
        return (f"`{ORIGINAL_HISTORY_KEY}` (the source's unredacted case text, longer than the"
                " `clinical_history` models see) IS released with every case, by the project's"
                " export setting.")
    return (f"`{ORIGINAL_HISTORY_KEY}` (the source's unredacted case text) is NOT released"
            " (project export setting: withheld); models see `clinical_history` only.")


def _team(card: CardInput) -> list[str]:
    return ["## Annotation team and adjudication policy", "",
            _prose(card.settings.team), "",
            f"- {card.annotators} physician reviewer(s) annotated the released cases,"
            f" {card.reviewers_per_case} per case, independently and blind to each other;"
            f" {card.adjudicators} adjudicator(s) decided conflicts and gave green lights."
            " Reviewers appear only as pseudonyms (`reviewer-xxxxxxxx`).",
            "- Items on which all reviewers agree are resolved automatically; every other item"
            " is decided by an adjudicator who did not annotate the case, with a reason code ("
            + ", ".join(REASON_CODES) + ").",
            "- A case is green-lit only when no conflict is open and its final content passes"
            " the release checks (one step per exam, integer stages, images present, object"
            " Localisation reference, at least one essential exam the scorer uses).", ""]


def _filtering(card: CardInput) -> list[str]:
    out = ["## Release filtering", "",
           f"{card.counts['annotated_candidates']} annotated candidates;"
           f" {card.counts['excluded_cases']} excluded; {card.counts['held_back_cases']} held"
           f" back (not green-lit); {card.counts['released_cases']} released. Exclusions are"
           " listed in `excluded.csv`.", ""]
    if card.excluded:
        out += _table(["Excluded case", "Reason code", "Reason"],
                      [[h.case_id, h.reason_code, h.reason] for h in card.excluded]) + [""]
    states = Counter(h.state.replace("_", " ") for h in card.held_back)
    if states:
        out += ["Held back: " + ", ".join(f"{n} {s}" for s, n in sorted(states.items())), ""]
    return out


def _labels(card: CardInput) -> list[str]:
    d = card.distributions
    licences = ", ".join(f"{n} {lic}" for lic, n in sorted(card.licences.items())) or "none"
    return ["## Labels", "",
            f"- Difficulty: {_distribution(d['difficulty'])}.",
            f"- Rarity: {_distribution(d['rarity'])}.",
            f"- Diagnostic steps (one per exam): {_distribution(d['importance'])}. Only"
            " `essential` counts as essential for the scorer; `unnecessary` is kept as the"
            " physicians' label and scores as optional.",
            "- Preferred order: integer stages, a partial order (equal stages are ties, null is"
            " unranked), from the reviewers' order boards and adjudication.",
            "- Exam metadata (`modality`, `acquisition`, `view`, `imaged_region`, `contrast`,"
            " `time_past`) and captions as corrected in review.",
            "- Rubrics: `rubric_0_to_3.Diagnosis` and `rubric_0_to_3.Localisation` (British"
            " spelling; the Localisation reference is an object of three fields).", "",
            "## Images", "",
            f"{card.counts['images']} images; {card.dicom_rendered} DICOM image(s) shipped as PNG"
            " renditions (settings per image in `images.csv`)"
            + (": " + "; ".join(card.policies) if card.policies else "") + ".",
            f"Licences: {licences}.", ""]


def _diff(diff: dict[str, Any]) -> list[str]:
    previous = diff.get("previous_version") or "the previous release"
    return [f"## Changes since {previous}", "",
            f"- Cases added: {len(diff['cases_added'])}; removed: {len(diff['cases_removed'])};"
            f" changed: {len(diff['cases_changed'])}; images changed:"
            f" {len(diff['images_changed'])}. Details in `diff.json`.", ""]


def card_counts(text: str) -> dict[str, int]:
    """The counts table of a card, read back: label -> number (for ``validate``)."""
    labels = {label: key for key, label in COUNT_LABELS.items()}
    found: dict[str, int] = {}
    for line in text.splitlines():
        match = re.match(r"^\|\s*(.+?)\s*\|\s*(\d+)\s*\|\s*$", line)
        if match and match.group(1) in labels:
            found[labels[match.group(1)]] = int(match.group(2))
    return found


def card_history_head(text: str) -> str | None:
    """The history chain head a card states (for ``validate``), or None."""
    found = re.search(rf"^{HISTORY_HEAD_LABEL}: `([0-9a-f]{{64}})`", text, re.M)
    return found.group(1) if found else None
