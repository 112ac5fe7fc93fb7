"""SME results: per-benchmark and per-rubric scores with CIs, and reliability.

Only submitted verdicts count (one sent back for re-check counts again once resubmitted).
Each task's reference verdict is the adjudicated value of a conflicting field, else the
SMEs' common value (scores averaged); tasks left out are counted apart: ``undecided`` (the
SMEs conflict and no adjudicator has decided) and ``unsubmitted`` (no verdict submitted).
"""

from __future__ import annotations

import uuid
from collections import Counter
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from annotator.agreement.decision import RULE
from annotator.agreement.intervals import (
    CONFIDENCE,
    MEAN_METHOD,
    MIN_MEAN_N,
    MIN_PROPORTION_N,
    MIN_RUBRIC_N,
    N_RESAMPLES,
    PROPORTION_METHOD,
    RUBRIC_METHOD,
    TOO_FEW,
)
from annotator.domain.permissions import Action
from annotator.errors import ValidationError
from annotator.services.sme.adjudication import decided_by_task, submitted_by_task
from annotator.services.sme.keys import (
    RESOLVED,
    UNDECIDED,
    UNSUBMITTED,
    heal_keys,
)
from annotator.services.sme.keys import reference_of as _reference
from annotator.services.sme.review import benchmark_of
from annotator.services.users import require, require_user
from annotator.sme.compare import Comparison, Scored
from annotator.sme.compare import compare as compare_systems
from annotator.sme.consistency import CRONBACH_MIN_CASES
from annotator.sme.reliability import ICC_MIN_UNITS, reliability
from annotator.sme.results import (
    ItemOutcome,
    SmeResults,
    benchmark_result,
    normalised,
    rubric_results,
)
from annotator.sme.spec import REVIEWED, Benchmark
from annotator.sme.verdict import Verdict
from annotator.store import sme_keys
from annotator.store.project import Project
from annotator.store.schema import SmeBenchmark, SmeItem, SmeTask


@dataclass
class _Collected:
    outcomes: list[ItemOutcome]
    undecided: int
    unsubmitted: int
    verdicts: list[dict[str, Verdict]]
    automated: list[tuple[Verdict, dict[str, Any]]]


@dataclass(frozen=True)
class Progress:
    """One reviewed benchmark's tasks: with a reference verdict, undecided, unsubmitted."""

    code: str
    label: str
    resolved: int
    undecided: int
    unsubmitted: int


def progress(project: Project, actor: str) -> list[Progress]:
    """The counts of :func:`results` (``items``, ``undecided``, ``unsubmitted`` of every
    reviewed benchmark, by code) without its intervals and reliability, for the desk (seniors
    and curators only): a grouped count of the tasks' keys the writes keep
    (:mod:`annotator.store.sme_keys`), whatever the number of verdicts."""
    def read(session: Session) -> list[Progress]:
        require_user(session, actor, Action.READ_OTHERS_WORK)
        heal_keys(session)
        standing = sme_keys.standing(session.connection())
        out = []
        for bench in session.scalars(select(SmeBenchmark).order_by(SmeBenchmark.code)):
            if bench.evaluator_type not in REVIEWED:
                continue
            found = standing.get(bench.id, Counter())
            out.append(Progress(bench.code, benchmark_of(bench).label, found[RESOLVED],
                                found[UNDECIDED], found[UNSUBMITTED]))
        return out

    return project.read_healing(read)


def _collect(
    session: Session,
    bench: SmeBenchmark,
    benchmark: Benchmark,
    submitted: dict[uuid.UUID, dict[str, Verdict]],
    decided: dict[uuid.UUID, dict[str, Any]],
) -> _Collected:
    got = _Collected([], 0, 0, [], [])
    rows = session.execute(
        select(SmeTask, SmeItem)
        .join(SmeItem, SmeItem.id == SmeTask.item_pk)
        .where(SmeTask.benchmark_id == bench.id)
        .order_by(SmeItem.position)
    )
    for task, item in rows:
        verdicts = submitted.get(task.id, {})
        ref = _reference(benchmark, verdicts, decided.get(task.id, {}))
        if verdicts:
            got.verdicts.append(verdicts)
        if ref == UNSUBMITTED:
            got.unsubmitted += 1
            continue
        if ref == UNDECIDED:
            got.undecided += 1
            continue
        assert isinstance(ref, dict)
        applicable = ref["applicability"] == "applicable"
        outcome = ItemOutcome(
            item.item_id,
            applicable,
            None if not applicable or "outcome" not in ref else ref["outcome"] == "pass",
            ref.get("score") if applicable else None,
            item.case_ref,
            item.system,
            item.run,
        )
        got.outcomes.append(outcome)
        if task.automated and applicable:
            got.automated.append((ref, dict(task.automated)))
    return got


def results(project: Project, actor: str, seed: int = 0) -> SmeResults:
    """Results of every benchmark with SME review items (seniors and curators only)."""
    with project.read() as session:
        require_user(session, actor, Action.READ_OTHERS_WORK)
        submitted = submitted_by_task(session)
        decided = decided_by_task(session)
        stored = list(session.scalars(select(SmeBenchmark).order_by(SmeBenchmark.code)))
        specs = [benchmark_of(b) for b in stored]
        per_benchmark = []
        checks = []
        for bench, benchmark in zip(stored, specs, strict=True):
            if benchmark.evaluator_type not in REVIEWED:
                continue
            got = _collect(session, bench, benchmark, submitted, decided)
            per_benchmark.append(
                benchmark_result(benchmark, got.outcomes, got.undecided, got.unsubmitted, seed))
            checks.append(
                reliability(
                    benchmark,
                    got.verdicts,
                    automated=got.automated,
                    seed=seed,
                )
            )
        return SmeResults(
            benchmarks=[r for r, _m in per_benchmark],
            rubrics=rubric_results(per_benchmark, specs, seed),
            reliability=checks,
            basis={
                "n_resamples": N_RESAMPLES,
                "seed": seed,
                "confidence": CONFIDENCE,
                "pass_rate_interval": PROPORTION_METHOD,
                "score_interval": MEAN_METHOD,
                "rubric_interval": RUBRIC_METHOD,
                "min_items_for_ci": {"pass_rate": MIN_PROPORTION_N, "score": MIN_MEAN_N,
                                     "rubric_per_benchmark": MIN_RUBRIC_N},
                "below_minimum": TOO_FEW,
                "threshold_rule": RULE,
                "rubric_weights": "renormalised over the benchmarks with a score",
                "reference": "adjudicated field, else the SMEs' common value; scores averaged",
                "icc_form": "ICC(1,1)",
                "reliability_flags": (
                    f"ICC(1,1) and a rubric's Cronbach's alpha: 'below' the bound when the 95% "
                    f"interval's upper bound is under it, 'possibly below' when it straddles "
                    f"it; none from fewer than {ICC_MIN_UNITS} tasks or {CRONBACH_MIN_CASES} "
                    "cases"),
                "cronbach_interval": (
                    "ADF (Maydeu-Olivares et al. 2007) on ln(1 - alpha), t(n-1); none "
                    f"none ({TOO_FEW}) from fewer than {CRONBACH_MIN_CASES} cases"),
                "cronbach_item": "a benchmark of the rubric; subjects are test cases scored "
                                 "on every benchmark of the rubric",
            },
        )


def systems(project: Project, actor: str) -> list[str]:
    """The systems with SME items, sorted (for choosing A and B; seniors only)."""
    with project.read() as session:
        require(session, actor, Action.COMPARE_SYSTEMS)
        found = session.scalars(select(SmeItem.system).distinct())
        return sorted(name for name in found if name)


def compare(project: Project, actor: str, a: str, b: str, seed: int = 0) -> Comparison:
    """System ``b`` against ``a`` on every reviewed benchmark with items of both."""
    with project.tx() as session:
        require(session, actor, Action.COMPARE_SYSTEMS)
        submitted = submitted_by_task(session)
        decided = decided_by_task(session)
        systems = set(session.scalars(select(SmeItem.system).distinct()))
        for name in (a, b):
            if name not in systems:
                known = ", ".join(sorted(s for s in systems if s)) or "none"
                raise ValidationError(f"no SME items of system {name!r} (systems: {known})")
        per_benchmark = {}
        for bench in session.scalars(select(SmeBenchmark).order_by(SmeBenchmark.code)):
            benchmark = benchmark_of(bench)
            if benchmark.evaluator_type not in REVIEWED:
                continue
            got = _collect(session, bench, benchmark, submitted, decided)
            items = {name: [Scored(o.case_id, normalised(benchmark, o),
                                   o.passed if o.applicable else None, o.run)
                            for o in got.outcomes if o.system == name and o.applicable]
                     for name in (a, b)}
            per_benchmark[benchmark.code] = (benchmark.parent_rubric, benchmark.weight,
                                             items[a], items[b])
    return compare_systems(a, b, per_benchmark, seed)
