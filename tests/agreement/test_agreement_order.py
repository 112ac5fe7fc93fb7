"""Exam-order agreement: relations, disagreement types, Kendall's tau-b."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import kendalltau

from annotator.agreement import (
    RelationCounts,
    disagreement_type,
    kendall_tau_b,
    relation,
    relation_agreement,
    relation_counts,
)

NAN = np.nan


def test_relation() -> None:
    assert (relation(1, 2), relation(2, 2), relation(3, 2)) == ("<", "=", ">")


def test_disagreement_types() -> None:
    assert disagreement_type((1, 2), (1, 3)) is None  # both say a before b
    assert disagreement_type((1, 1), (1, 2)) == "tie_vs_strict"
    assert disagreement_type((2, 1), (2, 2)) == "tie_vs_strict"
    assert disagreement_type((1, 2), (2, 1)) == "adjacent_swap"
    assert disagreement_type((1, 3), (2, 1)) == "reversal"
    assert disagreement_type((3, 1), (1, 3)) == "reversal"


def test_relation_counts_on_a_case() -> None:
    # Exams e1..e4. First annotator: stages 1, 2, 2, 3; second: 2, 1, 2, 4.
    first = [1, 2, 2, 3]
    second = [2, 1, 2, 4]
    counts = relation_counts(first, second)
    # Pairs: e1e2 swap(adjacent), e1e3 '<' vs '=' tie, e1e4 agree, e2e3 '=' vs '<' tie,
    # e2e4 agree, e3e4 agree.
    assert counts == RelationCounts(
        pairs=6,
        agreeing=3,
        strict_pairs=6,
        strict_agreeing=3,
        tie_vs_strict=2,
        adjacent_swap=1,
        reversal=0,
    )
    assert counts.as_row() == [6, 3, 6, 3, 2, 1, 0]
    assert relation_agreement(first, second) == pytest.approx(0.5)


def test_pairs_tied_by_both_leave_the_strict_count() -> None:
    first = [1, 1, 2]
    second = [1, 1, 3]
    counts = relation_counts(first, second)
    assert (counts.pairs, counts.agreeing) == (3, 3)
    assert (counts.strict_pairs, counts.strict_agreeing) == (2, 2)
    assert relation_agreement([1, 1], [1, 1], strict_only=True) is None
    assert relation_agreement([1, 1], [1, 1]) == 1.0


def test_unranked_exams_are_dropped() -> None:
    counts = relation_counts([1, NAN, 2, 3], [1, 2, NAN, 2])
    assert counts.pairs == 1  # only e1 and e4 are ranked by both
    with pytest.raises(ValueError, match="same exams"):
        relation_counts([1, 2], [1])


def test_kendall_tau_b_matches_scipy_and_is_none_when_undefined() -> None:
    first, second = [1, 2, 2, 3, 4], [1, 3, 2, 2, 4]
    assert kendall_tau_b(first, second) == pytest.approx(kendalltau(first, second).statistic)
    assert kendall_tau_b([1, 2], [2, 1]) == pytest.approx(-1.0)
    assert kendall_tau_b([1, 1, 1], [1, 2, 3]) is None  # all tied for one annotator
    assert kendall_tau_b([1], [1]) is None
    assert kendall_tau_b([1, NAN, 2], [1, 2, NAN]) is None


def test_case_disagreement_types_the_whole_ranking() -> None:
    from annotator.agreement.order import case_disagreement

    assert case_disagreement([1, 2, 3], [1, 2, 3]) is None
    assert case_disagreement([1, 1, 2], [1, 2, 3]) == "tie_vs_strict"
    # A full reversal is a reversal, whatever the pairs look like one by one.
    assert case_disagreement([1, 2, 3], [3, 2, 1]) == "reversal"
    assert case_disagreement([1, 2, 3, 4], [4, 3, 2, 1]) == "reversal"
    # Neighbouring stages exchanged (two exams: a swap is all there is).
    assert case_disagreement([1, 2], [2, 1]) == "adjacent_swap"
    assert case_disagreement([1, 2, 3], [2, 1, 3]) == "adjacent_swap"
    assert case_disagreement([1, 2, 3, 4], [2, 1, 4, 3]) == "adjacent_swap"
    # The last exam moved to the front: some pairs keep their order, others jump 2 stages.
    assert case_disagreement([1, 2, 3], [2, 3, 1]) == "reordering"
    # Unranked exams drop out.
    assert case_disagreement([1, NAN, 2], [2, 1, 1]) == "adjacent_swap"
