"""Recall-paired preferences (pref_eval's rpp.py): every recall level of a
query weighs in, not only the deciding one."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..rankings import Rankings


def rpp_weights(m: np.ndarray, weighting: str) -> np.ndarray:
    """(sum m,) the weights of recall levels i = 1..m_q of every query, queries
    concatenated, normalised to sum 1 per query: 1 (uniform), 1/i (inverse)
    or 1/log2(i+1) (dcg)."""
    owner = np.repeat(np.arange(len(m)), m)
    level = np.arange(len(owner)) - np.repeat(np.cumsum(m) - m, m) + 1.0
    raw = {"uniform": np.ones(len(level)), "inverse": 1.0 / level, "dcg": 1.0 / np.log2(level + 1.0)}[weighting]
    mass = np.bincount(owner, weights=raw, minlength=len(m))
    return raw / mass[owner] if len(raw) else raw


class RecallPaired:
    """Recall-paired preference (pref_eval's rpp.py; Diaz, "Recall,
    Robustness, and Lexicographic Evaluation", section on recall
    orientation): every run's position vector per query as one row, missing
    positions worse than any rank, so that sign(y_i - x_i) is +1 where A's
    i-th relevant document ranks higher or only B's is missing, -1 the other
    way, and 0 where both are missing (the walk has stopped) or equal."""

    CELLS = 1 << 22                       # pairs x recall levels per step

    def __init__(self, r: Rankings, graded: bool):
        runs, queries = r.num_runs, r.num_queries
        pad = int(r.lengths.max(initial=0)) + 1
        self.queries = queries
        # (threshold grade, its per-query weight m_g or 1, the position rows, levels per query)
        self.parts = []
        thresholds = [r.level]
        if graded:
            counts = r.level_counts
            thresholds = [g for g in range(max(r.level, 0), counts.shape[1]) if counts[:, g].any()]
        for grade in thresholds:
            at = r if grade == r.level else replace(r, level=grade)
            m = at.num_rel_per_query
            ends = np.cumsum(m)
            positions = np.full((runs, int(ends[-1]) if queries else 0), pad, dtype=np.int64)
            run, query = np.divmod(at.rel_segment, queries) if queries else (at.rel_segment, at.rel_segment)
            positions[run, ends[query] - m[query] + at.rel_ordinal - 1] = at.rel_rank
            # a grade counts m_g times in a query only where some document has exactly that grade
            weight = np.where(r.level_counts[:, grade] > 0, m, 0) if graded else np.ones(queries)
            self.parts.append((weight, positions, m))
        self.total_weight = np.sum([weight for weight, _, _ in self.parts], axis=0)

    def values(self, first: np.ndarray, second: np.ndarray, weighting: str) -> np.ndarray:
        """(k, Q) the preference of each pair's first run over its second."""
        out = np.zeros((len(first), self.queries))
        for weight, positions, m in self.parts:
            levels = rpp_weights(m, weighting)
            starts = np.cumsum(m) - m
            nonempty = m > 0
            step = max(1, self.CELLS // max(positions.shape[1], 1))
            for start in range(0, len(first), step):
                a, b = first[start:start + step], second[start:start + step]
                signs = np.sign(positions[b] - positions[a]) * levels
                value = np.zeros((len(a), self.queries))
                if nonempty.any():
                    value[:, nonempty] = np.add.reduceat(signs, starts[nonempty], axis=1) \
                        if signs.shape[1] else 0.0
                out[start:start + step] += weight * value
        return out / np.where(self.total_weight > 0, self.total_weight, 1.0)
