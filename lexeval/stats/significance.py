"""Corrections for multiple comparisons and the studentized range.

The tests themselves (paired t, sign, randomization, Tukey HSD, intervals)
are computed from sums over queries in :mod:`lexeval.stats.totals`; which
measure gets which test is :func:`lexeval.stats.pairs.test_for`.
"""

from __future__ import annotations

import warnings

import numpy as np

# scipy is imported only where it is needed (Tukey HSD's studentized range):
# the t and binomial tails of every default call are computed in
# lexeval.stats.distributions.


def correct(p: np.ndarray, method: str) -> np.ndarray:
    """Adjust one measure's p-values over all pairs (family-wise: bonferroni,
    holm, holm-sidak; false discovery rate: bh, Benjamini-Hochberg)."""
    p = np.asarray(p, dtype=np.float64)
    count = len(p)
    if method == "none" or count == 0:
        return p
    if method == "bonferroni":
        return np.minimum(1.0, p * count)
    order = np.argsort(p, kind="stable")
    ranked = p[order]
    if method == "holm":                      # step down: (m - i + 1) p_(i), made monotone
        stepped = np.maximum.accumulate((count - np.arange(count)) * ranked)
    elif method == "holm-sidak":              # step down: 1 - (1 - p_(i))^(m - i + 1), without cancellation
        with np.errstate(divide="ignore"):
            stepped = np.maximum.accumulate(-np.expm1((count - np.arange(count)) * np.log1p(-ranked)))
    elif method == "bh":                      # step up: m p_(i) / i, made monotone from the top
        stepped = np.minimum.accumulate((count * ranked / np.arange(1, count + 1))[::-1])[::-1]
    else:
        raise ValueError(f"unknown correction '{method}'")
    adjusted = np.empty(count)
    adjusted[order] = np.minimum(1.0, stepped)
    return adjusted


class StudentizedRange:
    """Survival function of the studentized range for k groups and df.

    scipy integrates numerically for every value (~10 ms each), so a few
    values are computed exactly and many are interpolated (monotone, in log
    space) from exact values on a grid that is computed once per (k, df).
    """

    GRID = 200
    _grids: dict[tuple[int, float], tuple] = {}

    def __init__(self, groups: int, df: float):
        self.groups, self.df = groups, df

    def _exact(self, q: np.ndarray) -> np.ndarray:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from scipy import stats
            return np.clip(stats.studentized_range.sf(q, self.groups, self.df), 0.0, 1.0)

    def _grid(self):
        key = (self.groups, self.df)
        if key not in self._grids:
            top = 4.0
            while top < 500 and self._exact(np.array([top]))[0] > 1e-13:   # p below printing
                top *= 1.5
            # spacing even in log(1 + q): dense where p changes, sparse in the tail
            grid = np.expm1(np.linspace(0.0, np.log1p(top), self.GRID))
            exact = self._exact(grid)
            from scipy.interpolate import PchipInterpolator
            curve = PchipInterpolator(grid, np.log(np.maximum(exact, 1e-300)))
            self._grids[key] = (grid, curve)
        return self._grids[key]

    def sf(self, q: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=np.float64)
        unique = np.unique(q)
        if len(unique) <= 50:
            return self._exact(unique)[np.searchsorted(unique, q)]
        grid, curve = self._grid()
        p = np.clip(np.exp(curve(np.minimum(q, grid[-1]))), 0.0, 1.0)
        return np.where((q >= grid[-1]) | (p <= 1.000001e-300), 0.0, p)   # the grid's floor is not a p-value
