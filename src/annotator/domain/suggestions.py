"""The draft's own proposals (written by an LLM with the template) shown as suggestions.

They never count as labels until an annotator accepts them explicitly.
"""

from __future__ import annotations

from typing import Any

from annotator.domain.labels import DIFFICULTY, IMPORTANCE, RARITY, LabelEdit, label_key


def figures(content: dict[str, Any]) -> list[str]:
    """The case's exams, in draft order."""
    exams = content.get("imaging_examinations") or []
    return [str(e.get("figure")) for e in exams if isinstance(e, dict) and "figure" in e]


def suggestions(content: dict[str, Any]) -> dict[str, Any]:
    """Suggested values by label key: importance and stage per exam, difficulty, rarity."""
    out: dict[str, Any] = {}
    steps = [s for s in content.get("diagnostic_steps") or [] if isinstance(s, dict)]
    for exam in content.get("imaging_examinations") or []:
        figure = str(exam.get("figure"))
        step = next((s for s in steps if s.get("source") == figure), None)
        value = step.get("essential") if step else None
        if isinstance(value, str) and value.lower() in IMPORTANCE:
            out[label_key("importance", figure)] = value.lower()
        order = exam.get("preferred_order")
        out[label_key("stage", figure)] = order if type(order) is int and order >= 1 else None
    if content.get("difficulty") in DIFFICULTY:
        out["difficulty"] = content["difficulty"]
    if content.get("rarity") in RARITY:
        out["rarity"] = content["rarity"]
    return out


def accept_edits(
    content: dict[str, Any], labels: dict[str, Any], keys: list[str] | None = None
) -> list[LabelEdit]:
    """Edits that accept the suggestions for ``keys`` (all of them when None).

    Labels the annotator already set are never overwritten by accepting.
    """
    proposed = suggestions(content)
    chosen = proposed if keys is None else {k: proposed[k] for k in keys if k in proposed}
    return [
        LabelEdit(key, {"value": value, "how": "accepted"})
        for key, value in chosen.items()
        if key not in labels
    ]
