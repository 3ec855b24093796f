"""ties: % of (query, pair) cases each measure ties; for LP also the tie
probability at each recall level and the distribution of the deciding level
(Diaz, "Best-Case Retrieval Evaluation", figures 5 and 6)."""

from __future__ import annotations

import numpy as np

from ..rankings import Rankings
from .common import MeasureMatrices, ReportLine, ReportOptions, percent


def ties(evaluation, data: MeasureMatrices, options: ReportOptions) -> list[ReportLine]:
    lines = [ReportLine("ties", name, "all", percent(d == 0)) for name, d in data.differences.items()]
    if evaluation.preferences is not None and "LP" in evaluation.preferences.names:
        lines += [ReportLine("ties", "LP_level", str(level), value)
                  for level, value in level_ties(evaluation.comparison)]
        decided = evaluation.preferences.levels["LP"]
        decided = decided[decided > 0]
        if decided.size:
            counts = np.bincount(decided)
            for level in np.flatnonzero(counts):
                lines.append(ReportLine("ties", "LP_decided_at", str(level), 100.0 * counts[level] / decided.size))
    return lines


def level_ties(r: Rankings) -> list[tuple[int, float]]:
    """(level i, % of (query, pair) cases with p_i^A = p_i^B) over queries
    with at least i relevant documents; unretrieved positions are equal."""
    runs, queries = r.num_runs, r.num_queries
    if runs < 2:
        return []
    m = r.num_rel_per_query                                       # (Q,)
    # every (run, query, level <= m) with its position (0 = unretrieved)
    segment_levels = m[r.segment_query]                           # (S,) levels per segment
    owner = np.repeat(np.arange(r.num_segments), segment_levels)
    level = np.arange(len(owner)) - np.repeat(np.concatenate(([0], np.cumsum(segment_levels)[:-1])),
                                              segment_levels) + 1
    retrieved = level <= r.num_rel_ret[owner]
    position = np.zeros(len(owner), dtype=np.int64)
    position[retrieved] = r.rel_rank[r.rel_starts[owner[retrieved]] + level[retrieved] - 1]
    query = r.segment_query[owner]
    # tied pairs per (query, level): sum over equal positions of C(count, 2)
    width = int(r.lengths.max(initial=0)) + 1
    deepest = int(m.max())
    key = (query * (deepest + 1) + level) * width + position
    values, counts = np.unique(key, return_counts=True)
    group = values // width                                       # (query, level) of each value
    tied = np.bincount(group, weights=counts * (counts - 1) / 2, minlength=queries * (deepest + 1))
    tied = tied.reshape(queries, deepest + 1).sum(axis=0)
    queries_reaching = np.cumsum(np.bincount(m, minlength=deepest + 1)[::-1])[::-1]   # (m >= i)
    cases = queries_reaching * (runs * (runs - 1) / 2)
    return [(i, 100.0 * tied[i] / cases[i]) for i in range(1, deepest + 1) if cases[i] > 0]
