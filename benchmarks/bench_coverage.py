"""Benchmark (not a test): coverage of every 95% interval the app prints, on a stated grid.

Run: ``python benchmarks/bench_coverage.py [--reps 1000] [--only NAME ...] [--n N ...]
[--rho R ...] [--as-if-printed]``. Prints one
Markdown row per figure and grid point: n, the true value, coverage (share of replications
whose interval contains the truth), the share where the app printed no interval ("too few"
or undefined), and the run time. The table in ``docs/statistics.md`` is its output. Where
an agreement coefficient's stated minimum (``STATED_MIN_CASES``) hides the interval, the row
also gives the coverage it would have had there: the reason for the minimum.
``--as-if-printed`` measures every agreement point with the general minimum
(``MIN_CASES``) instead of the stated one, to find the smallest n that meets the target
(``--n 30 50 70 100``); ``--rho`` restricts the agreement grid's true values. The quality
figures (``quality-*``) and the system comparisons (``compare-paired``, ``compare-unpaired``,
``newcombe-exact``) have their generating models in the comment above ``quality_rows``.

Each agreement grid point draws its replications from its own seed (``zlib.crc32`` of the figure,
n and true value), so the points of one figure are independent and the Monte Carlo
standard error of a point is ``sqrt(p (1 - p) / R)`` (about 0.007 at R = 1,000), of a
mean over m points about that over ``sqrt(m)``. The app's bootstrap keeps its own seed
(0), as it does in use. (The other figures' points draw from seed n, as before.)

Grid: n = 10, 30, 100 units (items, cases) x a low, middle and high true value. Intervals
are the app's own code paths (``Measure.interval``, ``icc``, ``wilson_interval``,
``bca_interval``, ``welch_interval``,
``wilson_effective_interval``) with their seeds; each replication draws new data.

Generating models (written down, as the coverage depends on them):

- Ratings (kappa, alpha per level, AC1, AC2): each unit has a true category t drawn
  uniformly from 5 ordered categories with values (1, 2, 3.5, 5, 11) (unevenly spaced, all
  positive for the ratio level); each of the raters (2 for Cohen's kappa, 3 otherwise)
  reports t with probability rho, else a category drawn uniformly. rho = 0.3, 0.6, 0.9.
  The true coefficient is its value on 200,000 units of the same model, except where it
  is known exactly: with uniform marginals, Cohen's and Fleiss' kappa, nominal alpha and
  AC1 all equal rho^2 in the population (agreement rho^2 + (1 - rho^2)/5, chance 1/5;
  AC1's chance term is 0.2 too).
- ICC(1,1): score = unit effect N(0, s^2) + rater noise N(0, 1), 3 ratings per unit,
  s^2 chosen for true ICC 0.3, 0.6, 0.9 (ICC = s^2 / (s^2 + 1)).
- SME pass rate: k ~ Binomial(n, p), p = 0.03, 0.5, 0.97: coverage computed exactly.
- SME mean normalised score: item score ~ Binomial(4, theta) / 4 (a 0..4 scale normalised),
  theta = 0.2, 0.5, 0.85; the truth is theta.
- Rubric score: two benchmarks, weights 0.4 and 0.6, n items each, theta as above for the
  first and theta + 0.05 (capped at 0.95) for the second; truth their weighted mean.
- Table 9 cell: per case, the four targets agree (binary, 0-1 vs 2-3) independently with
  probability q (trajectory: 2 diagnoses per case); q = 0.6, 0.8, 0.95; truth q.
- Percent agreement, unanimity, PABAK (``--only "percent agreement" unanimity PABAK``): the
  ratings model above with 3 raters, one unit per case, n = 10, 20, 30, 100 (20: the
  general minimum). Exact truths: a rater reports c with probability h = rho + (1 - rho)/5
  for c = t, m = (1 - rho)/5 otherwise, so pair agreement is h^2 + 4 m^2 = rho^2 +
  (1 - rho^2)/5, unanimity h^3 + 4 m^3, PABAK rho^2.
- Table 9 per target (``--only table9-targets``): diagnosis, localisation and differential
  list are one unit per case, agreeing with probability q (Wilson; coverage exact from the
  binomial). Trajectory binary: 2 units per case; E/A/U labels: 1-4 diagnoses per case
  (uniform); a case's units agree with probability p_c ~ Beta with mean q and intra-case
  correlation 0.2 (beta-binomial), q = 0.6, 0.8, 0.95; truth q.
- Cronbach's alpha (``--only cronbach``): k = 3 benchmarks x n test cases. Normal: cell =
  case effect N(0, rho) + item noise N(0, 1 - rho). Binomial: cell = Binomial(4,
  theta_c)/4 with theta_c ~ Beta(0.6 s, 0.4 s), s = 4 (1 - rho)/rho, so two cells of a case
  correlate rho. rho = alpha/(k - (k - 1) alpha) for true alpha 0.5, 0.7, 0.9 (the
  population alpha of k items with equal variance and correlation rho is
  k rho/(1 + (k - 1) rho)). Intervals (``--cronbach-method``, default all, each on the same
  data sets): "ADF log" (the app's, printed from ``CRONBACH_MIN_CASES``; rows under it are
  marked "(app: none)" and give the coverage it would have had), "ADF", "Feldt".
- Exam order (``--only exam-order``): strict pairwise order agreement and mean Kendall
  tau-b of the project agreement report. Per case 4 exams with true stages drawn uniformly
  from 1..3 (ties possible); each of 3 raters copies the true ranking with probability rho,
  else draws a uniform ranking (each exam's stage uniform on 1..3, ties possible).
  rho = 0.3, 0.6, 0.9; n = 10, 20, 30, 50, 100 cases. The truth is the app's own estimator
  (``order_details``) on 50,000 cases of the same model (Monte Carlo error about 0.002);
  the intervals are the report's path (``order_details``: case BCa bootstrap, 1,000
  resamples, seed 0, the report's
  minimum), a case drawn twice counting twice.
"""

from __future__ import annotations

import argparse
import time
import warnings
import zlib
from collections.abc import Callable

import numpy as np
from scipy.stats import binom

from annotator.agreement.bootstrap import MIN_CASES, case_bootstrap_interval, min_cases_of
from annotator.agreement.icc import icc
from annotator.agreement.intervals import (
    bca_interval,
    welch_interval,
    wilson_effective_interval,
    wilson_interval,
)
from annotator.agreement.measure import Measure, Ratings
from annotator.agreement.options import ReportOptions
from annotator.agreement.order_stats import order_details
from annotator.agreement.project_data import CaseBasis, Exam

VALUES = np.array([1.0, 2.0, 3.5, 5.0, 11.0])
GRID_N = (10, 30, 100)
RHOS = (0.3, 0.6, 0.9)
K = len(VALUES)

MEASURES: dict[str, tuple[Measure, int]] = {
    "Cohen's kappa (2 raters)": (Measure("mean_pairwise_cohen_kappa", n_categories=K), 2),
    "Fleiss' kappa": (Measure("fleiss_kappa", n_categories=K), 3),
    "alpha nominal": (Measure("krippendorff_alpha", n_categories=K, level="nominal"), 3),
    "alpha ordinal": (Measure("krippendorff_alpha", n_categories=K, level="ordinal"), 3),
    "alpha interval": (Measure("krippendorff_alpha", "values", level="interval"), 3),
    "alpha ratio": (Measure("krippendorff_alpha", "values", level="ratio"), 3),
    "Gwet's AC1": (Measure("gwet_ac1", n_categories=K), 3),
    "Gwet's AC2 (quadratic)": (Measure("gwet_ac2", n_categories=K, weights="quadratic"), 3),
}


# Population value rho^2 for these (uniform marginals; see the docstring).
EXACT_RHO_SQUARED = {"Cohen's kappa (2 raters)", "Fleiss' kappa", "alpha nominal", "Gwet's AC1"}


def point_seed(name: str, n: int, truth: float) -> int:
    """One independent stream per figure and grid point (stable across runs)."""
    return zlib.crc32(f"{name}|{n}|{truth:.6f}".encode())


def ratings(rng: np.random.Generator, n: int, raters: int, rho: float) -> Ratings:
    truth = rng.integers(0, K, size=n)
    noise = rng.integers(0, K, size=(n, raters))
    codes = np.where(rng.random((n, raters)) < rho, truth[:, None], noise).astype(float)
    return Ratings(codes, list(range(n)), VALUES[codes.astype(int)])


def coverage(draw: Callable[[np.random.Generator], tuple[float, float] | None], truth: float,
             reps: int, seed: int) -> tuple[float, float]:
    """(coverage among printed intervals, share with no interval)."""
    rng = np.random.default_rng(seed)
    hits = printed = 0
    for _ in range(reps):
        ci = draw(rng)
        if ci is None:
            continue
        printed += 1
        hits += ci[0] <= truth <= ci[1]
    return (hits / printed if printed else float("nan")), 1 - printed / reps


def row(name: str, n: int, truth: float, cov: float, none: float, seconds: float) -> None:
    shown = "too few" if none == 1 else f"{cov:.3f}"
    print(f"| {name} | {n} | {truth:.3f} | {shown} | {none:.0%} | {seconds:.0f} s |", flush=True)


def agreement_rows(reps: int, only: set[str], grid_n: tuple[int, ...] = GRID_N,
                   rhos: tuple[float, ...] = RHOS, as_if_printed: bool = False) -> None:
    for name, (measure, raters) in MEASURES.items():
        if only and name not in only:
            continue
        for rho in rhos:
            if name in EXACT_RHO_SQUARED:
                truth: float | None = rho**2
            else:
                truth = measure.estimate(ratings(np.random.default_rng(99), 200_000, raters, rho))
            assert truth is not None
            for n in grid_n:
                start = time.perf_counter()

                def draw(rng: np.random.Generator, n: int = n, rho: float = rho,
                         measure: Measure = measure, raters: int = raters
                         ) -> tuple[float, float] | None:
                    ci = measure.interval(ratings(rng, n, raters, rho))
                    return None if ci is None else ci.interval

                # Under the coefficient's stated minimum: the coverage it would have had
                # (same interval code and data, the general minimum), for the docs.
                def below(rng: np.random.Generator, n: int = n, rho: float = rho,
                          measure: Measure = measure, raters: int = raters
                          ) -> tuple[float, float] | None:
                    r = ratings(rng, n, raters, rho)
                    if measure.coefficient == "mean_pairwise_cohen_kappa":
                        ci = measure._pairwise_interval(measure.matrix(r), r.case_ids, 1000, 0,
                                                        MIN_CASES)
                    else:
                        ci = case_bootstrap_interval(
                            measure.matrix(r), r.case_ids, measure.coefficient,
                            n_categories=measure.n_categories, level=measure.level,
                            weights=measure.weights, values=measure.positions,
                            min_cases=MIN_CASES)
                    return None if ci is None else ci.interval

                seed = point_seed(name, n, truth)
                hidden = n < min_cases_of(measure.coefficient)
                if as_if_printed and n >= MIN_CASES:
                    cov, none = coverage(below, truth, reps, seed)
                    shown = f"{name} (as if printed)" if hidden else name
                    row(shown, n, truth, cov, none, time.perf_counter() - start)
                    continue
                cov, none = coverage(draw, truth, reps, seed)
                if none == 1 and hidden and n >= MIN_CASES:
                    would, _ = coverage(below, truth, reps, seed)
                    name_shown = f"{name} (under its minimum: {would:.3f} if printed)"
                    row(name_shown, n, truth, cov, none, time.perf_counter() - start)
                    continue
                row(name, n, truth, cov, none, time.perf_counter() - start)


def icc_rows(reps: int) -> None:
    for target in RHOS:
        s = np.sqrt(target / (1 - target))
        for n in GRID_N:
            start = time.perf_counter()

            def draw(rng: np.random.Generator, n: int = n, s: float = s
                     ) -> tuple[float, float] | None:
                x = rng.normal(0, s, size=(n, 1)) + rng.normal(0, 1, size=(n, 3))
                forms = icc(x)
                return None if forms is None else forms["ICC(1,1)"].ci95

            cov, none = coverage(draw, target, reps, n)
            row("ICC(1,1) (F-based)", n, target, cov, none, time.perf_counter() - start)


def pass_rate_rows() -> None:
    for p in (0.03, 0.5, 0.97):
        for n in GRID_N:
            start = time.perf_counter()
            k = np.arange(n + 1)
            bounds = [wilson_interval(int(x), n) for x in k]
            covered = np.array([b is not None and b.low <= p <= b.high for b in bounds])
            row("SME pass rate (Wilson, exact)", n, p, float(binom.pmf(k, n, p)[covered].sum()),
                0.0, time.perf_counter() - start)


def mean_rows(reps: int) -> None:
    for theta in (0.2, 0.5, 0.85):
        for n in GRID_N:
            start = time.perf_counter()

            def draw(rng: np.random.Generator, n: int = n, theta: float = theta
                     ) -> tuple[float, float] | None:
                scores = rng.binomial(4, theta, size=n) / 4
                ci = bca_interval([scores], seed=int(rng.integers(2**31)))
                return None if ci is None else ci.bounds

            cov, none = coverage(draw, theta, reps, n)
            row("SME mean score (BCa)", n, theta, cov, none, time.perf_counter() - start)


def rubric_rows(reps: int) -> None:
    for theta in (0.2, 0.5, 0.85):
        second = min(theta + 0.05, 0.95)
        truth = 0.4 * theta + 0.6 * second
        for n in GRID_N:
            start = time.perf_counter()

            def draw(rng: np.random.Generator, n: int = n, theta: float = theta,
                     second: float = second) -> tuple[float, float] | None:
                samples = [rng.binomial(4, theta, size=n) / 4,
                           rng.binomial(4, second, size=n) / 4]
                ci = welch_interval(samples, [0.4, 0.6])
                return None if ci is None else ci.bounds

            cov, none = coverage(draw, truth, reps, n)
            row("Rubric score (Welch-Satterthwaite)", n, truth, cov, none,
                time.perf_counter() - start)


def table9_rows(reps: int) -> None:
    def macro(s: np.ndarray) -> float | None:
        ratios = [s[2 * i + 1] / s[2 * i] if s[2 * i] > 0 else None for i in range(4)]
        return None if any(r is None for r in ratios) else float(np.mean(ratios))  # type: ignore[arg-type]

    for q in (0.6, 0.8, 0.95):
        for n in GRID_N:
            start = time.perf_counter()

            def draw(rng: np.random.Generator, n: int = n, q: float = q
                     ) -> tuple[float, float] | None:
                units = np.array([1, 1, 1, 2])  # trajectory: two diagnoses per case
                rows = np.empty((n, 8))
                rows[:, 0::2] = units  # per target: [units, agreeing units], as table9 sums
                rows[:, 1::2] = rng.binomial(units, q, size=(n, 4))
                ci = wilson_effective_interval(rows, macro, float(rows[:, 0::2].sum()))
                return None if ci is None else ci.bounds

            cov, none = coverage(draw, q, reps, n)
            row("Table 9 cell (Wilson, effective n)", n, q, cov, none,
                time.perf_counter() - start)


# --- Issue 25, second part: the printed intervals that had no row yet (own functions) ---

SIMPLE: dict[str, Measure] = {
    "percent agreement": Measure("percent_agreement"),
    "unanimity": Measure("unanimity"),
    "PABAK": Measure("pabak", n_categories=K),
}
SIMPLE_N = (10, 20, 30, 100)  # 20: the general minimum, where these are printed from


def simple_truth(name: str, rho: float) -> float:
    """Exact population value under the rho model, 3 raters (see the docstring)."""
    hit, miss = rho + (1 - rho) / K, (1 - rho) / K  # P(a rater reports t), P(each other c)
    pair = hit**2 + (K - 1) * miss**2  # = rho^2 + (1 - rho^2) / K
    if name == "percent agreement":
        return pair
    if name == "unanimity":
        return hit**3 + (K - 1) * miss**3
    return (K * pair - 1) / (K - 1)  # PABAK = rho^2


def simple_agreement_rows(reps: int, only: set[str], grid_n: tuple[int, ...],
                          rhos: tuple[float, ...]) -> None:
    """Percent agreement, unanimity, PABAK: the app's case BCa, 3 raters, one unit a case."""
    for name, measure in SIMPLE.items():
        if only and name not in only:
            continue
        for rho in rhos:
            truth = simple_truth(name, rho)
            for n in grid_n:
                start = time.perf_counter()

                def draw(rng: np.random.Generator, n: int = n, rho: float = rho,
                         measure: Measure = measure) -> tuple[float, float] | None:
                    ci = measure.interval(ratings(rng, n, 3, rho))
                    return None if ci is None else ci.interval

                def below(rng: np.random.Generator, n: int = n, rho: float = rho,
                          measure: Measure = measure) -> tuple[float, float] | None:
                    r = ratings(rng, n, 3, rho)
                    ci = case_bootstrap_interval(r.codes, r.case_ids, measure.coefficient,
                                                 n_categories=measure.n_categories,
                                                 min_cases=MIN_CASES)
                    return None if ci is None else ci.interval

                seed = point_seed(name, n, truth)
                cov, none = coverage(draw, truth, reps, seed)
                if none == 1 and MIN_CASES <= n < min_cases_of(measure.coefficient):
                    would, _ = coverage(below, truth, reps, seed)
                    row(f"{name} (under its minimum: {would:.3f} if printed)", n, truth, cov,
                        none, time.perf_counter() - start)
                    continue
                row(name, n, truth, cov, none, time.perf_counter() - start)


TABLE9_Q = (0.6, 0.8, 0.95)
CASE_ICC = 0.2  # intra-case correlation of a case's units (trajectory, E/A/U)


def clustered(rng: np.random.Generator, units: np.ndarray, q: float) -> np.ndarray:
    """Agreeing units per case: Beta-binomial, mean q, intra-case correlation CASE_ICC."""
    s = (1 - CASE_ICC) / CASE_ICC
    p = rng.beta(q * s, (1 - q) * s, size=len(units))
    return rng.binomial(units, p)


def table9_target_rows(reps: int) -> None:
    """Table 9's per-target binary agreement and E/A/U label agreement, through table9._ci."""
    from annotator.judging.table9 import MIN_CASES as TABLE9_MIN
    from annotator.judging.table9 import _ci, _ratio

    name = "Table 9 target, one unit a case (Wilson, exact)"
    for q in TABLE9_Q:
        for n in GRID_N:  # one unit per case: Wilson, coverage exact from the binomial
            start = time.perf_counter()
            k = np.arange(n + 1)
            cis = [_ci([[1.0, 1.0]] * int(x) + [[1.0, 0.0]] * (n - int(x)), _ratio) for x in k]
            if all(ci is None for ci in cis):  # under its minimum: the interval if printed
                would = [wilson_interval(int(x), n, TABLE9_MIN) for x in k]
                hit = np.array([w is not None and w.low <= q <= w.high for w in would])
                row(f"{name} (under its minimum: {binom.pmf(k, n, q)[hit].sum():.3f} if "
                    "printed)", n, q, float("nan"), 1.0, time.perf_counter() - start)
                continue
            hit = np.array([ci is not None and ci[0] <= q <= ci[1] for ci in cis])
            row(name, n, q, float(binom.pmf(k, n, q)[hit].sum()), 0.0,
                time.perf_counter() - start)
    for label, (low, high) in (("Table 9 trajectory binary (2 units a case)", (2, 2)),
                               ("Table 9 E/A/U labels (1-4 diagnoses a case)", (1, 4))):
        for q in TABLE9_Q:
            for n in GRID_N:
                start = time.perf_counter()

                def draw(rng: np.random.Generator, n: int = n, q: float = q,
                         low: int = low, high: int = high) -> tuple[float, float] | None:
                    units = rng.integers(low, high + 1, size=n)
                    rows = np.column_stack([units, clustered(rng, units, q)]).astype(float)
                    ci = _ci(rows.tolist(), _ratio)
                    return None if ci is None else (ci[0], ci[1])

                cov, none = coverage(draw, q, reps, point_seed(label, n, q))
                row(label, n, q, cov, none, time.perf_counter() - start)


CRONBACH_K = 3  # benchmarks (items) of the rubric
CRONBACH_ALPHAS = (0.5, 0.7, 0.9)  # 0.7: the flag's bound


def cronbach_rows(reps: int, grid_n: tuple[int, ...], only_methods: tuple[str, ...] = ()) -> None:
    """Cronbach's alpha per rubric, normal and Binomial(4, theta)/4 cells: the app's ADF
    interval on ln(1 - alpha), plain ADF and Feldt for comparison. Each is measured at every
    n (the app prints none under ``CRONBACH_MIN_CASES``: its "no interval" column says so)."""
    from annotator.sme.consistency import (
        CRONBACH_MIN_CASES,
        adf_interval,
        cronbach_alpha,
        feldt_interval,
    )

    def feldt(x: np.ndarray) -> tuple[float, float] | None:
        value = cronbach_alpha(x)
        return None if value is None else feldt_interval(value, *x.shape)

    methods: dict[str, Callable[[np.ndarray], tuple[float, float] | None]] = {
        "ADF log": adf_interval,
        "ADF": lambda x: adf_interval(x, log=False),
        "Feldt": feldt,
    }
    k = CRONBACH_K
    for method, interval in methods.items():
        if only_methods and method not in only_methods:
            continue
        for model in ("normal", "binomial"):
            for alpha in CRONBACH_ALPHAS:
                rho = alpha / (k - (k - 1) * alpha)  # equal item correlation giving alpha
                for n in grid_n:
                    start = time.perf_counter()

                    def draw(rng: np.random.Generator, n: int = n, rho: float = rho,
                             model: str = model, interval: Callable[..., object] = interval
                             ) -> tuple[float, float] | None:
                        if model == "normal":
                            x = (rng.normal(0, np.sqrt(rho), size=(n, 1))
                                 + rng.normal(0, np.sqrt(1 - rho), size=(n, k)))
                        else:  # theta ~ Beta(0.6 s, 0.4 s): corr of two cells = 4 / (4 + s)
                            s = 4 * (1 - rho) / rho
                            theta = rng.beta(0.6 * s, 0.4 * s, size=(n, 1))
                            x = rng.binomial(4, np.repeat(theta, k, axis=1)) / 4
                        return interval(x)  # type: ignore[return-value]

                    name = f"Cronbach's alpha, k = {k} ({model}, {method})"
                    # The same seed for every method: they see the same data sets.
                    seed = point_seed(f"Cronbach's alpha, k = {k} ({model}, Feldt)", n, alpha)
                    cov, none = coverage(draw, alpha, reps, seed)
                    shown = " (app: none)" if method == "ADF log" and n < CRONBACH_MIN_CASES \
                        else ""
                    row(name + shown, n, alpha, cov, none, time.perf_counter() - start)


# --- issue 25: the quality figures and the system-comparison intervals ---------------------
#
# Quality (``agreement/quality.py`` ``compare``, the code ``annotator quality`` runs), one
# rated key per item, rho = 0.3, 0.6, 0.9:
# - categories: the reference (calibration/gold) or the rater's first rating is uniform over
#   5 categories; the rater (or their hidden repeat) copies it with probability rho, else
#   draws uniformly. Exact agreement's truth is rho + (1 - rho)/5 (Wilson: coverage exact,
#   from the binomial); Cohen's kappa against the reference and nominal alpha of first vs
#   repeat both equal rho in the population (uniform marginals).
# - scores: the first score (or the reference) is Binomial(4, 0.5)/4; the other copies it with
#   probability rho, else draws anew. Mean absolute difference: truth (1 - rho) E|X - X'|;
#   interval alpha: truth rho (equal marginals, D_o = (1 - rho) D_e).
# - ranking (exam order): 4 exams per item, each on a stage drawn uniformly from 1..3 (ties
#   possible); the repeat copies the whole order with probability rho, else draws anew.
#   Per-item order agreement's truth is rho + (1 - rho)/3 (a pair's relation <, =, > each 1/3).
# Comparison (``sme/compare.py`` ``compare``): two benchmarks of one rubric, weights 0.4 and
# 0.6, baselines a = 0.4 and -0.4 on the logit scale. Per case u ~ N(0, 1) shared by A and
# B (paired: the same case_ids) or one u per item (unpaired: no shared case); A's score
# Binomial(4, expit(a + u))/4, B's Binomial(4, expit(a + delta + u))/4, delta = 0, 0.4, 1.2
# (true differences 0, about 0.07 and 0.21); pass = score >= 0.5. Truths by Gauss-Hermite
# quadrature. Newcombe's interval (unpaired pass rates, independent binomials at the marginal
# pass rates) exactly by enumeration.

QUALITY_RHOS = (0.3, 0.6, 0.9)
QUALITY_N = (10, 20, 30, 100)
COMPARE_DELTAS = (0.0, 0.4, 1.2)
COMPARE_BASES = (("B1", 0.4, 0.4), ("B2", 0.6, -0.4))  # code, weight, baseline logit


def _quality_pairs(rng: np.random.Generator, n: int, rho: float, scale: str) -> list[object]:
    from annotator.agreement.quality import Pair

    copy = rng.random(n) < rho
    if scale == "ranking":
        first = rng.integers(1, 4, size=(n, 4))
        second = np.where(copy[:, None], first, rng.integers(1, 4, size=(n, 4)))
        return [Pair(f"i{i}", {f"stage:e{j}": int(first[i, j]) for j in range(4)},
                     {f"stage:e{j}": int(second[i, j]) for j in range(4)}) for i in range(n)]
    if scale == "scores":
        first = rng.binomial(4, 0.5, size=n) / 4
        second = np.where(copy, first, rng.binomial(4, 0.5, size=n) / 4)
        return [Pair(f"i{i}", {"score": float(first[i])}, {"score": float(second[i])})
                for i in range(n)]
    first = rng.integers(0, K, size=n)
    second = np.where(copy, first, rng.integers(0, K, size=n))
    return [Pair(f"i{i}", {"grade": f"c{first[i]}"}, {"grade": f"c{second[i]}"})
            for i in range(n)]


def _as_if_printed(pairs: list[object], scale: str) -> tuple[float, float] | None:
    """Intra-rater alpha's interval with the general minimum (its stated one is 100)."""
    from annotator.agreement.quality import _units, intra_measure, ratings_of

    r, k = ratings_of(_units(pairs, "score" if scale == "scores" else "grade"))  # type: ignore[arg-type]
    m = intra_measure(scale, max(k, 2))
    ci = case_bootstrap_interval(m.matrix(r), r.case_ids, m.coefficient,
                                 n_categories=m.n_categories, level=m.level,
                                 weights=m.weights, values=m.positions, min_cases=MIN_CASES)
    return None if ci is None else ci.interval


def quality_wilson_rows() -> None:
    """Exact agreement with the reference or the repeat (Wilson): exact binomial coverage."""
    for rho in QUALITY_RHOS:
        p = rho + (1 - rho) / K
        for n in QUALITY_N:
            start = time.perf_counter()
            k = np.arange(n + 1)
            bounds = [wilson_interval(int(x), n) for x in k]
            covered = np.array([b is not None and b.low <= p <= b.high for b in bounds])
            none = float(binom.pmf(k, n, p)[[b is None for b in bounds]].sum())
            row("quality: exact agreement (Wilson, exact)", n, p,
                float(binom.pmf(k, n, p)[covered].sum()) / (1 - none) if none < 1 else 0.0,
                none, time.perf_counter() - start)


def quality_rows(reps: int, only: set[str], grid_n: tuple[int, ...] = QUALITY_N,
                 rhos: tuple[float, ...] = QUALITY_RHOS) -> None:
    """Simulated quality figures, each through ``quality.compare`` (the report's code)."""
    from annotator.agreement.quality import compare as quality_compare

    scores = np.arange(5) / 4
    pmf = binom.pmf(np.arange(5), 4, 0.5)
    mean_abs = float(np.sum(pmf[:, None] * pmf[None, :]
                            * np.abs(scores[:, None] - scores[None, :])))
    # name -> (scale, against the reference, which figure, truth(rho))
    figures: dict[str, tuple[str, bool, str, Callable[[float], float]]] = {
        "quality-kappa": ("categories", True, "chance", lambda r: r),
        "quality-alpha-nominal": ("categories", False, "chance", lambda r: r),
        "quality-alpha-interval": ("scores", False, "chance", lambda r: r),
        "quality-mad": ("scores", False, "agreement", lambda r: (1 - r) * mean_abs),
        "quality-order": ("ranking", False, "agreement", lambda r: r + (1 - r) / 3),
    }
    titles = {
        "quality-kappa": "quality: Cohen's kappa vs reference (case BCa)",
        "quality-alpha-nominal": "quality: intra-rater alpha nominal (case BCa)",
        "quality-alpha-interval": "quality: intra-rater alpha interval (case BCa)",
        "quality-mad": "quality: mean absolute difference (BCa)",
        "quality-order": "quality: per-item order agreement (BCa)",
    }
    for name, (scale, reference, which, truth_of) in figures.items():
        if only and name not in only:
            continue
        for rho in rhos:
            truth = truth_of(rho)
            for n in grid_n:
                if n == 20 and name != "quality-kappa" and grid_n == QUALITY_N:
                    continue  # 20 is the kappa's minimum; the others start at 30 or 100
                start = time.perf_counter()
                family = "stage" if scale == "ranking" else (
                    "score" if scale == "scores" else "grade")

                def draw(rng: np.random.Generator, n: int = n, rho: float = rho,
                         scale: str = scale, reference: bool = reference, which: str = which,
                         family: str = family) -> tuple[float, float] | None:
                    found = quality_compare(_quality_pairs(rng, n, rho, scale), family,  # type: ignore[arg-type]
                                            against_reference=reference)
                    assert found is not None
                    fig = found.agreement if which == "agreement" else found.chance_corrected
                    if fig is None or fig.low is None or fig.high is None:
                        return None
                    return fig.low, fig.high

                seed = point_seed(name, n, truth)
                cov, none = coverage(draw, truth, reps, seed)
                shown = titles[name]
                if none == 1 and name.startswith("quality-alpha") and n >= MIN_CASES:
                    def below(rng: np.random.Generator, n: int = n, rho: float = rho,
                              scale: str = scale) -> tuple[float, float] | None:
                        return _as_if_printed(_quality_pairs(rng, n, rho, scale), scale)

                    would, _ = coverage(below, truth, reps, seed)
                    shown = f"{shown} (under its minimum: {would:.3f} if printed)"
                row(shown, n, truth, cov, none, time.perf_counter() - start)


def _expit(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


def compare_truths(delta: float) -> dict[str, float]:
    """True score and pass-rate differences per benchmark and the rubric's (quadrature)."""
    nodes, w = np.polynomial.hermite_e.hermegauss(80)
    w = w / w.sum()
    out: dict[str, float] = {}
    for code, _weight, base in COMPARE_BASES:
        ta, tb = _expit(base + nodes), _expit(base + delta + nodes)
        out[f"{code} score"] = float(np.sum(w * (tb - ta)))
        out[f"{code} pass"] = float(np.sum(w * (binom.sf(1, 4, tb) - binom.sf(1, 4, ta))))
        out[f"{code} pass A"] = float(np.sum(w * binom.sf(1, 4, ta)))
        out[f"{code} pass B"] = float(np.sum(w * binom.sf(1, 4, tb)))
    out["rubric"] = sum(weight * out[f"{code} score"] for code, weight, _b in COMPARE_BASES)
    return out


def _systems(rng: np.random.Generator, n: int, delta: float, paired: bool
             ) -> dict[str, tuple[str, float, list[object], list[object]]]:
    from annotator.sme.compare import Scored

    out: dict[str, tuple[str, float, list[object], list[object]]] = {}
    for code, weight, base in COMPARE_BASES:
        u_a = rng.normal(size=n)
        u_b = u_a if paired else rng.normal(size=n)
        sa = rng.binomial(4, _expit(base + u_a)) / 4
        sb = rng.binomial(4, _expit(base + delta + u_b)) / 4
        a = [Scored(f"c{i}" if paired else None, float(s), bool(s >= 0.5))
             for i, s in enumerate(sa)]
        b = [Scored(f"c{i}" if paired else None, float(s), bool(s >= 0.5))
             for i, s in enumerate(sb)]
        out[code] = ("R", weight, a, b)
    return out


def compare_rows(reps: int, paired: bool, grid_n: tuple[int, ...] = GRID_N,
                 deltas: tuple[float, ...] = COMPARE_DELTAS, tag: str = "") -> None:
    """One ``compare`` per replication gives B1's score and pass intervals and the rubric's."""
    from annotator.sme.compare import compare as compare_systems

    kind = "paired" if paired else "unpaired"
    labels = ({"score": "compare: score difference, paired (t)",
               "pass": "compare: pass-rate difference, paired (t)",
               "rubric": "compare: rubric difference, paired (normal)"} if paired else
              {"score": "compare: score difference, unpaired (Welch)",
               "pass": "compare: pass-rate difference, unpaired (Newcombe, simulated)",
               "rubric": "compare: rubric difference, unpaired (normal)"})
    for delta in deltas:
        truths = compare_truths(delta)
        for n in grid_n:
            start = time.perf_counter()
            rng = np.random.default_rng(point_seed(f"compare {kind}{tag}", n, delta))
            hits = dict.fromkeys(labels, 0)
            printed = dict.fromkeys(labels, 0)
            for _ in range(reps):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")  # ks_2samp's note on its exact method
                    found = compare_systems("A", "B", _systems(rng, n, delta, paired))  # type: ignore[arg-type]
                first = next(c for c in found.benchmarks if c.code == "B1")
                rubric = found.rubrics[0].ci if found.rubrics else None
                for key, ci, truth in (("score", first.ci, truths["B1 score"]),
                                       ("pass", first.pass_rate_ci, truths["B1 pass"]),
                                       ("rubric", rubric, truths["rubric"])):
                    if ci is not None:
                        printed[key] += 1
                        hits[key] += ci[0] <= truth <= ci[1]
            seconds = time.perf_counter() - start
            for key, label in labels.items():
                truth = truths["rubric" if key == "rubric" else f"B1 {key}"]
                cov = hits[key] / printed[key] if printed[key] else float("nan")
                row(label, n, truth, cov, 1 - printed[key] / reps, seconds)


def newcombe_exact_rows(grid_n: tuple[int, ...] = GRID_N,
                        deltas: tuple[float, ...] = COMPARE_DELTAS) -> None:
    """Newcombe's interval of p_B - p_A for independent binomials, by enumeration."""
    from annotator.sme.compare import _newcombe

    for delta in deltas:
        t = compare_truths(delta)
        pa, pb, truth = t["B1 pass A"], t["B1 pass B"], t["B1 pass"]
        for n in grid_n:
            start = time.perf_counter()
            k = np.arange(n + 1)
            weight = binom.pmf(k, n, pa)[:, None] * binom.pmf(k, n, pb)[None, :]
            covered = np.zeros((n + 1, n + 1), dtype=bool)
            for i in k:
                for j in k:
                    ci = _newcombe([True] * int(i) + [False] * (n - int(i)),
                                   [True] * int(j) + [False] * (n - int(j)))
                    covered[i, j] = ci is not None and ci[0] <= truth <= ci[1]
            row("compare: pass-rate difference, unpaired (Newcombe, exact)", n, truth,
                float(weight[covered].sum()), 0.0, time.perf_counter() - start)


def quality_and_compare_rows(reps: int, only: set[str], grid_n: list[int] | None,
              deltas: tuple[float, ...] = COMPARE_DELTAS, tag: str = "",
              rhos: tuple[float, ...] = QUALITY_RHOS) -> None:
    """The quality and comparison rows, on ``--only`` (``--n`` narrows their grid; ``--delta``
    and ``--seed-tag`` pick comparison points and an independent stream for a rerun)."""
    q_n = tuple(grid_n) if grid_n else QUALITY_N
    c_n = tuple(grid_n) if grid_n else GRID_N
    if not only or "quality-wilson" in only:
        quality_wilson_rows()
    quality = {name for name in only if name.startswith("quality-") and name != "quality-wilson"}
    if not only or quality:
        quality_rows(reps, quality, q_n, rhos)
    if not only or "newcombe-exact" in only:
        newcombe_exact_rows(c_n)
    for paired in (True, False):
        if not only or f"compare-{'paired' if paired else 'unpaired'}" in only:
            compare_rows(reps, paired, c_n, deltas, tag)


ORDER_N = (10, 20, 30, 50, 100)
ORDER_EXAMS = tuple(Exam(f"Figure {i + 1}") for i in range(4))
ORDER_FIGURES = ("strict order agreement", "mean Kendall tau-b")


def order_cases(rng: np.random.Generator, n: int, rho: float) -> tuple[CaseBasis, ...]:
    """n cases of the exam-order model (module docstring) as the report's case basis."""
    truth = rng.integers(1, 4, size=(n, 1, 4))
    noise = rng.integers(1, 4, size=(n, 3, 4))
    stages = np.where(rng.random((n, 3, 1)) < rho, truth, noise)
    return tuple(
        CaseBasis(f"c{c}", ORDER_EXAMS, {
            f"k{r}": {f"stage:{e.figure}": {"value": int(stages[c, r, i])}
                      for i, e in enumerate(ORDER_EXAMS)} for r in range(3)})
        for c in range(n))


def _order_pair(details: dict[str, object]) -> tuple[tuple[float, float] | None, ...]:
    strict, tau = details["strict_agreement"], details["kendall_tau_b"]
    return strict["ci95"], tau["ci95"]  # type: ignore[index]


def order_truth(rho: float, cases: int = 50_000) -> tuple[float, float]:
    """Strict agreement and mean tau-b by the app's estimator on many cases of the model."""
    rng = np.random.default_rng(zlib.crc32(f"order truth|{rho}".encode()))
    details = order_details(order_cases(rng, cases, rho), [], ReportOptions(n_resamples=1))
    return details["strict_agreement"]["value"], details["kendall_tau_b"]["mean"]


def exam_order_rows(reps: int, grid_n: tuple[int, ...] = ORDER_N,
                    rhos: tuple[float, ...] = RHOS) -> None:
    """Both exam-order intervals per replication, from one ``order_details`` call."""
    options = ReportOptions()
    for rho in rhos:
        truths = order_truth(rho)
        for n in grid_n:
            start = time.perf_counter()
            rng = np.random.default_rng(point_seed("exam-order", n, rho))
            hits, printed = [0, 0], [0, 0]
            for _ in range(reps):
                cis = _order_pair(order_details(order_cases(rng, n, rho), [], options))
                for i, ci in enumerate(cis):
                    if ci is not None:
                        printed[i] += 1
                        hits[i] += ci[0] <= truths[i] <= ci[1]
            seconds = time.perf_counter() - start
            for i, name in enumerate(ORDER_FIGURES):
                cov = hits[i] / printed[i] if printed[i] else float("nan")
                row(f"{name} (rho {rho})", n, truths[i], cov, 1 - printed[i] / reps, seconds)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=1000)
    parser.add_argument("--only", nargs="*", default=[],
                        help="agreement figures by name, or: icc pass mean rubric table9 "
                        "table9-targets cronbach; quality-wilson quality-kappa "
                        "quality-alpha-nominal quality-alpha-interval quality-mad "
                        "quality-order; compare-paired compare-unpaired newcombe-exact; exam-order")
    parser.add_argument("--n", nargs="*", type=int, default=None,
                        help="grid sizes (default 10 30 100; 10 20 30 100 for percent "
                        "agreement, unanimity and PABAK)")
    parser.add_argument("--rho", nargs="*", type=float, default=list(RHOS),
                        help="agreement grid: the raters' copy probabilities")
    parser.add_argument("--as-if-printed", action="store_true",
                        help="agreement intervals from the general minimum, not the stated")
    parser.add_argument("--delta", nargs="*", type=float, default=list(COMPARE_DELTAS),
                        help="comparison grid: B's logit shift (default 0 0.4 1.2)")
    parser.add_argument("--seed-tag", default="",
                        help="comparison rows: a tag for an independent seed (reruns)")
    parser.add_argument("--cronbach-method", nargs="*", default=[],
                        help="Cronbach's alpha intervals: 'ADF log' ADF Feldt (default all)")
    args = parser.parse_args()
    only = set(args.only)
    print("| figure | n | true value | coverage | no interval | run time |")
    print("|---|---|---|---|---|---|")
    if not only or "pass" in only:
        pass_rate_rows()
    if not only or "mean" in only:
        mean_rows(args.reps)
    if not only or "rubric" in only:
        rubric_rows(args.reps)
    if not only or "table9" in only:
        table9_rows(args.reps)
    if not only or "icc" in only:
        icc_rows(args.reps)
    quality_and_compare_rows(args.reps, only, args.n,
              tuple(args.delta), args.seed_tag, tuple(args.rho))
    names = only & set(MEASURES)
    if not only or names:
        agreement_rows(args.reps, names, tuple(args.n or GRID_N), tuple(args.rho),
                       args.as_if_printed)
    simple = only & set(SIMPLE)
    if not only or simple:
        simple_agreement_rows(args.reps, simple, tuple(args.n or SIMPLE_N), tuple(args.rho))
    if not only or "table9-targets" in only:
        table9_target_rows(args.reps)
    if not only or "cronbach" in only:
        cronbach_rows(args.reps, tuple(args.n or GRID_N), tuple(args.cronbach_method))
    if not only or "exam-order" in only:
        exam_order_rows(args.reps, tuple(args.n or ORDER_N), tuple(args.rho))


if __name__ == "__main__":
    main()
