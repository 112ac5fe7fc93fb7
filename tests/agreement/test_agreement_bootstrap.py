"""Case bootstrap on per-case sufficient statistics, checked against a naive bootstrap:
scipy's BCa (``scipy.stats.bootstrap``, which draws the app's resamples from the same seed)
of the coefficient recomputed from the rows of the drawn cases."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy.stats import bootstrap

from annotator.agreement import (
    bootstrap_ci,
    bootstrap_draws,
    case_bootstrap,
    cohen_kappa,
    decompose,
    fleiss_kappa,
    gwet_ac1,
    kappa_from_confusion,
    krippendorff_alpha,
    mean_pairwise_cohen_kappa,
    pabak,
    per_case_sums,
    percent_agreement,
    unanimity,
)

MakeCodes = Callable[..., np.ndarray]


def synthetic_rows(
    make_codes: MakeCodes, rng: np.random.Generator, n_cases: int, missing: float
) -> pd.DataFrame:
    """Long rows (case, unit, rater, code): each case has 1-5 units (e.g. steps)."""
    sizes = rng.integers(1, 6, size=n_cases)
    codes = make_codes(int(sizes.sum()), 3, 3, missing=missing)
    cases = np.repeat([f"c{i}" for i in range(n_cases)], sizes)
    units = np.concatenate([np.arange(s) for s in sizes])
    wide = pd.DataFrame(codes, columns=["r1", "r2", "r3"]).assign(case=cases, unit=units)
    return wide.melt(id_vars=["case", "unit"], var_name="rater", value_name="code").dropna()


def naive_bca(
    rows: pd.DataFrame, function: Callable[[np.ndarray], float | None], n_resamples: int,
    seed: int,
) -> tuple[float, float]:
    """scipy's BCa over cases of ``function`` recomputed from the drawn cases' rows."""
    cases = list(dict.fromkeys(rows["case"]))
    by_case = dict(tuple(rows.groupby("case")))

    def of_cases(draw: np.ndarray) -> float:
        # Re-key each drawn case so a case drawn twice stays two distinct cases.
        parts = [by_case[cases[int(c)]].assign(case=f"{cases[int(c)]}#{position}")
                 for position, c in enumerate(draw)]
        value = function(to_matrix(pd.concat(parts))[0])
        return np.nan if value is None else float(value)

    assert (bootstrap_draws(len(cases), n_resamples, seed)
            == np.random.default_rng(seed).integers(0, len(cases), (n_resamples, len(cases)))
            ).all()  # scipy draws the app's resamples
    result = bootstrap((np.arange(len(cases)),), of_cases, n_resamples=n_resamples,
                       method="BCa", vectorized=False, random_state=np.random.default_rng(seed))
    return float(result.confidence_interval.low), float(result.confidence_interval.high)


def to_matrix(rows: pd.DataFrame) -> tuple[np.ndarray, list[Any]]:
    wide = rows.pivot_table(index=["case", "unit"], columns="rater", values="code", sort=False)
    wide = wide.reindex(columns=["r1", "r2", "r3"])
    return wide.to_numpy(dtype=float), [case for case, _ in wide.index]


COEFFICIENTS: dict[str, tuple[Callable[[np.ndarray], float | None], dict[str, Any]]] = {
    "percent_agreement": (percent_agreement, {}),
    "unanimity": (unanimity, {}),
    "pabak": (lambda m: pabak(m, 3), {"n_categories": 3}),
    "gwet_ac1": (lambda m: gwet_ac1(m, 3), {"n_categories": 3}),
    "krippendorff_alpha": (
        lambda m: krippendorff_alpha(m, "ordinal", value_domain=range(3)),
        {"n_categories": 3, "level": "ordinal"},
    ),
    "mean_pairwise_cohen_kappa": (
        lambda m: mean_pairwise_cohen_kappa(m, 3, weights="linear"),
        {"n_categories": 3, "weights": "linear"},
    ),
}


@pytest.mark.parametrize("name", sorted(COEFFICIENTS))
def test_matches_naive_recompute_from_rows_with_same_draws(
    make_codes: MakeCodes, rng: np.random.Generator, name: str
) -> None:
    rows = synthetic_rows(make_codes, rng, n_cases=25, missing=0.15)
    function, options = COEFFICIENTS[name]
    matrix, case_ids = to_matrix(rows)
    expected = naive_bca(rows, function, 40, 7)
    ours = case_bootstrap(matrix, case_ids, name, n_resamples=40, seed=7, **options)  # type: ignore[arg-type]
    assert ours == pytest.approx(expected)


def test_fleiss_and_cohen_match_naive_recompute(
    make_codes: MakeCodes, rng: np.random.Generator
) -> None:
    rows = synthetic_rows(make_codes, rng, n_cases=30, missing=0.0)
    matrix, case_ids = to_matrix(rows)
    fleiss = case_bootstrap(
        matrix, case_ids, "fleiss_kappa", n_categories=3, n_resamples=30, seed=3
    )
    cohen = case_bootstrap(
        matrix[:, [0, 2]], case_ids, "cohen_kappa", n_categories=3, n_resamples=30, seed=3
    )
    assert fleiss == pytest.approx(naive_bca(rows, lambda m: fleiss_kappa(m, 3), 30, 3))
    assert cohen == pytest.approx(
        naive_bca(rows, lambda m: cohen_kappa(m[:, 0], m[:, 2], 3), 30, 3))


def test_decompositions_reproduce_the_point_estimates(make_codes: MakeCodes) -> None:
    codes = make_codes(120, 4, 4, missing=0.25)
    assert decompose(codes, "percent_agreement").value() == percent_agreement(codes)
    assert decompose(codes, "gwet_ac1", n_categories=4).value() == pytest.approx(gwet_ac1(codes, 4))
    complete = make_codes(50, 3, 4)
    assert decompose(complete, "fleiss_kappa", n_categories=4).value() == pytest.approx(
        fleiss_kappa(complete, 4)
    )


def test_duplicate_draws_count_as_distinct_cases() -> None:
    n = 25
    seen: list[np.ndarray] = []

    def record(sums: np.ndarray) -> float:
        seen.append(sums.copy())
        return float(sums.sum())

    bootstrap_ci(np.eye(n), record, n_resamples=5, seed=11)
    draws = bootstrap_draws(n, 5, seed=11)
    # The estimate on all cases, the 5 resamples, then the 25 leave-one-case-out sums (BCa).
    assert len(seen) == 1 + 5 + n and np.array_equal(seen[0], np.ones(n))
    for sums, draw in zip(seen[1:6], draws, strict=True):
        assert np.array_equal(sums, np.bincount(draw, minlength=n))
    assert all(np.array_equal(sums, 1 - np.eye(n)[c]) for c, sums in enumerate(seen[6:]))
    assert any(np.bincount(draw).max() > 1 for draw in draws)


def test_seeded_reproducibility_and_min_cases(make_codes: MakeCodes) -> None:
    codes = make_codes(60, 2, 3)
    case_ids = [f"c{u // 3}" for u in range(60)]  # 20 cases of 3 units
    first = case_bootstrap(codes, case_ids, "percent_agreement", seed=5)
    assert first is not None
    assert case_bootstrap(codes, case_ids, "percent_agreement", seed=5) == first
    assert case_bootstrap(codes, case_ids, "percent_agreement", seed=6) != first
    assert case_bootstrap(codes[:57], case_ids[:57], "percent_agreement", seed=5) is None


def test_ci_contains_point_estimate_on_large_synthetic_set(make_codes: MakeCodes) -> None:
    codes = make_codes(3000, 3, 3, missing=0.1)
    case_ids = [u // 3 for u in range(3000)]  # 1,000 cases
    for name, point, options in [
        ("percent_agreement", percent_agreement(codes), {}),
        ("gwet_ac1", gwet_ac1(codes, 3), {"n_categories": 3}),
        ("krippendorff_alpha", krippendorff_alpha(codes, "nominal"), {"level": "nominal"}),
        ("mean_pairwise_cohen_kappa", mean_pairwise_cohen_kappa(codes, 3), {"n_categories": 3}),
    ]:
        ci = case_bootstrap(codes, case_ids, name, **options)  # type: ignore[arg-type]
        assert ci is not None and point is not None
        assert ci[0] < point < ci[1]
        assert ci[1] - ci[0] < 0.1


def test_degenerate_resamples_are_dropped() -> None:
    # Changed (issue 16): resamples without the one disagreeing case have no kappa; they are
    # dropped (and counted, see test_agreement_weighted) instead of voiding the interval.
    codes = np.zeros((25, 2))
    codes[0] = [0, 1]
    case_ids = list(range(25))
    assert case_bootstrap(codes, case_ids, "cohen_kappa", n_categories=2) == (0.0, 0.0)
    assert case_bootstrap(codes, case_ids, "percent_agreement") is not None
    # Nobody ever varies: Fleiss' kappa is undefined in every resample.
    varying = np.zeros((25, 3))
    varying[0, 2] = np.nan
    assert case_bootstrap(varying, case_ids, "fleiss_kappa", n_categories=2) is None


def test_kappa_from_per_case_confusion_tensors(make_codes: MakeCodes) -> None:
    codes = make_codes(200, 2, 4)
    case_ids = [u // 4 for u in range(200)]
    one_hot = np.zeros((200, 4, 4))
    one_hot[np.arange(200), codes[:, 0].astype(int), codes[:, 1].astype(int)] = 1
    cases, tensors = per_case_sums(one_hot, case_ids)
    assert cases == list(range(50)) and tensors.shape == (50, 4, 4)
    ci = bootstrap_ci(tensors, lambda s: kappa_from_confusion(s, "linear"))
    assert ci == case_bootstrap(codes, case_ids, "cohen_kappa", n_categories=4, weights="linear")
    with pytest.raises(ValueError, match="case ids"):
        per_case_sums(one_hot, case_ids[:-1])
