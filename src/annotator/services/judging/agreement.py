"""The judge-agreement report over the project's judged runs (Table 9 and more)."""

from __future__ import annotations

from typing import Any

from annotator.judging.table9 import agreement, big_differences, run_means
from annotator.services.judging.review import HUMAN, all_ratings
from annotator.store.project import Project


def judge_agreement(project: Project, actor: str) -> dict[str, Any]:
    """Raters (judge modes, physicians, ``human``), every pair's figures, means, big gaps.

    Seniors and curators only (it names the runs and shows everyone's scores).
    """
    ratings, judges, physicians = all_ratings(project, actor)
    raters = judges + physicians + ([HUMAN] if HUMAN in ratings else [])
    report = agreement(ratings, raters)
    report["run_means"] = run_means(ratings, judges) if HUMAN in ratings else []
    report["big_differences"] = big_differences(ratings, judges) if HUMAN in ratings else []
    return report
