"""degradation: relevant labels removed at random (at least one kept per
query): ties and agreement with the full-label preferences, mean and sd
(Diaz, "Best-Case Retrieval Evaluation", figures 8-9; "Recall,
Robustness, and Lexicographic Evaluation", figures 14-15)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ..rankings import Rankings
from .common import MeasureMatrices, ReportLine, ReportOptions, matrices, percent


def degraded(r: Rankings, qrels, fraction: float, rng: np.random.Generator, policy: str = "random") -> Rankings:
    """Rankings with a ``fraction`` of each query's relevant labels kept (at
    least one); removed labels make their documents unjudged. ``policy``
    random keeps a random subset; pool keeps the labels of the documents the
    most runs retrieve (pref_eval's pool policy), ties in random order."""
    query_of_row = qrels.query_index
    relevant_rows = np.flatnonzero(qrels.grades >= r.level)
    evaluated = {qid: index for index, qid in enumerate(r.qids)}
    row_query = np.array([evaluated.get(qrels.qids[q], -1) for q in query_of_row[relevant_rows]], dtype=np.int64)
    inside = row_query >= 0
    relevant_rows, row_query = relevant_rows[inside], row_query[inside]
    shuffle = rng.random(len(relevant_rows))
    if policy == "pool":
        retrieved = r.qrels_rows[r.qrels_rows >= 0]
        runs_retrieving = np.bincount(retrieved, minlength=len(qrels.grades))[relevant_rows]
        order = np.lexsort((shuffle, -runs_retrieving, row_query))
    else:
        order = np.lexsort((shuffle, row_query))
    relevant_rows, row_query = relevant_rows[order], row_query[order]
    first = np.searchsorted(row_query, np.arange(r.num_queries))
    position = np.arange(len(row_query)) - first[row_query]
    keep_count = np.maximum(1, np.round(fraction * r.num_rel_per_query)).astype(np.int64)
    removed = relevant_rows[position >= keep_count[row_query]]
    removed_mask = np.zeros(len(qrels.grades), dtype=bool)
    removed_mask[removed] = True
    codes = r.codes.copy()
    hit = (r.qrels_rows >= 0)
    hit[hit] = removed_mask[r.qrels_rows[hit]]
    codes[hit] = -1
    level_counts = r.level_counts.copy()
    removed_query = row_query[position >= keep_count[row_query]]
    width = level_counts.shape[1]
    level_counts -= np.bincount(removed_query * width + qrels.grades[removed],
                                minlength=level_counts.size).reshape(level_counts.shape)
    return replace(r, codes=codes, level_counts=level_counts)


def degradation(evaluation, data: MeasureMatrices, options: ReportOptions,
                progress: Callable | None = None) -> list[ReportLine]:
    """Re-evaluates the same measures on rankings with labels removed."""
    qrels = evaluation.rankings.qrels
    compared_rankings = evaluation.comparison
    rng = np.random.default_rng(options.seed)
    lines = []
    total = len(options.fractions) * options.samples
    done = 0
    for fraction in options.fractions:
        tie_rates: dict[str, list[float]] = {name: [] for name in data.differences}
        agreements: dict[str, list[float]] = {name: [] for name in data.differences}
        for _ in range(options.samples):
            sample = matrices(evaluation.reevaluate(degraded(compared_rankings, qrels, fraction, rng,
                                                              options.label_policy)))
            for name, full in data.differences.items():
                d = sample.differences[name]
                tie_rates[name].append(percent(d == 0))
                decided = full != 0
                agreements[name].append(percent(np.sign(d[decided]) == np.sign(full[decided])))
            done += 1
            if progress:
                progress(done, total)
        for name in data.differences:
            for what, values in (("ties", tie_rates[name]), ("agreement", agreements[name])):
                lines.append(ReportLine("degradation", f"{name}_{what}_mean", f"{fraction:g}",
                                        float(np.mean(values))))
                lines.append(ReportLine("degradation", f"{name}_{what}_sd", f"{fraction:g}",
                                        float(np.std(values, ddof=1)) if len(values) > 1 else 0.0))
    return lines
