"""Inter-annotator agreement statistics (Qt-free; numpy, scipy and ``krippendorff``).

Data model: a ratings matrix is units x raters, float, ``np.nan`` = missing. Labels are
mapped to integer codes ``0..k-1`` over the FULL label set beforehand and ``n_categories=k``
is passed, so unused categories still count. Every coefficient returns ``None`` ("n/a")
instead of raising when it is undefined on the data; bad arguments raise ``ValueError``.

Coefficients (:mod:`.coefficients`, :mod:`.kappa`, :mod:`.icc`):
    percent_agreement(matrix)                      mean pairwise exact agreement, pairs pooled
    unanimity(matrix)                              share of pairable units rated unanimously
    pabak(matrix, n_categories)                    (k p_o - 1) / (k - 1), pairs pooled
    krippendorff_alpha(matrix, level, value_domain=None)
    fleiss_kappa(matrix, n_categories=None, weights=None)  Gwet's generalisation: raters
                                                   per unit may vary; Fleiss 1971 when not
    gwet_ac1(matrix, n_categories=None)            multi-rater, missing allowed (Gwet 2014)
    gwet_ac2(matrix, n_categories=None, weights="quadratic")  AC1 with agreement weights
    cohen_kappa(a, b, n_categories, weights=None|"linear"|"quadratic", values=None)
    kappa_from_confusion(table, weights=None, values=None)
    confusion_matrix(a, b, n_categories)
    pairwise_cohen_kappas(matrix, n_categories, weights, values, min_shared=1) -> [PairKappa]
    mean_pairwise_cohen_kappa(matrix, n_categories, weights, values, min_shared=1)
    icc(matrix) -> {"ICC(1,1)": IccResult(value, ci95), ... six forms} | None

Which kappa a report headlines (:mod:`.kappa_choice`): ``KappaChoice(weights, pooling)``
with weights None/linear/quadratic and pooling ``pairs`` (mean Cohen's kappa over
annotator pairs) or ``fleiss``; ``definition()`` is the text printed beside the number.

Exam order (:mod:`.order`): relation(a, b) -> '<' '=' '>'; relation_counts(first, second)
-> RelationCounts (pairs, agreeing, strict pairs, disagreement types);
relation_agreement(first, second, strict_only=False); kendall_tau_b(first, second);
disagreement_type((a1, b1), (a2, b2)) -> 'tie_vs_strict' | 'adjacent_swap' | 'reversal'
for one exam pair; case_disagreement(first, second) types two whole rankings ('reversal'
for a full reversal, 'reordering' when an exam moved 2+ stages).

Bootstrap over cases (:mod:`.bootstrap`, :mod:`.sufficient`): every coefficient is a
function of column sums of per-unit statistics (``decompose``); summing them per case
(``per_case_sums``) makes a resample a weighted sum. ``bootstrap_ci(per_case_stats,
statistic, n_resamples=1000, seed=0)`` and ``case_bootstrap(matrix, case_ids, coefficient,
...)`` return a 95% BCa interval or None (< 20 cases, every resample undefined);
resamples where the statistic is undefined are dropped, and ``bootstrap_interval`` /
``case_bootstrap_interval`` return a ``BootstrapCI`` that counts them and flags coverage
below nominal under 30 cases.

Measures (:mod:`.measure`): ``Measure(coefficient, reads, n_categories, level, weights,
positions, min_shared)`` fully specifies one coefficient; ``estimate(Ratings(codes,
case_ids, values))`` and ``interval(...)`` both come from it, so a CI always belongs to
its point estimate (``KappaChoice.measure`` gives the chosen kappa's).

Ratings tables (:mod:`.ratings_table`): ``stats_report(csv_path, level, order=None)`` is
the dict behind ``annotator stats RATINGS.csv --level ... [--order a,b,c] --json``;
``RatingsTableError(path, reason)`` reports a bad table.
"""

from __future__ import annotations

from annotator.agreement.bootstrap import (
    BootstrapCI,
    bootstrap_ci,
    bootstrap_draws,
    bootstrap_interval,
    case_bootstrap,
    case_bootstrap_interval,
    per_case_sums,
)
from annotator.agreement.coefficients import (
    fleiss_kappa,
    gwet_ac1,
    gwet_ac2,
    krippendorff_alpha,
    pabak,
    percent_agreement,
    unanimity,
)
from annotator.agreement.icc import ICC_FORMS, IccResult, icc
from annotator.agreement.kappa import (
    PairKappa,
    cohen_kappa,
    confusion_matrix,
    kappa_from_confusion,
    mean_pairwise_cohen_kappa,
    pairwise_cohen_kappas,
)
from annotator.agreement.kappa_choice import KappaChoice
from annotator.agreement.measure import Measure, Ratings
from annotator.agreement.order import (
    RelationCounts,
    case_disagreement,
    disagreement_type,
    kendall_tau_b,
    relation,
    relation_agreement,
    relation_counts,
)
from annotator.agreement.ratings_table import RatingsTableError, stats_report
from annotator.agreement.sufficient import Decomposition, Level, decompose

__all__ = [
    "ICC_FORMS",
    "BootstrapCI",
    "KappaChoice",
    "bootstrap_interval",
    "case_bootstrap_interval",
    "case_disagreement",
    "gwet_ac2",
    "Decomposition",
    "IccResult",
    "Level",
    "Measure",
    "PairKappa",
    "Ratings",
    "RatingsTableError",
    "RelationCounts",
    "bootstrap_ci",
    "bootstrap_draws",
    "case_bootstrap",
    "cohen_kappa",
    "confusion_matrix",
    "decompose",
    "disagreement_type",
    "fleiss_kappa",
    "gwet_ac1",
    "icc",
    "kappa_from_confusion",
    "kendall_tau_b",
    "krippendorff_alpha",
    "mean_pairwise_cohen_kappa",
    "pabak",
    "pairwise_cohen_kappas",
    "percent_agreement",
    "per_case_sums",
    "relation",
    "relation_agreement",
    "relation_counts",
    "stats_report",
    "unanimity",
]
