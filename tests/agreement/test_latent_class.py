"""Dawid-Skene: recovers planted confusion matrices and matches crowd-kit's estimates."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from annotator.agreement.latent_class import dawid_skene

K = 3
# Three raters of planted reliability: good, fair, and one who confuses class 2 with class 1.
PLANTED = np.array([
    [[0.92, 0.05, 0.03], [0.04, 0.90, 0.06], [0.03, 0.05, 0.92]],
    [[0.75, 0.15, 0.10], [0.12, 0.76, 0.12], [0.10, 0.15, 0.75]],
    [[0.85, 0.10, 0.05], [0.05, 0.85, 0.10], [0.05, 0.55, 0.40]],
])
PRIORS = np.array([0.5, 0.3, 0.2])


def _generate(n_units: int, seed: int, raters_per_unit: int = 3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    truth = rng.choice(K, size=n_units, p=PRIORS)
    n_raters = len(PLANTED)
    matrix = np.full((n_units, n_raters), np.nan)
    for u, true_class in enumerate(truth):
        for r in rng.choice(n_raters, size=raters_per_unit, replace=False):
            matrix[u, r] = rng.choice(K, p=PLANTED[r, true_class])
    return matrix, truth


def test_recovers_planted_confusion_matrices_within_tolerance() -> None:
    matrix, truth = _generate(3000, seed=7)
    estimate = dawid_skene(matrix, K, max_iterations=500, tol=1e-9)
    assert estimate is not None and estimate.converged
    # Stated tolerance: 0.08 on every cell (about 3.5 standard errors of the rarest class's
    # cells at 3,000 units rated thrice) and 0.05 on the priors.
    np.testing.assert_allclose(estimate.confusion, PLANTED, atol=0.08)
    np.testing.assert_allclose(estimate.priors, PRIORS, atol=0.05)
    assert (estimate.consensus() == truth).mean() > 0.9
    assert np.argmax(estimate.rater_accuracy()) == 0


@pytest.mark.filterwarnings("ignore::Warning:crowdkit")  # its pandas deprecations, not ours
def test_matches_crowd_kit_on_the_same_data() -> None:
    crowdkit = pytest.importorskip("crowdkit.aggregation")
    matrix, _ = _generate(400, seed=3, raters_per_unit=2)
    # Some raters skip units: missing ratings must be handled as crowd-kit does (absent rows).
    units, raters = np.nonzero(~np.isnan(matrix))
    frame = pd.DataFrame({"task": units, "worker": raters,
                          "label": matrix[units, raters].astype(int)})
    # The same number of EM steps on both sides (crowd-kit stops on its own bound, not on the
    # likelihood, so its early stop is switched off with tol=-inf).
    reference = crowdkit.DawidSkene(n_iter=60, tol=-np.inf)
    probas = reference.fit_predict_proba(frame).sort_index()
    ours = dawid_skene(matrix, K, max_iterations=60, tol=-np.inf)
    assert ours is not None
    np.testing.assert_allclose(ours.posteriors[probas.index.to_numpy()],
                               probas[list(range(K))].to_numpy(), atol=1e-6)
    np.testing.assert_allclose(ours.priors, reference.priors_.sort_index().to_numpy(), atol=1e-6)
    errors = reference.errors_  # index (worker, observed label), columns true label
    for r in range(matrix.shape[1]):
        block = errors.loc[r].reindex(range(K)).fillna(0.0)[list(range(K))].to_numpy()
        np.testing.assert_allclose(ours.confusion[r].T, block, atol=1e-6)


def test_unrated_units_keep_the_priors_and_bad_codes_are_refused() -> None:
    matrix, _ = _generate(200, seed=1)
    matrix[0] = np.nan
    estimate = dawid_skene(matrix, K)
    assert estimate is not None
    np.testing.assert_allclose(estimate.posteriors[0], estimate.priors)
    assert dawid_skene(np.full((3, 2), np.nan), K) is None
    assert dawid_skene(matrix, 1) is None
    with pytest.raises(ValueError, match="codes 0..2"):
        dawid_skene(np.array([[0.0, 3.0]]), K)


def test_contested_units_are_those_with_split_posteriors() -> None:
    # Two raters who always disagree on unit 0 and agree elsewhere.
    matrix = np.array([[0, 1]] + [[0, 0], [1, 1], [2, 2]] * 20, dtype=float)
    estimate = dawid_skene(matrix, K)
    assert estimate is not None
    contested = estimate.contested(0.8)
    assert contested[0] and not contested[1:].any()
