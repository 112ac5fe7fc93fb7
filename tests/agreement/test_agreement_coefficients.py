"""Multi-rater coefficients against published examples and statsmodels."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np
import pytest
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from annotator.agreement import (
    coefficients,
    decompose,
    fleiss_kappa,
    gwet_ac1,
    krippendorff_alpha,
    pabak,
    percent_agreement,
    unanimity,
)
from annotator.agreement.sufficient import Level

MakeCodes = Callable[..., np.ndarray]

NAN = np.nan

# Fleiss (1971): 30 patients x 6 psychiatrists, 5 diagnoses (coded 1..5 here).
FLEISS_1971 = np.array(
    [
        [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
        [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
        [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
        [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
        [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
        [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
        [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
        [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5],
    ],
    dtype=float,
)  # fmt: skip


@pytest.mark.parametrize(
    ("level", "expected"),
    [("nominal", 0.743421), ("ordinal", 0.815388), ("interval", 0.849107), ("ratio", 0.797403)],
)
def test_krippendorff_2011_reference_values(
    krippendorff_2011: np.ndarray, level: Level, expected: float
) -> None:
    assert krippendorff_alpha(krippendorff_2011, level) == pytest.approx(expected, abs=5e-7)
    # Our additive decomposition (used by the bootstrap) gives the same value.
    parts = decompose(krippendorff_2011, "krippendorff_alpha", level=level)
    assert parts.value() == pytest.approx(expected, abs=5e-7)


def test_alpha_on_codes_with_full_label_domain(krippendorff_2011: np.ndarray) -> None:
    codes = krippendorff_2011 - 1
    assert krippendorff_alpha(codes, "ordinal", value_domain=range(6)) == pytest.approx(
        0.815388, abs=5e-7
    )
    with pytest.raises(ValueError, match="not in value_domain"):
        krippendorff_alpha(codes, "nominal", value_domain=range(3))


def test_alpha_is_none_when_degenerate() -> None:
    single_value = np.array([[2, 2], [2, 2], [2, NAN]], dtype=float)
    assert krippendorff_alpha(single_value, "nominal") is None
    assert krippendorff_alpha(single_value, "interval", value_domain=[0, 1, 2]) is None
    no_pairable_unit = np.array([[1, NAN], [NAN, 2], [3, NAN]])
    assert krippendorff_alpha(no_pairable_unit, "ordinal") is None
    with pytest.raises(ValueError, match="unknown level"):
        krippendorff_alpha(single_value, "cardinal")  # type: ignore[arg-type]


@pytest.mark.parametrize("level", ["nominal", "ordinal", "interval", "ratio"])
def test_own_alpha_matches_package_on_random_data(
    make_codes: MakeCodes, level: Level, monkeypatch: pytest.MonkeyPatch
) -> None:
    codes = make_codes(60, 4, 5, missing=0.3)
    expected = krippendorff_alpha(codes, level)
    assert decompose(codes, "krippendorff_alpha", level=level).value() == pytest.approx(expected)
    # The memory-saving path for fine-grained scores gives the package's value too.
    monkeypatch.setattr(coefficients, "_PACKAGE_BUDGET", 0)
    assert krippendorff_alpha(codes, level) == pytest.approx(expected)
    assert krippendorff_alpha(codes, level, value_domain=[4, 3, 2, 1, 0, 5]) is not None


def test_fleiss_1971_reference_value() -> None:
    assert fleiss_kappa(FLEISS_1971 - 1, n_categories=5) == pytest.approx(0.4302445, abs=5e-8)
    assert fleiss_kappa(FLEISS_1971) == pytest.approx(0.4302445, abs=5e-8)


def test_fleiss_matches_statsmodels_on_random_data(make_codes: MakeCodes) -> None:
    for raters in (2, 3, 5):
        codes = make_codes(80, raters, 4)
        table, _ = aggregate_raters(codes.astype(int), n_cat=4)
        assert fleiss_kappa(codes, 4) == pytest.approx(sm_fleiss_kappa(table))


def test_fleiss_generalised_when_raters_per_unit_vary(
    make_codes: MakeCodes, krippendorff_2011: np.ndarray
) -> None:
    # Changed definition (issue 16): Gwet's generalisation instead of None. Krippendorff's
    # 12-unit, 4-rater table (Gwet 2014 uses it too; irrCAC cac.raw4raters), 1 to 4 ratings
    # per unit. By hand: agreeing-pair shares of the 11 units with 2+ ratings sum to 9
    # (units 2 and 8 give 1/2, unit 6 gives 0, the rest 1), so pa = 9/11; category shares
    # averaged over all 12 units: pi = (36, 39, 42, 15, 12) / 144, pe = 4950 / 20736.
    pa = Fraction(9, 11)
    pe = sum(Fraction(n, 144) ** 2 for n in (36, 39, 42, 15, 12))
    assert pe == Fraction(4950, 20736)
    expected = float((pa - pe) / (1 - pe))
    assert fleiss_kappa(krippendorff_2011 - 1, 5) == pytest.approx(expected, abs=1e-12)
    assert fleiss_kappa(krippendorff_2011) == pytest.approx(expected, abs=1e-12)
    # A unit nobody rated does not count.
    codes = make_codes(30, 3, 3)
    codes[4, :] = NAN
    assert fleiss_kappa(codes, 3) == pytest.approx(fleiss_kappa(np.delete(codes, 4, 0), 3))


def test_gwet_ac1_published_example(krippendorff_2011: np.ndarray) -> None:
    # Gwet (2014) / irrCAC gwet.ac1.raw(cac.raw4raters): AC1 = 0.7754 (pa 9/11, pe 0.1903).
    # By hand: pe = sum pi_k (1 - pi_k) / 4 with the pi above.
    pi = [Fraction(n, 144) for n in (36, 39, 42, 15, 12)]
    pe = sum(p * (1 - p) for p in pi) / 4
    expected = float((Fraction(9, 11) - pe) / (1 - pe))
    assert expected == pytest.approx(0.7754, abs=5e-5)
    assert gwet_ac1(krippendorff_2011 - 1, 5) == pytest.approx(expected, abs=1e-12)


def test_gwet_ac1_on_gwets_four_rater_example(krippendorff_2011: np.ndarray) -> None:
    # Gwet's variant: unit 12's lone rating 3 is given by the third rater, not the second.
    data = krippendorff_2011.copy()
    data[11] = [NAN, NAN, 3, NAN]
    assert gwet_ac1(data) == pytest.approx(0.77544, abs=5e-6)
    sums = decompose(data, "gwet_ac1").unit_stats.sum(axis=0)
    pa = sums[1] / sums[0]
    pi = sums[3:] / sums[2]
    pe = (pi * (1 - pi)).sum() / (len(pi) - 1)
    assert (round(pa, 5), round(pe, 5)) == (0.81818, 0.19032)
    # Codes over the same five categories give the same value; a sixth, unused
    # category changes q and so the chance agreement.
    assert gwet_ac1(data - 1, n_categories=5) == pytest.approx(gwet_ac1(data))
    assert gwet_ac1(data - 1, n_categories=6) != pytest.approx(gwet_ac1(data))


def test_percent_agreement_pools_pairs_over_units() -> None:
    matrix = np.array(
        [
            [0, 0, 1],  # 1 agreeing pair of 3
            [0, 0, NAN],  # 1 of 1
            [2, NAN, NAN],  # not pairable: ignored
        ],
        dtype=float,
    )
    assert percent_agreement(matrix) == pytest.approx(2 / 4)
    assert unanimity(matrix) == pytest.approx(1 / 2)
    assert percent_agreement(np.array([[1.0, NAN], [NAN, 2.0]])) is None
    assert unanimity(np.array([[1.0, NAN]])) is None


def test_krippendorff_percent_agreement(krippendorff_2011: np.ndarray) -> None:
    # Units 1-11 pairable; agreeing pairs counted by hand from the published table.
    agreeing = 3 + 3 + 6 + 6 + 6 + 0 + 6 + 3 + 6 + 3 + 1
    pairs = 3 + 6 + 6 + 6 + 6 + 6 + 6 + 6 + 6 + 3 + 1
    assert percent_agreement(krippendorff_2011) == pytest.approx(agreeing / pairs)


def test_pabak_is_randolphs_free_marginal_kappa(make_codes: MakeCodes) -> None:
    codes = make_codes(50, 3, 4)
    table, _ = aggregate_raters(codes.astype(int), n_cat=4)
    assert pabak(codes, 4) == pytest.approx(sm_fleiss_kappa(table, method="randolph"))
    two = np.array([[0, 0], [1, 1], [0, 1], [1, 1]], dtype=float)
    assert pabak(two, 2) == pytest.approx(2 * 0.75 - 1)
    with pytest.raises(ValueError, match="category code"):
        pabak(two + 1, 2)


def test_coefficients_reject_non_numeric_ratings() -> None:
    with pytest.raises(ValueError, match="numeric codes"):
        percent_agreement([["a", "b"]])
    with pytest.raises(ValueError, match="2-D"):
        percent_agreement([1.0, 2.0])
