"""The settings an agreement report states in its basis (shared by every statistics module)."""

from __future__ import annotations

from dataclasses import dataclass

from annotator.agreement.kappa_choice import KappaChoice


@dataclass(frozen=True)
class ReportOptions:
    """Settings stated in the report's basis: bootstrap, pair kappa minimum, list lengths."""

    n_resamples: int = 1000
    seed: int = 0
    min_shared: int = 30  # Cohen's kappa of an annotator pair needs this many shared units
    min_cases: int = 20  # fewer cases: no bootstrap interval
    top_n: int = 10  # cases listed as contributing most disagreement
    kappa: KappaChoice = KappaChoice()  # the headline kappa (ordinal families' weights)
