"""Tukey HSD's sums: the two-way ANOVA without replication (runs x
queries) of one measure, kept as exact sums that add up over any split of
the queries (a cluster's partitions)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from . import significance as sig
from .sums import Sums, fixed_sums


@dataclass
class Anova:
    """Two-way ANOVA sums (runs x queries, no interaction) of one measure:
    per run the sum of its values (R,); the sum of all squared values; the
    sum over queries of each query's squared total over runs; queries."""

    run_sums: Sums
    squares: Sums
    query_squares: Sums
    queries: int

    @classmethod
    def of(cls, values: np.ndarray) -> Anova:
        per_query = values.sum(axis=0)              # the same runs in every split: the same float per query
        return cls(fixed_sums(values), fixed_sums((values * values).reshape(1, -1)),
                   fixed_sums((per_query * per_query).reshape(1, -1)), values.shape[1])

    def __add__(self, other: Anova) -> Anova:
        return Anova(self.run_sums + other.run_sums, self.squares + other.squares,
                     self.query_squares + other.query_squares, self.queries + other.queries)

    def tukey_hsd(self, pairs: np.ndarray) -> np.ndarray:
        """(P,) Tukey HSD p of each pair (a, b)."""
        runs, queries = len(self.run_sums), self.queries
        if runs < 2 or queries < 2 or len(pairs) == 0:
            return np.ones(len(pairs))
        totals = self.run_sums.fractions()
        grand = sum(totals, Fraction(0))
        residual = self.squares.fractions()[0] - self.query_squares.fractions()[0] / runs \
            - sum((t * t for t in totals), Fraction(0)) / queries + grand * grand / (runs * queries)
        df = (runs - 1) * (queries - 1)
        gap = np.abs(np.array([float((totals[a] - totals[b]) / queries) for a, b in pairs.tolist()]))
        if residual <= 0:
            return np.where(gap > 0, 0.0, 1.0)
        q = gap / math.sqrt(float(residual / df / queries))
        return sig.StudentizedRange(runs, df).sf(q)
