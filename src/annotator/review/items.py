"""Comparable items of a case: which labels the annotators agree on and which conflict.

Pure functions over the draft and the annotators' submitted label maps. An item is one
decision the release needs: the importance of an exam, the case's order (decided as a whole
board), difficulty, rarity, discard, and every field a physician proposed to fix (metadata,
caption, step, rubric part). Fix proposals are compared on their *effective* value: an
annotator who left a field alone keeps the draft's value.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotator.domain.labels import FIX_FAMILIES, split_key
from annotator.domain.order import order_of
from annotator.domain.suggestions import figures as case_figures
from annotator.domain.vocabulary import normalise_for_compare


@dataclass(frozen=True)
class Item:
    """One comparable item with every annotator's value (keyed by annotator id)."""

    key: str  # label key, or "order" for the whole board
    family: str
    values: dict[str, Any]
    unanimous: bool

    @property
    def agreed_value(self) -> Any:
        return next(iter(self.values.values())) if self.unanimous and self.values else None


def draft_value(content: dict[str, Any], key: str) -> Any:
    """The draft's value behind a fix key (``meta:Figure 1/contrast`` -> the draft contrast)."""
    family, item = split_key(key)
    exams = {str(e.get("figure")): e for e in content.get("imaging_examinations") or []}
    if family == "meta":
        figure, _, field = item.rpartition("/")
        return (exams.get(figure, {}).get("meta_info") or {}).get(field)
    if family == "caption":
        return exams.get(item, {}).get("image_caption")
    if family == "step":
        index, _, field = item.partition("/")
        steps = content.get("diagnostic_steps") or []
        i = int(index) if index.isdigit() else -1
        return steps[i].get(field) if 0 <= i < len(steps) and isinstance(steps[i], dict) else None
    if family == "rubric":
        node: Any = content.get("rubric_0_to_3") or {}
        for part in item.split("/"):
            node = node.get(part) if isinstance(node, dict) else None
        return node
    return None


def _compare_key(key: str, value: Any) -> Any:
    family, item = split_key(key)
    if family == "meta":
        return normalise_for_compare(item.rpartition("/")[2], value)
    if isinstance(value, str):
        return " ".join(value.split())
    return value


def same_value(key: str, first: Any, second: Any) -> bool:
    """True when two values of an item mean the same (metadata compared normalised)."""
    return repr(_compare_key(key, first)) == repr(_compare_key(key, second))


def _plain(entry: Any) -> Any:
    return entry.get("value") if isinstance(entry, dict) and "how" in entry else entry


def case_items(content: dict[str, Any], submitted: dict[str, dict[str, Any]]) -> list[Item]:
    """Every comparable item of a case, in a stable order."""
    figs = case_figures(content)
    annotators = sorted(submitted)
    items: list[Item] = []

    def add(key: str, family: str, values: dict[str, Any], compare: Any = None) -> None:
        keys = {
            repr(_compare_key(key, v) if compare is None else compare(v)) for v in values.values()
        }
        items.append(Item(key, family, values, len(keys) <= 1))

    discards = {a: submitted[a].get("discard") for a in annotators}
    add("discard", "discard", discards, compare=lambda v: v is not None)
    # An annotator who discarded the case gave no opinion on the rest of it.
    annotators = [a for a in annotators if discards[a] is None] or annotators
    for figure in figs:
        key = f"importance:{figure}"
        add(key, "importance", {a: _plain(submitted[a].get(key)) for a in annotators})
    add("order", "order", {a: order_of(submitted[a], figs) for a in annotators})
    for family in ("difficulty", "rarity"):
        add(family, family, {a: _plain(submitted[a].get(family)) for a in annotators})
    fix_keys = sorted(
        {k for a in annotators for k in submitted[a] if split_key(k)[0] in FIX_FAMILIES}
    )
    for key in fix_keys:
        base = draft_value(content, key)
        values = {a: submitted[a].get(key, base) for a in annotators}
        add(key, split_key(key)[0], values)
    return items
