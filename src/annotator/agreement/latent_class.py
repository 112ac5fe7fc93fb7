"""Latent-class consensus: Dawid and Skene's (1979) expectation-maximisation.

A second opinion beside adjudication. Each rater r is a confusion matrix
``confusion[r, true, observed]`` (the chance that r says ``observed`` when the item's true
class is ``true``); each item has a posterior over the true classes. Items whose posterior
is split are contested; a rater whose diagonal is low deviates from the consensus.

The updates are the classic ones, as crowd-kit's ``DawidSkene`` implements them (its
estimates are the test oracle): posteriors start from the share of each item's votes
(majority vote), the M-step counts each rater's labels weighted by the posteriors (cells
clipped at 1e-10 so no label becomes impossible), priors are the mean posterior, and the
E-step multiplies the prior by the raters' likelihoods in log space. Iteration stops when
the log-likelihood of the ratings, per rating, gains less than ``tol``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt
from scipy.special import logsumexp

from annotator.agreement._matrix import FloatArray, as_ratings

_EPS = 1e-10


@dataclass(frozen=True)
class LatentClassEstimate:
    """Dawid-Skene estimates for a units x raters matrix of category codes.

    ``priors[c]``: the share of true class c; ``confusion[r, c, o]``: rater r's chance of
    label o on an item of true class c (rows sum to 1); ``posteriors[u, c]``: item u's
    chance of true class c (a unit with no rating keeps the priors); ``iterations`` of EM
    run and whether the likelihood ``converged`` within them.
    """

    priors: FloatArray
    confusion: FloatArray
    posteriors: FloatArray
    iterations: int
    converged: bool
    log_likelihood: float

    def consensus(self) -> npt.NDArray[np.int64]:
        """The most probable true class of each unit."""
        return np.asarray(self.posteriors.argmax(axis=1), dtype=np.int64)

    def contested(self, threshold: float = 0.8) -> npt.NDArray[np.bool_]:
        """Units whose most probable class has a posterior below ``threshold``."""
        return np.asarray(self.posteriors.max(axis=1) < threshold)

    def rater_accuracy(self) -> FloatArray:
        """Each rater's chance of the true label, averaged over the classes by their priors."""
        diagonal = np.diagonal(self.confusion, axis1=1, axis2=2)
        return np.asarray(diagonal @ self.priors, dtype=np.float64)


def _one_hot(codes: FloatArray, k: int) -> FloatArray:
    """units x raters x k indicators (all zero where a rating is missing)."""
    present = ~np.isnan(codes)
    out = np.zeros((*codes.shape, k))
    units, raters = np.nonzero(present)
    out[units, raters, codes[present].astype(np.int64)] = 1.0
    return out


def _m_step(labels: FloatArray, posteriors: FloatArray) -> FloatArray:
    # counts[r, c, o] = sum over units of P(unit is c) * [r said o on the unit]
    counts = np.einsum("uc,uro->rco", posteriors, labels)
    counts = np.clip(counts, _EPS, None)
    return np.asarray(counts / counts.sum(axis=2, keepdims=True), dtype=np.float64)


def _log_joint(labels: FloatArray, priors: FloatArray, confusion: FloatArray) -> FloatArray:
    """log P(true class c, the unit's ratings), units x classes."""
    log_prior = np.log(np.clip(priors, _EPS, None))
    return np.asarray(log_prior[None, :] + np.einsum("uro,rco->uc", labels, np.log(confusion)),
                      dtype=np.float64)


def _e_step(labels: FloatArray, priors: FloatArray, confusion: FloatArray) -> FloatArray:
    log_joint = _log_joint(labels, priors, confusion)
    return np.asarray(np.exp(log_joint - logsumexp(log_joint, axis=1, keepdims=True)),
                      dtype=np.float64)


def _log_likelihood(
    labels: FloatArray, rated: npt.NDArray[np.bool_], priors: FloatArray, confusion: FloatArray
) -> float:
    """The observed data's log-likelihood (EM never lowers it)."""
    return float(logsumexp(_log_joint(labels[rated], priors, confusion), axis=1).sum())


def dawid_skene(
    matrix: npt.ArrayLike, n_categories: int, *, max_iterations: int = 100, tol: float = 1e-5
) -> LatentClassEstimate | None:
    """Dawid-Skene estimates of a units x raters matrix of codes ``0..n_categories-1``.

    Missing ratings are ``nan``. None when no unit has a rating or ``n_categories < 2``.
    """
    codes = as_ratings(matrix)
    if n_categories < 2 or not (~np.isnan(codes)).any():
        return None
    observed = codes[~np.isnan(codes)]
    if observed.min() < 0 or observed.max() >= n_categories or (observed % 1).any():
        raise ValueError(f"ratings must be codes 0..{n_categories - 1}")
    labels = _one_hot(codes, n_categories)
    votes = labels.sum(axis=1)
    rated = votes.sum(axis=1) > 0
    posteriors = np.full((codes.shape[0], n_categories), 1.0 / n_categories)
    posteriors[rated] = votes[rated] / votes[rated].sum(axis=1, keepdims=True)
    priors = posteriors[rated].mean(axis=0)
    confusion = _m_step(labels, posteriors)
    n_ratings = float(labels.sum())
    previous, iterations, converged, loss = -np.inf, 0, False, -np.inf
    while iterations < max_iterations:
        iterations += 1
        posteriors = _e_step(labels, priors, confusion)
        priors = posteriors[rated].mean(axis=0)
        confusion = _m_step(labels, posteriors)
        loss = _log_likelihood(labels, rated, priors, confusion) / n_ratings
        if loss - previous < tol:
            converged = True
            break
        previous = loss
    posteriors[~rated] = priors
    return LatentClassEstimate(priors, confusion, posteriors, iterations, converged, loss)
