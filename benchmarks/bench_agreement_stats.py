"""Benchmark (not a test): case bootstrap of agreement statistics, 1,000 cases x 3 raters.

Run: ``python benchmarks/bench_agreement_stats.py [--repeats 5]``. Prints the median wall
time of each 1,000-resample bootstrap and of the whole set; each case has 1-7 units (steps).
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable

import numpy as np

from annotator.agreement import bootstrap_ci, case_bootstrap, relation_counts


def synthetic(n_cases: int, seed: int) -> tuple[np.ndarray, list[int], np.ndarray]:
    """Units x 3 raters of codes 0..2 (10% missing), case ids, per-case order counts."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 8, size=n_cases)
    n_units = int(sizes.sum())
    truth = rng.integers(0, 3, size=n_units)
    noise = rng.integers(0, 3, size=(n_units, 3))
    codes = np.where(rng.random((n_units, 3)) < 0.7, truth[:, None], noise).astype(float)
    codes[rng.random((n_units, 3)) < 0.1] = np.nan
    case_ids = np.repeat(np.arange(n_cases), sizes).tolist()
    order_rows = []
    for size in sizes:
        first = rng.integers(1, 4, size=size + 1)
        second = np.where(rng.random(size + 1) < 0.8, first, rng.integers(1, 4, size=size + 1))
        order_rows.append(relation_counts(first.tolist(), second.tolist()).as_row())
    return codes, case_ids, np.array(order_rows, dtype=float)


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
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    codes, case_ids, order_rows = synthetic(args.cases, seed=1)
    b = args.resamples
    jobs: dict[str, Callable[[], object]] = {
        "percent_agreement": lambda: case_bootstrap(
            codes, case_ids, "percent_agreement", n_resamples=b
        ),
        "gwet_ac1": lambda: case_bootstrap(
            codes, case_ids, "gwet_ac1", n_categories=3, n_resamples=b
        ),
        "krippendorff_alpha (ordinal)": lambda: case_bootstrap(
            codes, case_ids, "krippendorff_alpha", n_categories=3, level="ordinal", n_resamples=b
        ),
        "mean_pairwise_cohen_kappa (linear)": lambda: case_bootstrap(
            codes,
            case_ids,
            "mean_pairwise_cohen_kappa",
            n_categories=3,
            weights="linear",
            n_resamples=b,
        ),
        "order relation agreement": lambda: bootstrap_ci(
            order_rows, lambda s: s[1] / s[0], n_resamples=b
        ),
    }
    print(
        f"{args.cases} cases, {codes.shape[0]} units x 3 raters, {b} resamples, "
        f"median of {args.repeats}"
    )
    total = 0.0
    for name, job in jobs.items():
        seconds = median_seconds(job, args.repeats)
        total += seconds
        print(f"  {name:<38} {seconds * 1000:8.1f} ms")
    print(f"  {'all of the above':<38} {total * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
