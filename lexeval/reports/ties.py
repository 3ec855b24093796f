"""ties: % of (query, pair) cases each measure ties; for LP also the tie
probability at each recall level and the distribution of the deciding level
(Diaz, "Best-Case Retrieval Evaluation", figures 5 and 6)."""

from __future__ import annotations

import numpy as np

from ..preferences import level_tie_counts
from ..rankings import Rankings
from .common import PERCENT, MeasureMatrices, ReportLine, ReportOptions, percent


def ties(evaluation, data: MeasureMatrices, options: ReportOptions, progress=None) -> list[ReportLine]:
    lines = [ReportLine("ties", name, "all", percent(d == 0), PERCENT, column="% tied")
             for name, d in data.differences.items()]
    if evaluation.preferences is not None and "LP" in evaluation.preferences.names:
        by_level = {"table": "LP by recall level", "row_name": "level"}
        lines += [ReportLine("ties", "LP_level", str(level), value, PERCENT, row=str(level), column="% tied",
                             **by_level) for level, value in tie_rates(*evaluation.level_tie_counts())]
        decided = evaluation.preferences.levels["LP"]
        decided = decided[decided > 0]
        if decided.size:
            counts = np.bincount(decided)
            for level in np.flatnonzero(counts):
                lines.append(ReportLine("ties", "LP_decided_at", str(level), 100.0 * counts[level] / decided.size,
                                        PERCENT, row=str(level), column="% decided there", **by_level))
    return lines


def level_ties(r: Rankings) -> list[tuple[int, float]]:
    """(level i, % of (query, pair) cases with p_i^A = p_i^B) over queries
    with at least i relevant documents; unretrieved positions are equal."""
    return tie_rates(*level_tie_counts(r))


def tie_rates(tied: np.ndarray, cases: np.ndarray) -> list[tuple[int, float]]:
    """(level i, % of the cases at level i that tie), levels from 1."""
    return [(i, 100.0 * tied[i] / cases[i]) for i in range(1, len(tied)) if cases[i] > 0]
