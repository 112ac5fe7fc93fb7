"""Threshold decisions that carry their uncertainty: met, not met or undetermined.

A point estimate of 0.86 on 4 items "meets" 0.85 by luck as often as not. The decision is
read off the 95% interval instead: met when its lower bound reaches the threshold, not met
when its upper bound is below it, undetermined when the interval straddles it or there is
no interval (too few items).
"""

from __future__ import annotations

from typing import Literal

from annotator.agreement.intervals import Interval

Decision = Literal["met", "not met", "undetermined"]
RULE = ("met: the 95% interval's lower bound >= threshold; not met: its upper bound "
        "< threshold; undetermined otherwise (interval straddles it, or too few items)")


def threshold_decision(ci: Interval | None, threshold: float | None) -> Decision | None:
    """The decision for ``threshold`` from ``ci``; None when there is no threshold."""
    if threshold is None:
        return None
    if ci is None:
        return "undetermined"
    if ci.low >= threshold:
        return "met"
    if ci.high < threshold:
        return "not met"
    return "undetermined"


def below_flag(
    name: str, value: float | None, ci: tuple[float, float] | None, n: int, minimum: int,
    bound: float,
) -> str | None:
    """A reliability flag read off the interval, or None.

    "below": the interval's upper bound is under ``bound``; "possibly below": the interval
    straddles it. No flag from fewer than ``minimum`` units (2-4 units flag by chance) or
    without an interval.
    """
    if value is None or ci is None or n < minimum:
        return None
    shown = f"{name} {value:.2f} [{ci[0]:.2f}, {ci[1]:.2f}] n={n}"
    if ci[1] < bound:
        return f"{shown}: below {bound}"
    if ci[0] < bound:
        return f"{shown}: possibly below {bound}"
    return None
