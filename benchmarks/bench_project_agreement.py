"""Benchmark (not a test): the whole project agreement report, 1,000 cases x 3 annotators.

Run: ``python benchmarks/bench_project_agreement.py [--cases 1000] [--repeats 3]``. Feeds
synthetic submitted label maps straight to the pure core (no database), computes every
label family with 1,000 bootstrap resamples per interval, and prints median wall times of
building the basis, of each family and of the whole report (plus CSV, HTML and charts).
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections.abc import Callable
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from annotator.agreement.families import ReportOptions, families, family_ratings
from annotator.agreement.family_stats import family_stats
from annotator.agreement.html_report import render_html
from annotator.agreement.project_data import (
    AnnotatorProgress,
    CaseRecord,
    ProjectBasis,
    Submission,
    build_basis,
)
from annotator.agreement.report import annotator_names, build_report
from annotator.agreement.tables import csv_text
from annotator.domain.labels import DIFFICULTY, IMPORTANCE, RARITY

START = datetime(2025, 1, 6, 9, 0)


def _noisy(rng: np.random.Generator, truth: int, k: int, keep: float) -> int:
    return truth if rng.random() < keep else int(rng.integers(0, k))


def synthetic_records(n_cases: int, n_annotators: int, seed: int) -> list[CaseRecord]:
    """Cases of 2-6 exams (some follow-ups, some non-imaging), 3 submitted label maps each."""
    rng = np.random.default_rng(seed)
    keys = [f"ann-{i:02d}" for i in range(n_annotators)]
    records = []
    for c in range(n_cases):
        n_exams = int(rng.integers(2, 7))
        exams = []
        for e in range(n_exams):
            time_past = -2 if rng.random() < 0.05 else (None if rng.random() < 0.8 else 3)
            modality = "Clinical photo" if rng.random() < 0.03 else "MRI"
            exams.append({"figure": f"Figure {e + 1}",
                          "meta_info": {"modality": modality, "time_past": time_past}})
        figures = [e["figure"] for e in exams]
        importance = rng.integers(0, 3, size=n_exams)
        stages = rng.integers(1, 4, size=n_exams)
        difficulty, rarity = int(rng.integers(0, 3)), int(rng.integers(0, 3))
        chosen = rng.choice(n_annotators, size=3, replace=False)
        subs = []
        for a in sorted(chosen):
            labels: dict[str, Any] = {}
            if rng.random() < 0.03:
                labels["discard"] = {"reason_code": "image_quality", "text": ""}
            else:
                for i, fig in enumerate(figures):
                    imp = IMPORTANCE[_noisy(rng, int(importance[i]), 3, 0.75)]
                    labels[f"importance:{fig}"] = {"value": imp, "how": "set"}
                    stage = int(stages[i]) if rng.random() < 0.8 else int(rng.integers(1, 4))
                    labels[f"stage:{fig}"] = {"value": stage, "how": "set"}
                    labels[f"meta_ok:{fig}"] = bool(rng.random() < 0.9)
                labels["difficulty"] = {"value": DIFFICULTY[_noisy(rng, difficulty, 3, 0.6)],
                                        "how": "set"}
                labels["rarity"] = {"value": RARITY[_noisy(rng, rarity, 3, 0.65)], "how": "set"}
                labels["rubric_ok:Diagnosis"] = bool(rng.random() < 0.85)
                labels["rubric_ok:Localisation"] = bool(rng.random() < 0.8)
            at = START + timedelta(days=int(c * 120 / n_cases), hours=int(rng.integers(0, 48)))
            subs.append(Submission(keys[a], labels, at))
        records.append(CaseRecord(f"case-{c:05d}", "in_review", {"imaging_examinations": exams},
                                  subs, tuple(s.annotator for s in subs)))
    return records


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--annotators", type=int, default=3)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    records = synthetic_records(args.cases, args.annotators, seed=1)
    progress = [AnnotatorProgress(f"ann-{i:02d}", f"a{i}", 0, 0) for i in range(args.annotators)]
    options = ReportOptions(n_resamples=args.resamples)
    basis: ProjectBasis = build_basis(records, progress)
    keys, names = basis.annotator_keys, annotator_names(basis)
    print(f"{args.cases} cases x 3 of {args.annotators} annotators, {args.resamples} resamples, "
          f"median of {args.repeats}")
    seconds = median_seconds(lambda: build_basis(records), args.repeats)
    print(f"  build basis              {seconds:8.3f} s")
    states = {c.case_id: c.state for c in basis.cases}
    for fam in families():
        ratings = family_ratings(fam, basis.cases, keys)

        def one(fam: Any = fam, ratings: Any = ratings) -> object:
            return family_stats(ratings, basis.cases, names, states, {}, options)

        seconds = median_seconds(one, args.repeats)
        print(f"  {fam.id:<24} {seconds:8.3f} s  ({ratings.n_units} units)")
    report: dict[str, Any] = {}

    def whole() -> None:
        report.update(build_report(basis, options))

    print(f"  whole report             {median_seconds(whole, args.repeats):8.3f} s")
    json.dumps(report, allow_nan=False)
    print(f"  CSV + HTML with charts   "
          f"{median_seconds(lambda: (csv_text(report), render_html(report)), args.repeats):8.3f} s")


if __name__ == "__main__":
    main()
