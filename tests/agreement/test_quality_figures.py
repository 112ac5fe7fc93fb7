"""The pure quality figures (agreement/quality.py) on hand-computed examples."""

from __future__ import annotations

from datetime import datetime, timedelta

import pytest
from scipy.stats import chi2_contingency

from annotator.agreement import quality as Q
from annotator.agreement.order import relation_agreement


def test_families_and_what_is_not_a_rating() -> None:
    assert Q.family_of("importance:Figure 2") == "importance"
    assert Q.family_of("trajectory/Migraine/label") == "trajectory/label"
    assert Q.family_of("diagnosis") == "diagnosis"
    values = {"importance:Figure 1": {"value": "essential", "how": "set"}, "comment": "hm",
              "active_seconds": 40.0, "stage:Figure 1": 2, "rationale": "because"}
    assert Q.by_family(values) == {"importance": {"importance:Figure 1": "essential"},
                                   "stage": {"stage:Figure 1": 2}}


def test_agreement_with_a_reference_per_scale() -> None:
    pairs = [Q.Pair("c1", {"importance:F1": "essential", "importance:F2": "optional",
                           "stage:F1": 1, "stage:F2": 2, "stage:F3": 2, "score": 3},
                    {"importance:F1": "essential", "importance:F2": "essential",
                     "stage:F1": 1, "stage:F2": 1, "stage:F3": 2, "score": 1})]
    rows = {c.family: c for c in Q.compare_all(pairs, against_reference=True)}
    assert rows["importance"].agreement.value == 0.5 and rows["importance"].agreement.n == 2
    assert rows["importance"].coefficient == "cohen_kappa"
    assert rows["score"].scale == "scores" and rows["score"].agreement.value == 2.0
    # Pairwise order agreement with ties a relation of their own: F1<F2, F1<F3, F2=F3 vs
    # F1=F2, F1<F3, F2<F3 -> one of three pairs agrees.
    assert rows["stage"].agreement.value == pytest.approx(1 / 3)
    assert rows["stage"].agreement.value == relation_agreement([1, 2, 2], [1, 1, 2])
    assert Q.headline(rows.values()) == pytest.approx((0.5 + 1 / 3) / 2)


def test_time_on_task_flags_items_far_below_the_raters_own_median() -> None:
    seconds = [300, 320, 280, 310, 60, 290]
    ratings = [Q.Rating("case", f"c{i}", "a", {}, None, s) for i, s in enumerate(seconds)]
    (t,) = Q.time_on_task(ratings)
    assert t.median_seconds == 295.0 and t.timed == 6
    assert t.fast == ["c4"]  # 60 < 0.25 * 295
    assert Q.time_on_task(ratings[:5])[0].fast == ["c4"]  # 5 timed items: enough to flag
    assert Q.time_on_task(ratings[:3] + ratings[4:5])[0].fast == []  # 4 timed: none flagged


def test_drift_compares_the_earlier_and_later_half() -> None:
    start = datetime(2026, 1, 1)
    labels = ["normal"] * 6 + ["hard"] * 6 + ["normal"] * 2
    ratings = [Q.Rating("case", f"c{i}", "a", {"difficulty": v}, start + timedelta(hours=i))
               for i, v in enumerate(labels)]
    (d,) = Q.drift(ratings)
    # earlier 7: 6 normal, 1 hard; later 7: 2 normal, 5 hard -> distance |6/7 - 2/7| = 4/7
    assert d.n == 14 and d.distance == pytest.approx(4 / 7, abs=1e-4)
    assert d.p_value == pytest.approx(chi2_contingency([[6, 1], [2, 5]]).pvalue)
    assert Q.drift(ratings[:9]) == []  # fewer than 10 labels: not measured
