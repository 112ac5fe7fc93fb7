"""The Qt-free SME core: criteria clauses, formulas, verdict checks and conflicts, results."""

from __future__ import annotations

import numpy as np
import pytest

from annotator.agreement.bootstrap import bootstrap_draws
from annotator.errors import ValidationError
from annotator.sme.consistency import cronbach_alpha
from annotator.sme.criteria import OTHER, exclusion_choices, flag_choices
from annotator.sme.diff import field_diff
from annotator.sme.formula import FormulaError, evaluate, normaliser
from annotator.sme.reliability import automated_agreement, reliability
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


def _bca(samples: list[np.ndarray], weights: list[float], seed: int) -> tuple[float, float]:
    """scipy's BCa of the weighted sum of means, called directly (the reference)."""
    from scipy.stats import bootstrap

    def statistic(*xs: np.ndarray, axis: int = -1) -> np.ndarray:
        return sum(w * x.mean(axis=axis) for w, x in zip(weights, xs, strict=True))  # type: ignore[return-value]

    ci = bootstrap(tuple(samples), statistic, n_resamples=1000, method="BCa",
                   random_state=np.random.default_rng(seed)).confidence_interval
    return float(ci.low), float(ci.high)


def test_benchmark_result_wilson_pass_rate_bca_score_and_three_state_threshold() -> None:
    from statsmodels.stats.proportion import proportion_confint

    # Scale 0..4, (x-min)/(max-min); 36 applicable items, 30 pass (score >= 3).
    scores = [4, 3, 2, 4, 3, 4, 4, 3, 1, 4, 3, 4] * 3
    outcomes = [ItemOutcome(f"i{i}", True, s >= 3, s) for i, s in enumerate(scores)]
    outcomes.append(ItemOutcome("x", False))
    result, normalised = benchmark_result(NEG2, outcomes, undecided=1, unsubmitted=2)
    assert (result.items, result.applicable) == (37, 36)
    assert (result.undecided, result.unsubmitted, result.unresolved) == (1, 2, 3)
    assert result.score == pytest.approx(np.mean(scores) / 4) and result.score_n == 36
    assert result.pass_rate == pytest.approx(30 / 36) and result.pass_rate_n == 36
    assert result.pass_rate_ci == pytest.approx(proportion_confint(30, 36, method="wilson"),
                                                abs=1e-12)
    expected = _bca([np.array(scores) / 4], [1.0], benchmark_seed("A-NEG2", 0))
    assert result.score_ci == pytest.approx(expected, abs=1e-12)
    assert list(normalised.values) == [s / 4 for s in scores]
    # Threshold 0.75 (3 on 0..4): the mean 0.81 clears it, the interval does not.
    low, high = result.score_ci or (9.0, -9.0)
    assert result.threshold == 0.75 and low < 0.75 < high
    assert result.threshold_decision == "undetermined"


@pytest.mark.parametrize(("scores", "decision"), [([4, 4, 4, 3] * 8, "met"),
                                                  ([1, 2, 1, 0] * 8, "not met")])
def test_threshold_met_or_not_met_when_the_interval_clears_it(
    scores: list[int], decision: str
) -> None:
    outcomes = [ItemOutcome(f"i{i}", True, s >= 3, s) for i, s in enumerate(scores)]
    result, _ = benchmark_result(NEG2, outcomes)
    assert result.threshold_decision == decision


def test_few_items_have_no_interval_and_an_undetermined_threshold() -> None:
    # Demo S-HND2's case: 0.8625 >= 0.85 on 4 items was "met"; it cannot be decided.
    few = [ItemOutcome(f"i{i}", True, True, s) for i, s in enumerate([4, 3, 4, 3])]
    result, _ = benchmark_result(NEG2, few)
    assert result.score == 0.875 and result.score_ci is None and result.score_n == 4
    assert result.pass_rate == 1.0 and result.pass_rate_ci is None and result.pass_rate_n == 4
    assert result.threshold_decision == "undetermined"
    # All pass on 30 items: Wilson is not [1, 1] (a percentile bootstrap's answer).
    same = [ItemOutcome(f"i{i}", True, True, 3.0) for i in range(30)]
    full, _ = benchmark_result(NEG2, same)
    low, high = full.pass_rate_ci or (1.0, 1.0)
    assert low < 0.9 and high == 1.0
    assert full.score_ci is None  # no spread at all: BCa is undefined, not zero-width


def test_rubric_weighted_score_and_welch_satterthwaite_interval() -> None:
    one, two = _bench("A-NEG1", 0.25), _bench("A-NEG2", 0.75)
    s1 = [4, 4, 2, 4, 4] * 6  # normalised mean .9
    s2 = [3, 2, 3, 3, 1, 4] * 5  # mean 4/6
    r1 = benchmark_result(one, [ItemOutcome(f"a{i}", True, True, s) for i, s in enumerate(s1)])
    r2 = benchmark_result(two, [ItemOutcome(f"b{i}", True, True, s) for i, s in enumerate(s2)])
    (rubric,) = rubric_results([r1, r2], [one, two])
    assert rubric.score == pytest.approx(0.25 * 0.9 + 0.75 * 4 / 6)  # 0.725
    assert (rubric.weight_scored, rubric.weight_covered, rubric.score_n) == (1.0, 1.0, 60)
    # The textbook Welch-Satterthwaite interval of the weighted mean of independent means.
    from scipy.stats import t

    parts = [w**2 * np.var(np.array(x) / 4, ddof=1) / len(x) for w, x in ((0.25, s1),
                                                                          (0.75, s2))]
    dof = sum(parts) ** 2 / sum(p**2 / (len(x) - 1) for p, x in zip(parts, (s1, s2), strict=True))
    half = t.ppf(0.975, dof) * np.sqrt(sum(parts))
    assert rubric.score_ci == pytest.approx((rubric.score - half, rubric.score + half),
                                            abs=1e-12)
    # From 10 items per benchmark (the BCa it replaces needed 30).
    few = [benchmark_result(b, [ItemOutcome(f"{b.code}{i}", True, True, s)
                                for i, s in enumerate(scores[:10])])
           for b, scores in ((one, s1), (two, s2))]
    assert rubric_results(few, [one, two])[0].score_ci is not None


def test_rubric_renormalises_over_the_benchmarks_with_a_score() -> None:
    # A-NEG2 has no applicable item (its exclusion criteria excluded them all).
    one, two = _bench("A-NEG1", 0.25), _bench("A-NEG2", 0.75)
    r1 = benchmark_result(one, [ItemOutcome("a", True, True, 4), ItemOutcome("b", True, True, 2)])
    r2 = benchmark_result(two, [ItemOutcome("c", False)])
    (rubric,) = rubric_results([r1, r2], [one, two])
    assert rubric.score == pytest.approx(0.75)  # A-NEG1's mean alone, weight 0.25 / 0.25
    assert rubric.scored == ["A-NEG1"] and rubric.weight_covered == pytest.approx(0.25)
    assert rubric.score_ci is None  # 2 items: too few to estimate
    (none,) = rubric_results([r2], [one, two])
    assert none.score is None and none.weight_covered == 0.0


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


def test_reliability_cis_need_their_stated_minimum_of_units() -> None:
    # Fleiss' kappa and alpha: their BCa covered below 0.93 under it (docs/statistics.md).
    from annotator.agreement.bootstrap import min_cases_of
    rng = np.random.default_rng(7)
    rows = []
    for _ in range(104):
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
    least = min(min_cases_of("fleiss_kappa"), min_cases_of("krippendorff_alpha"))
    few = reliability(NEG2, rows[:least - 1])
    assert few.ci["outcome"]["kappa"] is None and few.ci["score"]["alpha"] is None
    assert few.ci["score"]["icc"] is not None


def test_reliability_cis_are_bootstraps_of_their_own_coefficients() -> None:
    """Score alpha at the interval level, outcome alpha nominal, kappa Fleiss: each CI is
    the seeded unit bootstrap of the reference implementation of its point estimate."""
    import krippendorff
    from statsmodels.stats.inter_rater import aggregate_raters
    from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss

    rng = np.random.default_rng(11)
    rows = []
    for _ in range(100):  # at least alpha's and Fleiss' kappa's stated minimum of units
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
    assert (draws == np.random.default_rng(0).integers(0, len(rows), (1000, len(rows)))).all()

    def reference(statistic, matrix):  # type: ignore[no-untyped-def]
        """scipy's BCa over the units (it draws the app's resamples from the same seed)."""
        from scipy.stats import bootstrap

        found = bootstrap((np.arange(len(matrix)),), lambda i: statistic(matrix[i]),
                          n_resamples=1000, method="BCa", vectorized=False,
                          random_state=np.random.default_rng(0))
        return [found.confidence_interval.low, found.confidence_interval.high]

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


def _adf_by_the_paper(x: np.ndarray, log: bool) -> tuple[float, float]:
    """Maydeu-Olivares et al. (2007) written out: Gamma over vech(S), gradient over vech."""
    from scipy.stats import t

    n, k = x.shape
    rows, cols = np.tril_indices(k)
    d = x - x.mean(axis=0)
    moments = d[:, rows] * d[:, cols]  # vech((x - mean)(x - mean)') per subject
    gamma = np.cov(moments, rowvar=False)  # fourth-order moments (ddof 1)
    cov = np.cov(x, rowvar=False)
    total, trace = cov.sum(), np.trace(cov)
    alpha = k / (k - 1) * (1 - trace / total)
    # d alpha / d sigma_ij over vech: off-diagonal entries stand for two entries of S.
    diag = (rows == cols).astype(float)
    grad = k / (k - 1) * ((2 - diag) * trace / total**2 - diag / total)
    se = np.sqrt(grad @ gamma @ grad / n)
    q = t.ppf(0.975, n - 1)
    if not log:
        return alpha - q * se, alpha + q * se
    return (1 - np.exp(np.log(1 - alpha) + q * se / (1 - alpha)),
            1 - np.exp(np.log(1 - alpha) - q * se / (1 - alpha)))


def test_adf_interval_matches_the_papers_formula() -> None:
    from annotator.sme.consistency import adf_interval

    rng = np.random.default_rng(11)
    x = rng.integers(0, 5, size=(40, 4)) / 4 + rng.normal(0, 0.5, size=(40, 1))
    for log in (True, False):
        assert adf_interval(x, log=log) == pytest.approx(_adf_by_the_paper(x, log), abs=1e-12)
    low, high = adf_interval(x) or (2.0, 2.0)
    value = cronbach_alpha(x)
    assert value is not None and low < value < high < 1
    assert adf_interval(np.ones((20, 3))) is None  # no variance: no alpha, no interval


def test_rubric_cronbach_has_benchmarks_as_items_an_adf_interval_and_a_minimum() -> None:
    from annotator.sme.consistency import CRONBACH_MIN_CASES, adf_interval, rubric_consistency

    # Cases x benchmarks [[1, 3], [2, 1], [3, 2]] (normalised scores): item variances 1 + 1,
    # totals 4, 3, 5 with variance 1, so alpha = 2 (1 - 2/1) = -2. Item names play no part.
    three = rubric_consistency({"B-2": {"c1": 3.0, "c2": 1.0, "c3": 2.0},
                                "B-1": {"c3": 3.0, "c1": 1.0, "c2": 2.0, "c9": 5.0}})
    assert three.value == pytest.approx(-2.0) and (three.cases, three.items) == (3, 2)
    assert three.ci is None and three.flag is None  # 3 cases: no interval, no flag

    def pulling_apart(n: int) -> tuple[np.ndarray, object]:
        rng = np.random.default_rng(5)
        first = rng.random(n)
        second = 1 - first + 0.1 * rng.random(n)
        return np.column_stack([first, second]), rubric_consistency(
            {"B-1": {str(i): v for i, v in enumerate(first)},
             "B-2": {str(i): v for i, v in enumerate(second)}})

    # Below the minimum (ADF under-covered there): the value, but no interval and no flag,
    # even for alpha far under 0.7.
    _, few = pulling_apart(CRONBACH_MIN_CASES - 1)
    assert few.value is not None and few.value < 0  # type: ignore[attr-defined]
    assert few.ci is None and few.flag is None  # type: ignore[attr-defined]
    # From the minimum: the ADF interval on ln(1 - alpha), under 0.7, so "below".
    x, enough = pulling_apart(CRONBACH_MIN_CASES)
    value = cronbach_alpha(x)
    assert value is not None and enough.value == pytest.approx(value, abs=1e-12)  # type: ignore[attr-defined]
    assert enough.ci == pytest.approx(_adf_by_the_paper(x, log=True), rel=1e-9)  # type: ignore[attr-defined]
    assert enough.ci == pytest.approx(adf_interval(x), rel=1e-12)  # type: ignore[attr-defined]
    assert enough.ci[1] < 0.7  # type: ignore[attr-defined]
    assert enough.flag is not None and enough.flag.endswith("below 0.7")  # type: ignore[attr-defined]
    assert "possibly" not in enough.flag  # type: ignore[attr-defined]


def _score_rows(pairs: list[tuple[float, float]]) -> list[dict[str, dict[str, object]]]:
    return [{"a": {"applicability": "applicable", "outcome": "pass", "score": x},
             "b": {"applicability": "applicable", "outcome": "pass", "score": y}}
            for x, y in pairs]  # fmt: skip


def test_icc_flags_follow_the_interval_and_need_ten_tasks() -> None:
    noisy = [(4.0, 0.0), (0.0, 4.0), (2.0, 2.0), (4.0, 1.0), (1.0, 3.0), (3.0, 0.0)]
    few = reliability(NEG2, _score_rows(noisy))  # type: ignore[arg-type]
    assert few.icc is not None and few.icc < 0.75 and few.icc_units == 6
    assert few.flags == []  # 6 tasks: an ICC from so few flags by chance
    many = reliability(NEG2, _score_rows(noisy * 2))  # type: ignore[arg-type]
    high = (many.ci["score"]["icc"] or (9.0, 9.0))[1]
    assert high < 0.75 and many.flags and many.flags[0].startswith("ICC(1,1)")
    assert many.flags[0].endswith("below 0.75") and "possibly" not in many.flags[0]
    # Straddling: a middling agreement over 12 tasks is "possibly below".
    middling = [(0.0, 1.0), (1.0, 0.0), (2.0, 3.0), (3.0, 2.0), (4.0, 4.0), (1.0, 3.0)] * 2
    maybe = reliability(NEG2, _score_rows(middling))  # type: ignore[arg-type]
    low, high = maybe.ci["score"]["icc"] or (9.0, 9.0)
    assert low < 0.75 <= high
    assert maybe.flags and maybe.flags[0].endswith("possibly below 0.75")


def test_the_fields_that_apply_follow_the_answers() -> None:
    """One rule for the form and the submit check: what applies, and what is required."""
    from annotator.sme.verdict import fields_that_apply, required_fields

    assert fields_that_apply({}, True) == ("applicability", "outcome", "score", "rationale")
    excluded = {"applicability": "excluded", "score": 1}
    assert fields_that_apply(excluded, True) == ("applicability", "exclusion_clause", "rationale")
    flagged = {"applicability": "applicable", "outcome": "flag"}
    assert "flag_condition" in fields_that_apply(flagged, True)
    assert "failure_reason" in fields_that_apply(flagged, False)
    assert "failure_reason" not in fields_that_apply(flagged, True)
    assert required_fields({}, True) == ("applicability",)
    assert required_fields({"applicability": "applicable", "outcome": "pass"}, True) == (
        "outcome", "score",
    )
    assert required_fields(flagged, False)[-2:] == ("failure_reason", "rationale")
    # Whatever is required is among what the form shows.
    for verdict in ({}, excluded, flagged, {"applicability": "applicable"}):
        for has_flag_if in (True, False):
            shown = fields_that_apply(verdict, has_flag_if)
            assert set(required_fields(verdict, has_flag_if)) <= set(shown)


def test_cronbach_under_the_minimum_reads_too_few_in_html_and_null_in_json() -> None:
    from annotator.sme.consistency import CRONBACH_MIN_CASES, rubric_consistency
    from annotator.sme.results import RubricResult, SmeResults
    from annotator.sme.results_view import consistency_rows

    def results(n: int) -> SmeResults:
        rng = np.random.default_rng(3)
        common = rng.random(n)
        scores = {b: {f"c{i}": float(common[i] + 0.3 * rng.random()) for i in range(n)}
                  for b in ("B-1", "B-2", "B-3")}
        rubric = RubricResult("R", ["B-1", "B-2", "B-3"], ["B-1", "B-2", "B-3"], 1.0, 1.0,
                              None, None, 0, rubric_consistency(scores))
        return SmeResults([], [rubric], [], {})

    few, enough = results(CRONBACH_MIN_CASES - 1), results(CRONBACH_MIN_CASES)
    assert few.as_json()["rubrics"][0]["cronbach"]["ci"] is None
    assert "too few to estimate" in consistency_rows(few)
    ci = enough.rubrics[0].cronbach.ci
    assert ci is not None and enough.as_json()["rubrics"][0]["cronbach"]["ci"] == ci
    html = consistency_rows(enough)
    assert "too few" not in html and f"[{ci[0]:.2f}, {ci[1]:.2f}]" in html
