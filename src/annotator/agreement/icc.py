"""Intraclass correlations in the six Shrout & Fleiss (1979) forms with 95% F-based CIs.

ICC(1,.) (one-way random) is the valid form when each unit's raters are drawn from a
larger pool, as in an annotation project where different annotators rate different cases;
ICC(2,.) (two-way random, absolute agreement) and ICC(3,.) (two-way mixed, consistency)
assume the same raters rated every unit. The ``,1`` forms describe one rater's rating,
the ``,k`` forms the mean of k ratings. Confidence intervals follow Shrout & Fleiss (1979)
and McGraw & Wong (1996); ICC(2,.) uses the Satterthwaite degrees of freedom, as R's
``psych::ICC`` does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from annotator.agreement._matrix import as_ratings

ICC_FORMS = ("ICC(1,1)", "ICC(2,1)", "ICC(3,1)", "ICC(1,k)", "ICC(2,k)", "ICC(3,k)")


@dataclass(frozen=True)
class IccResult:
    """One ICC form: its value and 95% CI (None where undefined, e.g. zero variance)."""

    value: float | None
    ci95: tuple[float, float] | None


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _result(value: float, low: float, high: float) -> IccResult:
    bounds = (_finite(low), _finite(high))
    ci = None if bounds[0] is None or bounds[1] is None else (bounds[0], bounds[1])
    return IccResult(_finite(value), ci)


def icc(matrix: npt.ArrayLike, confidence: float = 0.95) -> dict[str, IccResult] | None:
    """The six Shrout & Fleiss ICCs of a targets x judges matrix, keyed as in ``ICC_FORMS``.

    Only complete rows (every judge rated the target) are used. Returns None when fewer
    than two complete rows or fewer than two judges remain.
    """
    from scipy.stats import f as f_dist

    ratings = as_ratings(matrix)
    x = ratings[~np.isnan(ratings).any(axis=1)]
    n, k = x.shape
    if n < 2 or k < 2:
        return None
    grand = x.mean()
    ss_rows = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ss_cols = n * ((x.mean(axis=0) - grand) ** 2).sum()
    ss_total = ((x - grand) ** 2).sum()
    df_rows, df_cols, df_err = n - 1, k - 1, (n - 1) * (k - 1)
    msr = ss_rows / df_rows
    msc = ss_cols / df_cols
    msw = (ss_total - ss_rows) / (n * (k - 1))
    mse = (ss_total - ss_rows - ss_cols) / df_err
    q = 1 - (1 - confidence) / 2

    with np.errstate(divide="ignore", invalid="ignore"):
        icc1 = (msr - msw) / (msr + (k - 1) * msw)
        icc2 = (msr - mse) / (msr + (k - 1) * mse + k * (msc - mse) / n)
        icc3 = (msr - mse) / (msr + (k - 1) * mse)
        icc1k = (msr - msw) / msr
        icc2k = (msr - mse) / (msr + (msc - mse) / n)
        icc3k = (msr - mse) / msr

        # One-way model: F = MSR / MSW on (n-1, n(k-1)) degrees of freedom.
        f1 = msr / msw
        f1_low = f1 / f_dist.ppf(q, df_rows, n * (k - 1))
        f1_high = f1 * f_dist.ppf(q, n * (k - 1), df_rows)
        # Two-way models: F = MSR / MSE on (n-1, (n-1)(k-1)).
        f3 = msr / mse
        f3_low = f3 / f_dist.ppf(q, df_rows, df_err)
        f3_high = f3 * f_dist.ppf(q, df_err, df_rows)
        # ICC(2,1): Satterthwaite approximation of the denominator degrees of freedom.
        a = k * icc2 / (n * (1 - icc2))
        b = 1 + k * icc2 * (n - 1) / (n * (1 - icc2))
        v = (a * msc + b * mse) ** 2 / ((a * msc) ** 2 / df_cols + (b * mse) ** 2 / df_err)
        f_up = f_dist.ppf(q, df_rows, v)
        f_down = f_dist.ppf(q, v, df_rows)
        icc2_low = n * (msr - f_up * mse) / (f_up * (k * msc + (k * n - k - n) * mse) + n * msr)
        icc2_high = n * (f_down * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f_down * msr)

        return {
            "ICC(1,1)": _result(
                icc1, (f1_low - 1) / (f1_low + k - 1), (f1_high - 1) / (f1_high + k - 1)
            ),
            "ICC(2,1)": _result(icc2, icc2_low, icc2_high),
            "ICC(3,1)": _result(
                icc3, (f3_low - 1) / (f3_low + k - 1), (f3_high - 1) / (f3_high + k - 1)
            ),
            "ICC(1,k)": _result(icc1k, 1 - 1 / f1_low, 1 - 1 / f1_high),
            "ICC(2,k)": _result(
                icc2k,
                icc2_low * k / (1 + icc2_low * (k - 1)),
                icc2_high * k / (1 + icc2_high * (k - 1)),
            ),
            "ICC(3,k)": _result(icc3k, 1 - 1 / f3_low, 1 - 1 / f3_high),
        }
