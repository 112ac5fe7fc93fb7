"""Helpers that import SME items and give verdicts through the services, shared by the
service, command-line and GUI tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from annotator.services import kinds
from annotator.services.sme import review as sme_review
from annotator.services.sme.imports import import_benchmarks, import_items

from .specs import valid_set


def item(n: int, code: str = "A-NEG2", **changes: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "item_id": f"it-{n:02d}",
        "benchmark": code,
        "input": f"Pt is not without chest pain (case {n}).",
        "ground_truth": {"chest_pain": True, "fever": False},
        "output": {"chest_pain": n % 2 == 0, "fever": False},
        "system": "copilot-v2",
    }
    if code == "A-NEG1":
        out["automated"] = {"score": 0.9, "outcome": "pass", "judge": "llm"}
    out.update(changes)
    return out


def jsonl(folder: Path, name: str, items: list[dict[str, Any]]) -> Path:
    path = folder / name
    path.write_text("".join(json.dumps(i) + "\n" for i in items))
    return path


def task(project: Any, item_id: str, code: str = "A-NEG2") -> Any:
    return sme_review.task_of(project, item_id, code)


def reviewers(project: Any, task_id: Any) -> list[str]:
    return [
        n
        for n in ("a1", "a2", "a3")
        if any(e.task_id == task_id for e in sme_review.queue(project, n))
    ]


def give(project: Any, who: str, task_id: Any, **fields: Any) -> None:
    for key, value in fields.items():
        kinds.SME.set_field(project, who, task_id, key, value)
    kinds.SME.submit(project, who, task_id)


def review_two_systems(team: Any, folder: Path) -> None:
    """A-NEG2 items of copilot@1.3 and copilot@1.4 on cases 0-11, one SME each.

    copilot@1.4 ran cases 1 and 2 twice (the second runs score as the first ones did) and
    scores one level higher than copilot@1.3 on two cases in three, the same on the third.
    """
    import_benchmarks(team, "cu", valid_set(folder))
    items = [item(n, item_id=f"{system}-{n:02d}", system=system, case_id=f"case-{n:02d}",
                  **({"run": 1} if system == "copilot@1.4" else {}))
             for system in ("copilot@1.3", "copilot@1.4") for n in range(12)]
    items += [item(n, item_id=f"copilot@1.4-{n:02d}-r2", system="copilot@1.4",
                   case_id=f"case-{n:02d}", run=2) for n in (1, 2)]
    import_items(team, "cu", [jsonl(folder, "items.jsonl", items)])
    sme_review.assign(team, "cu", per_item=1)
    for it in items:
        task_id = task(team, it["item_id"])
        (who,) = reviewers(team, task_id)
        n = int(it["item_id"].split("-")[1])
        score = n % 4 if it["system"] == "copilot@1.3" or n % 3 == 0 else n % 4 + 1
        flag = {} if score >= 3 else {
            "flag_condition": sme_review.view(team, who, task_id).benchmark.flag_choices[0],
            "rationale": "finding dropped"}
        give(team, who, task_id, applicability="applicable",
             outcome="pass" if score >= 3 else "flag", score=score, **flag)
