"""The demo's SME review: benchmarks and items written for the demo (``sme_demo/``),
verdicts from the simulated SMEs (two per item, seeded), three planted conflicts of which
one is adjudicated, and a little work left open so every queue state shows."""

from __future__ import annotations

import random
import uuid
from typing import Any

from annotator.resources import asset_path
from annotator.services.sme import adjudication as sme_adjudication
from annotator.services.sme import review as sme_review
from annotator.services.sme.imports import import_benchmarks, import_items
from annotator.services.sme.kind import SME
from annotator.store.project import Project

SME_DEMO = "sme_demo"
# What a careful SME concludes: (applicability, outcome, score, clause or condition index,
# rationale). The simulated SMEs start from this and differ by a level now and then.
Base = tuple[str, str | None, float | None, int | None, str]
BASE: dict[str, Base] = {
    "neg1-01": ("applicable", "pass", 1.0, None, ""),
    "neg1-02": ("applicable", "flag", 0.7, None, "Denied head strike recorded as present."),
    "neg1-03": ("applicable", "pass", 1.0, None, ""),
    "neg1-04": ("applicable", "pass", 0.9, None, "Fever left unset; the rest correct."),
    "neg1-05": ("applicable", "flag", 0.0, None, "Seizure and vomiting both recorded as present."),
    "neg2-01": ("applicable", "flag", 2.0, 0, "'Not without pain' recorded as no pain."),
    "neg2-02": ("applicable", "pass", 4.0, None, ""),
    "neg2-03": ("applicable", "pass", 4.0, None, ""),
    "neg2-04": ("applicable", "flag", 2.0, 0, "Distal pulses recorded as absent."),
    "neg2-05": ("excluded", None, None, 0, "Blank template, nothing to judge."),
    "hnd1-01": ("applicable", "flag", 0.5, 0, "Apixaban and the allergy are missing."),
    "hnd1-02": ("applicable", "pass", 1.0, None, ""),
    "hnd1-03": ("applicable", "flag", 0.5, 1, "Last known well 14:40 instead of 14:10."),
    "hnd1-04": ("applicable", "pass", 1.0, None, ""),
    "hnd1-05": ("applicable", "pass", 1.0, None, ""),
    "hnd1-06": ("applicable", "flag", 0.5, 2, "Second epinephrine dose not mentioned."),
    "hnd2-01": ("applicable", "pass", 100.0, None, ""),
    "hnd2-02": ("applicable", "flag", 60.0, 0, "Heart rate and sulfa allergy missing."),
    "hnd2-03": ("applicable", "pass", 100.0, None, ""),
    "hnd2-04": ("applicable", "flag", 85.0, 0, "Heart rate left empty."),
}
# The second SME of these items disagrees: pass vs flag two levels apart, and excluded.
DISPUTED: dict[str, Base] = {
    "neg1-04": ("applicable", "flag", 0.7, None, "An unset fever is a missed negation."),
    "neg2-03": ("applicable", "flag", 2.0, 0, "Reads 'not a lot' as a denial."),
    "hnd1-05": ("excluded", None, None, 1, "Reads as a crew-to-crew handover."),
}
ADJUDICATED = "neg2-03"


def _jitter(choices: list[float], score: float, rng: random.Random) -> float:
    """A neighbouring described level one time in five (never a conflict on its own)."""
    i = min(range(len(choices)), key=lambda j: abs(choices[j] - score))
    if rng.random() < 0.2:
        i = max(0, min(len(choices) - 1, i + rng.choice((-1, 1))))
    return choices[i]


def _fields(view: sme_review.VerdictView, base: Base, rng: random.Random) -> dict[str, Any]:
    applicability, outcome, score, index, rationale = base
    card = view.benchmark
    if applicability == "excluded":
        clause = card.exclusion_choices[index or 0]
        return {"applicability": "excluded", "exclusion_clause": clause, "rationale": rationale}
    points = sorted(lv.value for lv in card.levels)
    fields: dict[str, Any] = {"applicability": "applicable", "outcome": outcome}
    fields["score"] = _jitter(points, score or 0.0, rng) if outcome == "pass" else score
    if outcome == "flag":
        if card.flag_choices:
            fields["flag_condition"] = card.flag_choices[index or 0]
        else:
            fields["failure_reason"] = rationale
        fields["rationale"] = rationale
    elif rationale:
        fields["rationale"] = rationale
    return fields


def _verdict(project: Project, name: str, task: uuid.UUID, base: Base, rng: random.Random,
             submit: bool = True) -> None:  # fmt: skip
    view = sme_review.view(project, name, task)
    for key, value in _fields(view, base, rng).items():
        SME.set_field(project, name, task, key, value)
    if submit:
        SME.submit(project, name, task)


def demo_sme_review(
    project: Project, curator: str, senior: str, smes: tuple[str, ...], seed: int
) -> int:
    """Import, assign two SMEs per item, review, adjudicate one disputed item.

    The first SME leaves one task untouched and one in progress. Returns the number of
    conflicts left open for the senior.
    """
    rng = random.Random(seed)
    folder = asset_path(SME_DEMO)
    import_benchmarks(project, curator, sorted(folder.glob("*.yaml")))
    import_items(project, curator, [folder / "items.jsonl"])
    sme_review.assign(project, curator, 2)
    seen: set[str] = set()
    for name in smes:
        entries = sme_review.queue(project, name)
        for n, entry in enumerate(entries):
            second = entry.item_id in seen
            seen.add(entry.item_id)
            if name == smes[0] and n >= len(entries) - 2:
                if n == len(entries) - 1:
                    _verdict(project, name, entry.task_id, BASE[entry.item_id], rng, False)
                continue
            base = DISPUTED.get(entry.item_id) if second else None
            _verdict(project, name, entry.task_id, base or BASE[entry.item_id], rng)
    disputed = sme_adjudication.list_conflicts(project, senior, open_only=True)
    for conflict in disputed:
        if conflict.item_id == ADJUDICATED:
            value: Any = BASE[ADJUDICATED][1] if conflict.key == "outcome" else 3.0
            SME.adjudicate(
                project, senior, conflict.task_id, conflict.key, value,
                "Demo: 'not a lot' admits drinking; the output is right but terse.",
            )  # fmt: skip
    return len(sme_adjudication.list_conflicts(project, senior, open_only=True))

