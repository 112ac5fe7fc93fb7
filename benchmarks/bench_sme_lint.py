"""Benchmark (not a test): ``sme-lint`` on a 350 kB benchmark file (issue 23).

Run: ``python benchmarks/bench_sme_lint.py [--levels 28000] [--repeats 3]``. One benchmark
whose scale has ``--levels`` descriptions, all outside its range, so every level is an
E-LEVEL problem whose line is looked up; prints the file size and the median wall time.
Before the fix each lookup scanned every key of the file (quadratic: 70 s at 330 kB).
"""

from __future__ import annotations

import argparse
import statistics
import tempfile
import time
from pathlib import Path

import yaml

from annotator.sme.lint import lint


def write_file(folder: Path, levels: int) -> Path:
    data = {
        "code": "A-NEG2", "parent_rubric": "A-NEG", "label": "Double negation",
        "concept": "Double negatives are resolved correctly. Threshold: 3 of 4.",
        "weight": 1.0, "threshold": 3, "evaluator_type": "manual_sme",
        "scoring_scale": {"min_value": 0, "max_value": 4,
                          "descriptions": {10 + i: "x" for i in range(levels)}},
        "inclusion_criteria": "Apply when X. Flag if Y.",
        "exclusion_criteria": "Do not apply when Z.",
    }
    path = folder / "big.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--levels", type=int, default=28_000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = write_file(Path(tmp), args.levels)
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            problems = len(lint([path]).problems)
            times.append(time.perf_counter() - start)
        print(f"{path.stat().st_size / 1000:.0f} kB, {problems} problems:"
              f" median {statistics.median(times):.2f} s")


if __name__ == "__main__":
    main()
