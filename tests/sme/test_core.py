"""The Qt-free SME core: criteria clauses, formulas, verdict checks and conflicts, results."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.agreement.bootstrap import bootstrap_draws
from annotator.errors import ValidationError
from annotator.sme.criteria import OTHER, exclusion_choices, flag_choices
from annotator.sme.diff import field_diff
from annotator.sme.formula import FormulaError, evaluate, normaliser
from annotator.sme.reliability import automated_agreement, cronbach_alpha, reliability
from annotator.sme.results import (
    ItemOutcome,
    benchmark_result,
    benchmark_seed,
    rubric_results,
)
from annotator.sme.spec import Benchmark
from annotator.sme.verdict import check_field, conflicts, missing_fields, reference

from .specs import benchmark

NEG2 = Benchmark.model_validate(benchmark())


def _bench(code: str, weight: float, **changes: object) -> Benchmark:
    return Benchmark.model_validate(benchmark(code, weight=weight, **changes))


def test_seed_001_good_example_splits_into_three_flag_conditions() -> None:
    inclusion = (
        "Apply when multiple data points over time show the patient improving or worsening."
        " Flag if the output misrepresents the trend direction, implies stability when vitals"
        " show decline, or fails to reflect improvement after intervention."
    )
    assert flag_choices(inclusion) == [
        "the output misrepresents the trend direction",
        "implies stability when vitals show decline",
        "fails to reflect improvement after intervention",
        OTHER,
    ]
    assert flag_choices("Apply when x happens.") == []


def test_exclusion_clauses_keep_noun_phrases_and_delegations_whole() -> None:
    assert exclusion_choices(
        "Do not use for complex or double-negative phrasing (use A-NEG2/A-NEG3 instead)."
    ) == ["complex or double-negative phrasing (use A-NEG2/A-NEG3 instead)"]
    assert exclusion_choices(NEG2.exclusion_criteria) == [
        "the narrative is a template",
        "transcripts that are cut off mid-sentence",
    ]


@pytest.mark.parametrize(
    ("formula", "x", "expected"),
    [("x", 0.3, 0.3), ("(x-min)/(max-min)", 3, 0.75), ("x/100", 90, 0.9), ("-x**2 + 1", 0.5, 0.75)],
)
def test_formula_values(formula: str, x: float, expected: float) -> None:
    assert evaluate(formula, x, 0, 4) == pytest.approx(expected)


@pytest.mark.parametrize(
    "formula",
    ["__import__('os').system('true')", "x.real", "abs(x)", "x < 1", "[x]", "9**9**9", "1/0"],
)
def test_unsafe_or_broken_formulas_are_refused(formula: str) -> None:
    with pytest.raises(FormulaError):
        evaluate(formula, 1, 0, 4)


def test_unusable_formula_falls_back_to_min_max() -> None:
    assert normaliser("y + 1", 0, 4)(3) == 0.75
    assert normaliser(None, 0, 4)(1) == 0.25


def test_verdict_field_checks() -> None:
    assert check_field(NEG2, "score", "3") == 3.0
    with pytest.raises(ValidationError, match="outside A-NEG2's scale 0..4"):
        check_field(NEG2, "score", 5)
    with pytest.raises(ValidationError, match="not a 'Flag if' condition"):
        check_field(NEG2, "flag_condition", "made up")
    with pytest.raises(ValidationError, match="unknown verdict field"):
        check_field(NEG2, "mood", "fine")
    assert missing_fields(NEG2, {"applicability": "applicable", "outcome": "flag"}) == [
        "score", "flag_condition", "rationale",
    ]  # fmt: skip
    assert missing_fields(NEG2, {"applicability": "excluded"}) == ["exclusion_clause", "rationale"]


def test_conflicts_and_reference() -> None:
    a = {"applicability": "applicable", "outcome": "pass", "score": 4.0}
    b = {"applicability": "applicable", "outcome": "pass", "score": 3.0}  # next level: fine
    c = {"applicability": "applicable", "outcome": "flag", "score": 2.0}  # two levels from 4
    x = {"applicability": "excluded"}
    assert conflicts(NEG2, {"a": a, "b": b}) == {}
    assert reference(NEG2, {"a": a, "b": b}, {}) == {
        "applicability": "applicable", "outcome": "pass", "score": 3.5,
    }  # fmt: skip
    assert set(conflicts(NEG2, {"a": a, "c": c})) == {"outcome", "score"}
    assert conflicts(NEG2, {"a": a, "x": x}) == {"applicability": "applicable vs excluded"}
    assert reference(NEG2, {"a": a, "c": c}, {"outcome": "flag"}) is None  # score still open
    assert reference(NEG2, {"a": a, "c": c}, {"outcome": "flag", "score": 2}) == {
        "applicability": "applicable", "outcome": "flag", "score": 2.0,
    }  # fmt: skip


def test_field_diff() -> None:
    truth = {"chest_pain": False, "vitals": {"hr": 80}, "negatives": ["fever", "cough"]}
    output = {"chest_pain": True, "vitals": {"hr": 80}, "negatives": ["fever"], "extra": 1}
    assert [(d.path, d.kind) for d in field_diff(truth, output)] == [
        ("chest_pain", "changed"), ("negatives[1]", "missing"), ("extra", "extra"),
    ]  # fmt: skip


def _oracle_ci(values: list[float], seed: int) -> tuple[float, float]:
    """The percentile CI recomputed resample by resample (a second implementation)."""
    draws = bootstrap_draws(len(values), 1000, seed)
    means = [sum(values[i] for i in row) / len(row) for row in draws]
    low, high = np.quantile(means, [0.025, 0.975])
    return float(low), float(high)


def test_benchmark_result_hand_checked() -> None:
    # Scale 0..4, (x-min)/(max-min): scores 4, 3, 2, 4, 3, 4 -> 1, .75, .5, 1, .75, 1.
    scores = [4, 3, 2, 4, 3, 4]
    outcomes = [ItemOutcome(f"i{i}", True, s >= 3, s) for i, s in enumerate(scores)]
    outcomes.append(ItemOutcome("x", False))
    result, means = benchmark_result(NEG2, outcomes, unresolved=1)
    assert (result.items, result.applicable, result.unresolved) == (7, 6, 1)
    assert result.score == pytest.approx(5.0 / 6)  # (1+.75+.5+1+.75+1)/6
    assert result.pass_rate == pytest.approx(5 / 6)
    assert result.threshold == 0.75 and result.threshold_met is True
    normalised = [s / 4 for s in scores]
    assert result.score_ci == pytest.approx(_oracle_ci(normalised, benchmark_seed("A-NEG2", 0)))
    low, high = result.score_ci or (0, 0)
    assert 0.5 <= low < 5 / 6 < high <= 1.0
    assert means is not None and len(means) == 1000


def test_constant_scores_have_a_point_ci_and_few_items_none() -> None:
    same = [ItemOutcome(f"i{i}", True, True, 3.0) for i in range(3)]
    result, _ = benchmark_result(NEG2, same)
    assert result.score_ci == (0.75, 0.75) and result.pass_rate_ci == (1.0, 1.0)
    few, _ = benchmark_result(NEG2, same[:2])
    assert few.score == 0.75 and few.score_ci is None


def test_rubric_weighted_score_and_ci_hand_checked() -> None:
    one, two = _bench("A-NEG1", 0.25), _bench("A-NEG2", 0.75)
    s1 = [4, 4, 2, 4, 4]  # normalised 1, 1, .5, 1, 1 -> mean .9
    s2 = [3, 2, 3, 3, 1, 4]  # .75, .5, .75, .75, .25, 1 -> mean 4/6
    r1 = benchmark_result(one, [ItemOutcome(f"a{i}", True, True, s) for i, s in enumerate(s1)])
    r2 = benchmark_result(two, [ItemOutcome(f"b{i}", True, True, s) for i, s in enumerate(s2)])
    (rubric,) = rubric_results([r1, r2], [one, two])
    assert rubric.score == pytest.approx(0.25 * 0.9 + 0.75 * 4 / 6)  # 0.725
    assert rubric.weight_scored == 1.0
    m1 = bootstrap_draws(5, 1000, benchmark_seed("A-NEG1", 0))
    m2 = bootstrap_draws(6, 1000, benchmark_seed("A-NEG2", 0))
    n1, n2 = np.array(s1) / 4, np.array(s2) / 4
    weighted = 0.25 * n1[m1].mean(axis=1) + 0.75 * n2[m2].mean(axis=1)
    assert rubric.score_ci == pytest.approx(tuple(np.quantile(weighted, [0.025, 0.975])))


def test_rubric_without_every_benchmark_scored_has_no_score() -> None:
    one, two = _bench("A-NEG1", 0.25), _bench("A-NEG2", 0.75)
    r1 = benchmark_result(one, [ItemOutcome("a", True, True, 4)])
    (rubric,) = rubric_results([r1], [one, two])
    assert rubric.score is None and rubric.weight_scored == 0.25


def test_cronbach_alpha_hand_computed() -> None:
    # item variances 1 and 1/3, total variance 7/3: alpha = 2 (1 - (4/3)/(7/3)) = 6/7
    assert cronbach_alpha(np.array([[1, 2], [2, 3], [3, 3]])) == pytest.approx(6 / 7)


def test_reliability_flags_low_icc_and_automated_agreement() -> None:
    rows = [
        {"a": {"applicability": "applicable", "outcome": "pass", "score": s1},
         "b": {"applicability": "applicable", "outcome": "pass", "score": s2}}
        for s1, s2 in [(4, 0), (0, 4), (2, 2), (4, 1), (1, 3), (3, 0)]
    ]  # fmt: skip
    result = reliability(NEG2, rows)
    assert result.icc is not None and result.icc < 0.75
    assert result.flags and result.flags[0].startswith("ICC(1,1)")
    assert result.units == {"applicability": 6, "outcome": 6, "score": 6}
    pairs = [
        ({"outcome": "pass", "score": 4.0}, {"outcome": "pass", "score": 4.0}),
        ({"outcome": "flag", "score": 0.0}, {"passed": False, "score": 0.0}),
        ({"outcome": "pass", "score": 3.0}, {"outcome": "flag", "score": 2.0}),
        ({"outcome": "flag", "score": 2.0}, {"outcome": "flag", "score": 2.0}),
    ]
    agreement = automated_agreement(NEG2, pairs)
    # pass/flag table [[1, 1], [0, 2]]: po = 3/4, pe = (2*1 + 2*3)/16 = 1/2, kappa = 1/2
    assert agreement["outcome_kappa"] == pytest.approx(0.5)
    assert agreement["score_units"] == 4


def test_reliability_cis_need_twenty_units() -> None:
    rng = np.random.default_rng(7)
    rows = []
    for _ in range(24):
        truth = rng.choice(["pass", "flag"])
        other = truth if rng.random() < 0.8 else ("flag" if truth == "pass" else "pass")
        score = float(rng.integers(0, 5))
        rows.append(
            {"a": {"applicability": "applicable", "outcome": truth, "score": score},
             "b": {"applicability": "applicable", "outcome": other,
                   "score": min(4.0, score + float(rng.integers(0, 2)))}}
        )  # fmt: skip
    result = reliability(NEG2, rows)
    kappa = result.kappa["outcome"]
    low, high = result.ci["outcome"]["kappa"] or (9.0, -9.0)
    assert kappa is not None and low <= kappa <= high and -1 <= low < high <= 1
    assert result.ci["score"]["alpha"] is not None and result.ci["score"]["icc"] is not None
    few = reliability(NEG2, rows[:19])
    assert few.ci["outcome"]["kappa"] is None and few.ci["score"]["icc"] is not None


def test_reliability_cis_are_bootstraps_of_their_own_coefficients() -> None:
    """Score alpha at the interval level, outcome alpha nominal, kappa Fleiss: each CI is
    the seeded unit bootstrap of the reference implementation of its point estimate."""
    import krippendorff
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    rng = np.random.default_rng(11)
    rows = []
    for _ in range(30):
        score = float(rng.choice([0.0, 1.0, 2.0, 4.0]))
        other = score if rng.random() < 0.6 else float(rng.choice([0.0, 1.0, 2.0, 4.0]))
        rows.append(
            {"a": {"applicability": "applicable", "outcome": "pass" if score > 1 else "flag",
                   "score": score},
             "b": {"applicability": "applicable", "outcome": "pass" if other > 1 else "flag",
                   "score": other}}
        )  # fmt: skip
    result = reliability(NEG2, rows)
    scores = np.array([[r["a"]["score"], r["b"]["score"]] for r in rows])
    flags = (scores <= 1).astype(float)
    draws = bootstrap_draws(len(rows), 1000, 0)

    def reference(statistic, matrix):  # type: ignore[no-untyped-def]
        values = np.array([statistic(matrix[d]) for d in draws])
        return np.quantile(values[np.isfinite(values)], [0.025, 0.975])

    def alpha(level):  # type: ignore[no-untyped-def]
        return lambda m: krippendorff.alpha(reliability_data=m.T, level_of_measurement=level,
                                            value_domain=None if level == "interval" else [0, 1])

    def fleiss(m):  # type: ignore[no-untyped-def]
        with np.errstate(invalid="ignore", divide="ignore"):
            return sm_fleiss(aggregate_raters(m.astype(int), n_cat=2)[0])

    assert result.alpha["score"] == pytest.approx(alpha("interval")(scores), abs=1e-12)
    assert result.ci["score"]["alpha"] == pytest.approx(reference(alpha("interval"), scores),
                                                        abs=1e-9)
    assert result.ci["outcome"]["alpha"] == pytest.approx(reference(alpha("nominal"), flags),
                                                          abs=1e-9)
    assert result.ci["outcome"]["kappa"] == pytest.approx(reference(fleiss, flags), abs=1e-9)


def test_cronbach_below_point_seven_is_flagged() -> None:
    verdict = {"applicability": "applicable", "outcome": "pass", "score": 4.0}
    rows = [{"a": verdict, "b": verdict}] * 3
    # Cases x items [[1, 3], [2, 1], [3, 2]]: item variances 1 + 1, totals 4, 3, 5 with
    # variance 1, so alpha = 2 (1 - 2/1) = -2.
    cases = np.array([[1.0, 3.0], [2.0, 1.0], [3.0, 2.0]])
    result = reliability(NEG2, rows, cases=cases)
    assert result.cronbach == pytest.approx(-2.0)
    assert any(f.startswith("Cronbach's alpha -2.00 < 0.7") for f in result.flags)
