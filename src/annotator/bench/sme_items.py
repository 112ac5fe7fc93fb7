"""The bench's SME review: the demo's benchmarks, generated items, verdicts, all through the
services (``sme-import``, ``sme-items``, ``sme-assign``, ``sme-verdict``).

One item per ``CASES_PER_ITEM`` bench cases, each a copy of a bundled demo item
(``sme_demo/items.jsonl``) under the id ``bench-NNNNN-sme``, so that
:mod:`annotator.bench.clone` gives every copied site items of its own. Every item gets two
SMEs (the bench's annotators); each SME submits the verdicts of most of their tasks, as the
demo's simulated SMEs give them, and leaves the rest in the queue.
"""

from __future__ import annotations

import json
import random
import tempfile
from pathlib import Path

from annotator.resources import asset_path
from annotator.services.sme import review
from annotator.services.sme.demo import BASE, SME_DEMO, _verdict
from annotator.services.sme.imports import import_benchmarks, import_items
from annotator.store.project import Project

CASES_PER_ITEM = 10
SUBMITTED_SHARE = 0.6  # of each SME's tasks; the rest stay assigned (the queue's work)


def item_id(case_number: int) -> str:
    return f"bench-{case_number:05d}-sme"


def add_sme_review(project: Project, curator: str, smes: list[str], cases: int,
                   seed: int) -> int:
    """Import the demo benchmarks and ``cases // CASES_PER_ITEM`` items (at least one),
    assign two SMEs per item, submit verdicts; returns the number of items."""
    folder = asset_path(SME_DEMO)
    templates = [json.loads(line) for line in
                 (folder / "items.jsonl").read_text("utf-8").splitlines() if line.strip()]
    numbers = range(1, cases + 1, CASES_PER_ITEM)
    with tempfile.TemporaryDirectory(prefix="annotator-bench-sme-") as tmp:
        lines = []
        for n, number in enumerate(numbers):
            item = dict(templates[n % len(templates)], item_id=item_id(number))
            if item.get("case_id"):
                item["case_id"] = f"bench-{number:05d}"
            lines.append(json.dumps(item))
        items = Path(tmp) / "bench-items.jsonl"
        items.write_text("\n".join(lines) + "\n", "utf-8")
        import_benchmarks(project, curator, sorted(folder.glob("*.yaml")))
        import_items(project, curator, [items])
    review.assign(project, curator, 2)
    template_of = {item_id(number): templates[n % len(templates)]["item_id"]
                   for n, number in enumerate(numbers)}
    rng = random.Random(seed)
    for name in smes:
        for entry in review.queue(project, name):
            if rng.random() < SUBMITTED_SHARE:
                _verdict(project, name, entry.task_id, BASE[template_of[entry.item_id]], rng)
    return len(numbers)
