"""The agreement report's latent-class view of a categorical family (Dawid-Skene).

A second opinion beside adjudication, not a replacement: for each rater the estimated chance
of giving the consensus label, their confusion matrix, and the units whose consensus is
contested (no class reaches :data:`CONTESTED_BELOW` posterior). Families whose units are
mirrored (exam pairs counted in both orientations) are left out: each pair would be counted
twice. Fewer than :data:`MIN_UNITS` units give no estimate (EM on a handful of units only
echoes the votes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from annotator.agreement.families import FamilyRatings
from annotator.agreement.latent_class import dawid_skene

MIN_UNITS = 10
CONTESTED_BELOW = 0.8
_TOP_CONTESTED = 20


def latent_class_section(r: FamilyRatings, names: list[str]) -> dict[str, Any] | None:
    """The JSON-ready Dawid-Skene view of ``r``; None for non-categorical or mirrored families."""
    f = r.family
    if f.level not in ("nominal", "ordinal") or f.mirror is not None:
        return None
    section: dict[str, Any] = {
        "method": "Dawid-Skene expectation-maximisation (majority-vote start, at most 100 "
                  "iterations, stop when the log-likelihood per rating gains < 1e-5)",
        "contested_below": CONTESTED_BELOW,
        "min_units": MIN_UNITS,
        "n_units": r.n_units,
    }
    estimate = dawid_skene(r.matrix, len(f.labels)) if r.n_units >= MIN_UNITS else None
    if estimate is None:
        section["note"] = f"too few units to estimate (fewer than {MIN_UNITS})"
        return section
    labels = list(f.labels)
    rated = ~np.isnan(r.matrix)
    accuracy = estimate.rater_accuracy()
    contested = np.flatnonzero(estimate.contested(CONTESTED_BELOW))
    ranked = sorted(contested.tolist(), key=lambda u: float(estimate.posteriors[u].max()))
    section.update({
        "converged": estimate.converged,
        "iterations": estimate.iterations,
        "priors": dict(zip(labels, estimate.priors.tolist(), strict=True)),
        "raters": [
            {"rater": names[j], "n_ratings": int(rated[:, j].sum()),
             "accuracy": float(accuracy[j]),
             "confusion": {true: dict(zip(labels, estimate.confusion[j, t].tolist(),
                                          strict=True))
                           for t, true in enumerate(labels)}}
            for j in range(len(names)) if rated[:, j].any()
        ],
        "n_contested": int(contested.size),
        "contested": [
            {"case_id": r.case_ids[u], "item": r.items[u],
             "consensus": labels[int(estimate.posteriors[u].argmax())],
             "posterior": float(estimate.posteriors[u].max())}
            for u in ranked[:_TOP_CONTESTED]
        ],
    })
    return section
