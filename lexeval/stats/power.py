"""Statistical power of the paired t-test and the one-way ANOVA (noncentral
t and F), and the smallest sample that reaches a power: what the gate's
warning and the power report compute (Sakai, "Topic set size design",
Information Retrieval Journal 19, 2016)."""

from __future__ import annotations

import numpy as np


def t_power(delta: float, sd: float, queries: int, alpha: float, one_sided: bool = False) -> float:
    """Power of the paired t-test over ``queries`` differences of standard
    deviation ``sd`` to see a true mean difference ``delta``: two-sided, or
    one-sided (upper tail). NaN where the differences do not vary."""
    from scipy.stats import nct, norm, t
    if not (sd > 0 and queries >= 2):
        return float("nan")
    shift = delta / sd * np.sqrt(queries)
    if one_sided:
        critical = t.isf(alpha, queries - 1)
        value = nct.sf(critical, queries - 1, shift)
        # far in the tail scipy's noncentral t gives NaN; the normal is exact enough there
        return float(norm.sf(critical - shift) if np.isnan(value) else value)
    critical = t.isf(alpha / 2, queries - 1)
    value = nct.sf(critical, queries - 1, shift) + nct.cdf(-critical, queries - 1, shift)
    return float(norm.sf(critical - shift) + norm.cdf(-critical - shift) if np.isnan(value) else value)


def anova_power(delta: float, variance: float, runs: int, queries: int, alpha: float) -> float:
    """One-way ANOVA's power over ``runs`` groups of ``queries`` to see a
    range ``delta`` among the means (f^2 = delta^2 / (2 runs variance): two
    means delta apart, the rest between them)."""
    from scipy.stats import f, ncf
    if not (variance > 0 and runs >= 2 and queries >= 2):
        return float("nan")
    total = runs * queries
    effect = delta ** 2 / (2 * runs * variance)
    critical = f.isf(alpha, runs - 1, total - runs)
    return float(ncf.sf(critical, runs - 1, total - runs, effect * total))


def smallest(power_of, wanted: float, start: int = 2, limit: int = 10_000_000) -> int:
    """The smallest n >= start with power_of(n) >= wanted (power grows with
    n: doubling, then bisection); 0 when none up to ``limit``."""
    low, high = start - 1, start
    while not power_of(high) >= wanted:
        low, high = high, high * 2
        if high > limit:
            return 0
    while high - low > 1:
        middle = (low + high) // 2
        low, high = (middle, high) if not power_of(middle) >= wanted else (low, middle)
    return high
