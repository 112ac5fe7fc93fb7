"""Cohen's kappa against published tables, statsmodels and scikit-learn."""

from __future__ import annotations

from collections.abc import Callable
from itertools import combinations

import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import cohens_kappa

from annotator.agreement import (
    cohen_kappa,
    confusion_matrix,
    kappa_from_confusion,
    mean_pairwise_cohen_kappa,
    pairwise_cohen_kappas,
)

MakeCodes = Callable[..., np.ndarray]
NAN = np.nan
SAS_TABLE = [[0, 4, 1], [0, 8, 0], [0, 1, 5]]  # statsmodels' table10, a SAS example


def expand(table: list[list[int]]) -> tuple[np.ndarray, np.ndarray]:
    """Two raters' codes reproducing a confusion table."""
    a, b = [], []
    for i, row in enumerate(table):
        for j, count in enumerate(row):
            a += [i] * count
            b += [j] * count
    return np.array(a, dtype=float), np.array(b, dtype=float)


def test_cohen_two_by_two_textbook_value() -> None:
    table = [[20, 5], [10, 15]]
    assert kappa_from_confusion(table) == pytest.approx(0.40)
    assert cohen_kappa(*expand(table), n_categories=2) == pytest.approx(0.40)


def test_sas_three_by_three_unweighted_and_linear() -> None:
    assert round(kappa_from_confusion(SAS_TABLE), 4) == 0.4842  # type: ignore[arg-type]
    assert round(kappa_from_confusion(SAS_TABLE, "linear"), 4) == 0.4701  # type: ignore[arg-type]
    a, b = expand(SAS_TABLE)
    assert cohen_kappa(a, b, 3, weights="linear") == pytest.approx(
        cohens_kappa(SAS_TABLE, weights=[0, 1, 2], return_results=False)
    )
    assert confusion_matrix(a, b, 3).tolist() == SAS_TABLE


@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_matches_sklearn_with_full_label_set(make_codes: MakeCodes, weights: str | None) -> None:
    for _ in range(5):
        codes = make_codes(70, 2, 5)
        ours = cohen_kappa(codes[:, 0], codes[:, 1], 5, weights=weights)  # type: ignore[arg-type]
        theirs = cohen_kappa_score(codes[:, 0], codes[:, 1], labels=range(5), weights=weights)
        assert ours == pytest.approx(theirs)


def test_unused_category_changes_weighted_kappa_and_we_pass_it() -> None:
    # Categories 0, 1 and 3 of 0..3 are used: position of 3 is 3, not 2.
    a = np.array([0, 1, 3, 3, 1, 0, 3, 1], dtype=float)
    b = np.array([0, 3, 3, 1, 1, 0, 3, 0], dtype=float)
    ours = cohen_kappa(a, b, 4, weights="linear")
    assert ours == pytest.approx(cohen_kappa_score(a, b, labels=[0, 1, 2, 3], weights="linear"))
    assert ours != pytest.approx(cohen_kappa_score(a, b, weights="linear"))


def test_matches_statsmodels_on_random_tables(rng: np.random.Generator) -> None:
    for _ in range(10):
        table = rng.integers(0, 12, size=(4, 4)) + np.diag(rng.integers(5, 20, size=4))
        assert kappa_from_confusion(table) == pytest.approx(cohens_kappa(table).kappa)
        assert kappa_from_confusion(table, "linear") == pytest.approx(
            cohens_kappa(table, wt="linear").kappa
        )
        values = [0.0, 1.0, 5.0, 6.0]
        assert kappa_from_confusion(table, "linear", values) == pytest.approx(
            cohens_kappa(table, weights=values, wt="linear").kappa
        )


def test_missing_ratings_drop_the_unit() -> None:
    a = np.array([0, 1, NAN, 1, 0, 2])
    b = np.array([0, 1, 2, NAN, 1, 2])
    assert cohen_kappa(a, b, 3) == pytest.approx(
        cohen_kappa_score([0, 1, 0, 2], [0, 1, 1, 2], labels=[0, 1, 2])
    )


def test_undefined_kappa_is_none() -> None:
    same = np.zeros(10)
    assert cohen_kappa(same, same, 3) is None  # chance agreement is 1
    assert cohen_kappa(np.array([NAN, 1.0]), np.array([0.0, NAN]), 2) is None
    assert kappa_from_confusion([[3]]) is None
    with pytest.raises(ValueError, match="category code"):
        cohen_kappa(np.array([0.0, 3.0]), np.array([0.0, 1.0]), 3)


def test_pairwise_and_mean_pairwise(make_codes: MakeCodes) -> None:
    codes = make_codes(60, 3, 4, missing=0.2)
    pairs = pairwise_cohen_kappas(codes, 4, weights="linear")
    assert [(p.first, p.second) for p in pairs] == list(combinations(range(3), 2))
    for p in pairs:
        both = ~np.isnan(codes[:, p.first]) & ~np.isnan(codes[:, p.second])
        assert p.n_shared == both.sum()
        assert p.kappa == pytest.approx(
            cohen_kappa_score(
                codes[both, p.first], codes[both, p.second], labels=range(4), weights="linear"
            )
        )
    expected = np.mean([p.kappa for p in pairs])
    assert mean_pairwise_cohen_kappa(codes, 4, weights="linear") == pytest.approx(expected)
    # Below the minimum of shared units a pair is n/a, with its count kept.
    limited = pairwise_cohen_kappas(codes, 4, min_shared=1000)
    assert all(p.kappa is None and p.n_shared > 0 for p in limited)
    assert mean_pairwise_cohen_kappa(codes, 4, min_shared=1000) is None
